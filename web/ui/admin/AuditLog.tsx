import type { Api } from '../../lib/api';
import { formatWhen } from '../../lib/citations';
import type { AuditEntryDto, ProjectSummary } from '../../lib/types';
import { useSession } from '../../session';
import { ErrorText, Loading, TIER_LABEL, useLoad, useTitle } from '../common';
import { Choices, namedChoices, NamePicker, Pager, ScrollTable, useFilteredPages } from '../controls';
import { useTargets } from '../targets';
import type { Department, Group, Person } from './org';

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
];
const PAGE = 50;

/** The names behind the ids of a page of entries, read through the same API (a deleted one says so). */
async function namesFor(api: Api, entries: AuditEntryDto[], signal: AbortSignal): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const [projects, groups, departments] = await Promise.all([
    api.get<{ projects: ProjectSummary[] }>('/projects', signal),
    api.get<{ groups: Group[] }>('/groups', signal),
    api.get<{ departments: Department[] }>('/departments', signal),
  ]);
  for (const p of projects.projects) names.set(p.id, p.name);
  for (const g of groups.groups) names.set(g.id, g.name);
  for (const d of departments.departments) names.set(d.id, d.name);
  const userIds = new Set<string>();
  for (const e of entries) {
    if (e.actorId) userIds.add(e.actorId);
    if (e.targetType === 'user') userIds.add(e.targetId);
  }
  await Promise.all(
    [...userIds].map((id) =>
      api.get<{ user: Person }>(`/users/${id}`, signal).then(
        (r) => names.set(id, r.user.name),
        () => names.set(id, 'a deleted user'),
      ),
    ),
  );
  return names;
}

/** The audit log (admins and the superadmin): filter by action, actor, project and time; each entry by name. */
export function AuditLog() {
  const { api } = useSession();
  const { filters: f, set, bind, offset, setOffset } = useFilteredPages({ action: '', actor: '', projectId: '', from: '', to: '' });
  const actors = useTargets('user', f.actor);
  const actorId = f.actor ? actors.options.find((o) => o.label.toLowerCase() === f.actor.trim().toLowerCase())?.id : undefined;
  const projects = useLoad((s) => api.get<{ projects: ProjectSummary[] }>('/projects', s), []);
  const qs = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (f.action) qs.set('action', f.action);
  if (actorId) qs.set('actorId', actorId);
  if (f.projectId) qs.set('projectId', f.projectId);
  if (f.from) qs.set('from', new Date(f.from).toISOString());
  if (f.to) qs.set('to', new Date(f.to).toISOString());
  const log = useLoad(
    async (s) => {
      const page = await api.get<{ entries: AuditEntryDto[]; total: number }>(`/audit-log?${qs}`, s);
      return { ...page, names: await namesFor(api, page.entries, s) };
    },
    [qs.toString()],
  );
  useTitle('Audit log');
  const name = (id: string | null) => (id ? (log.data?.names.get(id) ?? 'a deleted item') : 'the system');
  const total = log.data?.total ?? 0;

  return (
    <section className="admin" aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <form className="card row wrap filters" aria-label="Filter the audit log" onSubmit={(e) => e.preventDefault()}>
        <Choices label="Action" {...bind('action')} empty="Any" choices={ACTIONS.map((a) => [a, a] as const)} />
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
            <td>{e.action}</td>
            <td>{name(e.actorId)}</td>
            <td>{e.projectId ? name(e.projectId) : '—'}</td>
            <td>
              {e.targetType} {name(e.targetId)}
            </td>
            <td className="small">
              {typeof e.metadata.tier === 'string' && TIER_LABEL[e.metadata.tier]}
              {typeof e.metadata.previousTier === 'string' && ` (was ${TIER_LABEL[e.metadata.previousTier]})`}
            </td>
          </tr>
        ))}
      </ScrollTable>
      <Pager label="Pages of the audit log" offset={offset} page={PAGE} total={total} none="No entries match." onOffset={setOffset} />
    </section>
  );
}
