import DataLoader from 'dataloader';
import type { Actor } from '../../access/actor';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../../errors';
import { presentConversationSummary } from '../../presenters/conversation.presenter';
import { presentDepartment } from '../../presenters/department.presenter';
import { presentDocument } from '../../presenters/document.presenter';
import { presentGrant } from '../../presenters/grant.presenter';
import { presentGroup } from '../../presenters/group.presenter';
import { presentAdminProvider } from '../../presenters/provider.presenter';
import { presentProjectBase, presentProjectMember, projectFields } from '../../presenters/project.presenter';
import { presentUser, presentUserSummary } from '../../presenters/user.presenter';
import type { Services } from '../../services';
import type { Batch, GraphBatchService } from '../../services/graph-batch.service';

type Row = Record<string, unknown>;

/** A DataLoader over a batched service read; a key the service left out answers not_found. */
function batched<T, V>(read: (ids: readonly string[]) => Promise<Batch<T>>, present: (v: T) => V): DataLoader<string, V> {
  return new DataLoader<string, V>(async (ids) => {
    const found = await read(ids);
    return ids.map((id) => {
      const v = found.get(id);
      if (v === undefined) return new NotFoundError('not_found', 'Not found');
      return v instanceof Error ? v : present(v);
    });
  });
}

/**
 * Per-operation DataLoaders: nested fields ask these instead of the database, so a list of N parents
 * costs one batched read per field, not N. Every read goes through a service with the caller, so the
 * service applies the REST rule for that read (tier on the project, role gates).
 */
export function createLoaders(services: Services, batch: GraphBatchService, actor: Actor | null) {
  const caller = (): Actor => {
    if (!actor) throw new UnauthorizedError('unauthorized', 'Authentication required');
    return actor;
  };

  /** The caller's access to projects (tier and source), for projects reached without it. */
  const access = new DataLoader<string, { tier: string; source: string }>(async (ids) => {
    const found = await batch.access(caller(), ids);
    return ids.map((id) => found.get(id) ?? new ForbiddenError('forbidden', 'You have no access to this project'));
  });
  const projects = batched((ids) => batch.projects(caller(), ids), ({ project, access: a }) => ({
    ...presentProjectBase(projectFields(project)), accessTier: a.tier, accessSource: a.source,
  }));
  const members = batched((ids) => batch.members(caller(), ids), (ms) => ms.map(presentProjectMember));
  const grants = batched((ids) => batch.grants(caller(), ids), (gs) => gs.map(presentGrant));
  const counts = batched((ids) => batch.counts(caller(), ids), (c) => c);
  const users = batched((ids) => batch.users(caller(), ids), presentUser);
  const memberProjects = batched((ids) => batch.memberProjects(caller(), ids), (rows) =>
    rows.map((r) => ({ ...presentProjectBase(projectFields(r.project)), accessTier: r.access_tier, accessSource: r.access_source })));
  const departments = batched((ids) => batch.departments(caller(), ids), (v) => presentDepartment(v.department, v.counts));
  const departmentMembers = batched((ids) => batch.departmentMembers(caller(), ids), (us) => us.map(presentUserSummary));
  const departmentGroups = batched((ids) => batch.departmentGroups(caller(), ids), (gs) => gs.map((v) => presentGroup(v.group, v)));
  const groups = batched((ids) => batch.groups(caller(), ids), (v) => presentGroup(v.group, v));
  const groupMembers = batched((ids) => batch.groupMembers(caller(), ids), (us) => us.map(presentUserSummary));
  const documents = batched((ids) => batch.documents(caller(), ids), (ds) => ds.map(presentDocument));
  const projectConversations = batched((ids) => batch.projectConversations(caller(), ids), (rows) =>
    rows.map((r) => ({ ...presentConversationSummary(r), projectId: r.projectId })));
  const conversationMessages = batched((ids) => batch.conversationMessages(caller(), ids), (ms) => ms);
  /** The admin view of providers: one GET /providers/admin read answers every key (engineer, superadmin). */
  const providers = new DataLoader<string, Row>(async (ids) => {
    const all = new Map((await services.providers.listAll(caller())).map((p) => [p.id, presentAdminProvider(p)]));
    return ids.map((id) => all.get(id) ?? new NotFoundError('not_found', 'Provider not found'));
  });

  /** Full views, for fields a partial view lacks (FromView): the same reach as REST's GET /x/:id. */
  const fullByType: Record<string, DataLoader<string, Row>> = {
    User: users, Project: projects, Department: departments, Group: groups, Provider: providers,
  };

  return {
    access,
    projects,
    members,
    grants,
    counts,
    users,
    memberProjects,
    departments,
    departmentMembers,
    departmentGroups,
    groups,
    groupMembers,
    providers,
    documents,
    projectConversations,
    conversationMessages,
    /** The full view of a `typeName` object, read with the caller's rights. */
    full(typeName: string, id: string): Promise<Row> {
      const loader = fullByType[typeName];
      if (!loader) return Promise.reject(new ForbiddenError('forbidden', `This ${typeName} field is not visible here`));
      return loader.load(id);
    },
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
