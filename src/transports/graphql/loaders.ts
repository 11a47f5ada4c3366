import DataLoader from 'dataloader';
import type { Actor } from '../../access/actor';
import { NotFoundError, UnauthorizedError } from '../../errors';
import { type GraphConversationSummaryDto, presentConversationSummary } from '../../presenters/conversation.presenter';
import { presentDepartment } from '../../presenters/department.presenter';
import { presentDocument } from '../../presenters/document.presenter';
import { presentGrant } from '../../presenters/grant.presenter';
import { presentGroup } from '../../presenters/group.presenter';
import { presentAdminProvider } from '../../presenters/provider.presenter';
import {
  type GraphMemberProjectDto,
  type GraphProjectDto,
  presentProjectBase,
  presentProjectDetail,
  projectFields,
} from '../../presenters/project.presenter';
import { presentUser, presentUserSummary } from '../../presenters/user.presenter';
import type { AdminProviderDto } from '../../presenters/dto.generated';
import type { Services } from '../../services';
import type { Batch } from '../../services/batch';

type Row = Record<string, unknown>;

/** A DataLoader over a service's `getMany`-style read; a key the service left out answers not_found. */
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
 * costs one batched read per field, not N. Each calls the service read REST calls (`getMany`, or a
 * list's many-parent form) with the caller, so the same rule in `src/access/` decides for both.
 */
export function createLoaders(services: Services, actor: Actor | null) {
  const caller = (): Actor => {
    if (!actor) throw new UnauthorizedError('unauthorized', 'Authentication required');
    return actor;
  };

  const projects = batched(
    (ids) => services.projects.getMany(caller(), ids),
    (v): GraphProjectDto => ({
      ...presentProjectDetail(v),
      accessTier: v.access.tier,
      accessSource: v.access.source,
    }),
  );
  const grants = batched(
    (ids) => services.grants.listMany(caller(), ids),
    (gs) => gs.map(presentGrant),
  );
  const users = batched((ids) => services.users.getMany(caller(), ids), presentUser);
  const memberProjects = batched(
    (ids) => services.projects.listForMembers(caller(), ids),
    (rows) =>
      rows.map((r): GraphMemberProjectDto => ({
        ...presentProjectBase(projectFields(r.project)),
        accessTier: r.access.tier,
        accessSource: r.access.source,
      })),
  );
  const departments = batched(
    (ids) => services.departments.getMany(caller(), ids),
    (v) => presentDepartment(v.department, v.counts),
  );
  const departmentMembers = batched(
    (ids) => services.departments.membersMany(caller(), ids),
    (us) => us.map(presentUserSummary),
  );
  const departmentGroups = batched(
    (ids) => services.groups.listByDepartments(caller(), ids),
    (vs) => vs.map((v) => presentGroup(v.group, { memberCount: v.memberCount })),
  );
  const groups = batched(
    (ids) => services.groups.getMany(caller(), ids),
    (v) => presentGroup(v.group, v),
  );
  const documents = batched(
    (ids) => services.documents.listMany(caller(), ids),
    (ds) => ds.map(presentDocument),
  );
  const projectConversations = batched(
    (ids) => services.conversations.listByProjects(caller(), ids),
    (rows) => rows.map((r): GraphConversationSummaryDto => ({ ...presentConversationSummary(r), projectId: r.projectId })),
  );
  const conversations = batched(
    (ids) => services.conversations.getMany(caller(), ids),
    (v) => v.messages,
  );
  /** The admin view of providers: one GET /providers/admin read answers every key (engineer, superadmin). */
  const providers = new DataLoader<string, AdminProviderDto>(async (ids) => {
    const all = new Map((await services.providers.listAll(caller())).map((p) => [p.id, presentAdminProvider(p)]));
    return ids.map((id) => all.get(id) ?? new NotFoundError('not_found', 'Provider not found'));
  });

  /** Full views, for fields a partial view lacks (FromView): the same reach as REST's GET /x/:id. */
  const fullByType: Record<string, DataLoader<string, object>> = {
    User: users,
    Project: projects,
    Department: departments,
    Group: groups,
    Provider: providers,
  };

  return {
    projects,
    grants,
    users,
    memberProjects,
    departments,
    departmentMembers,
    departmentGroups,
    groups,
    providers,
    documents,
    projectConversations,
    /** Each conversation's messages, oldest first (GET /chat/conversations/:id's rule). */
    conversationMessages: conversations,
    /** The full view of a `typeName` object (one of access/view-rules' COMPLETABLE_VIEWS), read with the caller's rights. */
    full(typeName: string, id: string): Promise<Row> {
      // a field is completed by its GraphQL name, so the full view is read as a record here
      return fullByType[typeName].load(id) as Promise<Row>;
    },
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
