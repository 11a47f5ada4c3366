import { formatWhen } from '../../lib/citations';
import type { AuditEntryDto } from '../../lib/types';
import { useSession } from '../../session';
import { ErrorText, Loading, TIER_LABEL, useLoad } from '../common';
import { Choices, choicesOf, namedChoices, NamePicker, Pager, ScrollTable, useFilteredPages } from '../controls';
import { useTargets } from '../targets';
import { AdminScreen } from './org';

/**
 * Every action the server records, in words: typed by the generated wire union, so an action the
 * server adds fails the web app's typecheck until it is named here.
 */
const ACTION_LABEL: Record<AuditEntryDto['action'], string> = {
  grant_created: 'Access granted',
  grant_updated: 'Access changed',
  grant_deleted: 'Access removed',
  project_visibility_changed: 'Project visibility changed',
  project_owner_changed: 'Project owner changed',
  project_created: 'Project created',
  project_deleted: 'Project deleted',
  user_role_changed: 'Role changed',
  user_status_changed: 'Status changed',
  user_created_by_sso: 'Account created by single sign-on',
  group_member_added: 'Joined a group',
  group_member_removed: 'Left a group',
  department_member_added: 'Joined a department',
  department_member_removed: 'Left a department',
  key_created: 'Key created',
  key_revoked: 'Key revoked',
  key_used_from_new_address: 'Key used from a new address',
};
const ACTIONS = choicesOf(ACTION_LABEL);
const PAGE = 50;

/** The audit log (admins and the superadmin): filter by action, actor, project and time; each entry by name. */
export function AuditLog() {
  const { api } = useSession();
  const { filters: f, set, bind, offset, setOffset } = useFilteredPages({ action: '', actor: '', projectId: '', from: '', to: '' });
  const actors = useTargets('user', f.actor);
  const actorId = f.actor ? actors.options.find((o) => o.label.toLowerCase() === f.actor.trim().toLowerCase())?.id : undefined;
  const projects = useLoad((s) => api.get('/projects', s), []);
  const qs = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (f.action) qs.set('action', f.action);
  if (actorId) qs.set('actorId', actorId);
  if (f.projectId) qs.set('projectId', f.projectId);
  if (f.from) qs.set('from', new Date(f.from).toISOString());
  if (f.to) qs.set('to', new Date(f.to).toISOString());
  const log = useLoad((s) => api.get(`/audit-log?${qs}`, s), [qs.toString()]);
  const named = (id: string | null, name: string | null, gone: string) => (id ? (name ?? gone) : 'the system');
  const total = log.data?.total ?? 0;

  return (
    <AdminScreen id="audit" title="Audit log">
      <form className="card row wrap filters" aria-label="Filter the audit log" onSubmit={(e) => e.preventDefault()}>
        <Choices label="Action" {...bind('action')} empty="Any" choices={ACTIONS} />
        <label className="inline grow">
          Actor
          <NamePicker listId="audit-actors" value={f.actor} onChange={(v) => set('actor', v)} options={actors.options} />
        </label>
        <Choices label="Project" {...bind('projectId')} empty="Any" choices={namedChoices(projects.data?.projects)} />
        <label className="inline">
          From
          <input type="datetime-local" {...bind('from')} />
        </label>
        <label className="inline">
          To
          <input type="datetime-local" {...bind('to')} />
        </label>
      </form>
      {log.loading && !log.data && <Loading what="the audit log" />}
      <ErrorText>{log.error}</ErrorText>
      <ScrollTable
        label="Audit entries, scrollable"
        className="grant-table audit-table"
        columns={['When', 'Action', 'Who', 'Project', 'Target', 'Details']}
      >
        {log.data?.entries.map((e) => (
          <tr key={e.id}>
            <td>{formatWhen(e.createdAt)}</td>
            <td>
              {ACTION_LABEL[e.action] ?? e.action} <code className="small">{e.action}</code>
            </td>
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
      </ScrollTable>
      <Pager label="Pages of the audit log" offset={offset} page={PAGE} total={total} none="No entries match." onOffset={setOffset} />
    </AdminScreen>
  );
}
