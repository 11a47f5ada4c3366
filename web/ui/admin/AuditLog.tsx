import { useEffect, useState } from 'react';
import { formatWhen } from '../../lib/citations';
import type { ProjectSummary } from '../../lib/types';
import { useSession } from '../../session';
import { ErrorText, Loading, TIER_LABEL, useLoad } from '../common';
import { useTargets } from '../targets';

interface Entry {
  id: string;
  action: string;
  actorId: string | null;
  projectId: string | null;
  targetType: 'user' | 'group' | 'department' | 'project' | 'key';
  targetId: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  /** Names as they are now, from the server (null once deleted, or for the system). */
  actorName: string | null;
  projectName: string | null;
  targetName: string | null;
}

const ACTIONS = [
  'grant_created',
  'grant_updated',
  'grant_deleted',
  'project_visibility_changed',
  'project_owner_changed',
  'project_created',
  'project_deleted',
  'user_role_changed',
  'user_status_changed',
  'group_member_added',
  'group_member_removed',
  'department_member_added',
  'department_member_removed',
  'key_created',
  'key_revoked',
  'key_used_from_new_address',
];
const PAGE = 50;

/** The audit log (admins and the superadmin): filter by action, actor, project and time; each entry by name. */
export function AuditLog() {
  const { api } = useSession();
  const [f, setF] = useState({ action: '', actor: '', projectId: '', from: '', to: '' });
  const [offset, setOffset] = useState(0);
  const actors = useTargets('user', f.actor);
  const actorId = f.actor ? actors.options.find((o) => o.label.toLowerCase() === f.actor.trim().toLowerCase())?.id : undefined;
  const projects = useLoad((s) => api.get<{ projects: ProjectSummary[] }>('/projects', s), []);
  const qs = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (f.action) qs.set('action', f.action);
  if (actorId) qs.set('actorId', actorId);
  if (f.projectId) qs.set('projectId', f.projectId);
  if (f.from) qs.set('from', new Date(f.from).toISOString());
  if (f.to) qs.set('to', new Date(f.to).toISOString());
  const log = useLoad((s) => api.get<{ entries: Entry[]; total: number }>(`/audit-log?${qs}`, s), [qs.toString()]);
  useEffect(() => {
    document.title = 'Audit log · DocQA';
  }, []);
  const set = (k: keyof typeof f, v: string) => {
    setF((x) => ({ ...x, [k]: v }));
    setOffset(0);
  };
  const named = (id: string | null, name: string | null, gone: string) => (id ? (name ?? gone) : 'the system');
  const total = log.data?.total ?? 0;

  return (
    <section className="admin" aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <form className="card row wrap filters" aria-label="Filter the audit log" onSubmit={(e) => e.preventDefault()}>
        <label className="inline">
          Action
          <select value={f.action} onChange={(e) => set('action', e.target.value)}>
            <option value="">Any</option>
            {ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label className="inline grow">
          Actor
          <input list="audit-actors" value={f.actor} onChange={(e) => set('actor', e.target.value)} autoComplete="off" />
          <datalist id="audit-actors">
            {actors.options.map((o) => (
              <option key={o.id} value={o.label} />
            ))}
          </datalist>
        </label>
        <label className="inline">
          Project
          <select value={f.projectId} onChange={(e) => set('projectId', e.target.value)}>
            <option value="">Any</option>
            {projects.data?.projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          From
          <input type="datetime-local" value={f.from} onChange={(e) => set('from', e.target.value)} />
        </label>
        <label className="inline">
          To
          <input type="datetime-local" value={f.to} onChange={(e) => set('to', e.target.value)} />
        </label>
      </form>
      {log.loading && !log.data && <Loading what="the audit log" />}
      <ErrorText>{log.error}</ErrorText>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Audit entries, scrollable">
        <table className="grant-table audit-table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Action</th>
              <th scope="col">Who</th>
              <th scope="col">Project</th>
              <th scope="col">Target</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {log.data?.entries.map((e) => (
              <tr key={e.id}>
                <td>{formatWhen(e.createdAt)}</td>
                <td>{e.action}</td>
                <td>{named(e.actorId, e.actorName, 'a deleted user')}</td>
                <td>{e.projectId ? (e.projectName ?? 'a deleted project') : '—'}</td>
                <td>
                  {e.targetType} {named(e.targetId, e.targetName, `a deleted ${e.targetType}`)}
                </td>
                <td className="small">
                  {typeof e.metadata.tier === 'string' && TIER_LABEL[e.metadata.tier]}
                  {typeof e.metadata.previousTier === 'string' && ` (was ${TIER_LABEL[e.metadata.previousTier]})`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav className="row pager" aria-label="Pages of the audit log">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          Previous page
        </button>
        <span className="muted" role="status">
          {total === 0 ? 'No entries match.' : `${offset + 1}–${Math.min(offset + PAGE, total)} of ${total}`}
        </span>
        <button type="button" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
          Next page
        </button>
      </nav>
    </section>
  );
}
