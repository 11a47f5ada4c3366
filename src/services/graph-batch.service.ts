import type { Actor } from '../access/actor';
import { gates } from '../access/gates';
import { accessibleProjectsCte, accessToProjects, AccessibleProjectRow } from '../access/project-access.sql';
import type { Access } from '../access/resolver';
import { Conversation, Department, Document, Group, GroupMember, Message, Project, ProjectGrant, ProjectMember, User } from '../entities';
import { ForbiddenError, NotFoundError } from '../errors';
import type { DepartmentCounts } from '../presenters/department.presenter';
import type { ConversationRow } from '../presenters/conversation.presenter';
import type { ProjectCounts } from '../presenters/project.presenter';
import { BaseService } from './context';

/** Per key: the value, or the error REST would have answered for that key alone. */
export type Batch<T> = Map<string, T | Error>;

const noAccess = () => new ForbiddenError('forbidden', 'You have no access to this project');

/**
 * Batched reads behind GraphQL's DataLoaders: the same rules as the single-object service methods
 * (the `use` tier through the list form of the resolver, the platform-admin gate for users), but
 * for many ids in a constant number of queries, so nested fields never query per parent.
 */
export class GraphBatchService extends BaseService {
  /** The caller's access to each project; projects they cannot access are absent. */
  async access(actor: Actor, projectIds: readonly string[]): Promise<Map<string, Access>> {
    return accessToProjects(this.em(), actor, [...projectIds]);
  }

  /** Splits ids into those the caller can read (any tier is `use` or more) and a forbidden result for the rest. */
  private async readable<T>(actor: Actor, projectIds: readonly string[]): Promise<{ allowed: string[]; out: Batch<T>; access: Map<string, Access> }> {
    const access = await this.access(actor, projectIds);
    const out: Batch<T> = new Map();
    const allowed: string[] = [];
    for (const id of projectIds) {
      if (access.has(id)) allowed.push(id);
      else out.set(id, noAccess());
    }
    return { allowed, out, access };
  }

  /** Projects by id with the caller's access (GET /projects/:id needs any tier). */
  async projects(actor: Actor, ids: readonly string[]): Promise<Batch<{ project: Project; access: Access }>> {
    const { allowed, out, access } = await this.readable<{ project: Project; access: Access }>(actor, ids);
    if (allowed.length) {
      for (const p of await this.em().find(Project, { id: { $in: allowed } })) out.set(p.id, { project: p, access: access.get(p.id)! });
    }
    for (const id of allowed) if (!out.has(id)) out.set(id, new NotFoundError('not_found', 'Project not found'));
    return out;
  }

  /** Each project's visible members with their users (what GET /projects/:id lists). */
  async members(actor: Actor, projectIds: readonly string[]): Promise<Batch<ProjectMember[]>> {
    const { allowed, out } = await this.readable<ProjectMember[]>(actor, projectIds);
    for (const id of allowed) out.set(id, []);
    if (allowed.length) {
      const rows = await this.em().find(ProjectMember, { project: { $in: allowed } }, { populate: ['user'], orderBy: { addedAt: 'asc', user: { id: 'asc' } } });
      for (const m of rows) (out.get(m.project.id) as ProjectMember[]).push(m);
    }
    return out;
  }

  /** Each project's grants with targets populated (GET /projects/:id/grants needs `use`). */
  async grants(actor: Actor, projectIds: readonly string[]): Promise<Batch<ProjectGrant[]>> {
    const { allowed, out } = await this.readable<ProjectGrant[]>(actor, projectIds);
    for (const id of allowed) out.set(id, []);
    if (allowed.length) {
      const rows = await this.em().find(ProjectGrant, { project: { $in: allowed } }, {
        populate: ['user', 'group', 'group.department', 'department'],
        strategy: 'joined',
        orderBy: { createdAt: 'asc', id: 'asc' },
      });
      for (const g of rows) (out.get(g.project.id) as ProjectGrant[]).push(g);
    }
    return out;
  }

  /** Each project's document, conversation and chunk counts (the detail's `_count`). */
  async counts(actor: Actor, projectIds: readonly string[]): Promise<Batch<ProjectCounts>> {
    const { allowed, out } = await this.readable<ProjectCounts>(actor, projectIds);
    if (allowed.length) {
      const rows: Array<ProjectCounts & { id: string }> = await this.em().execute(
        `select p.id,
                (select count(*) from documents d where d.project_id = p.id)::int as documents,
                (select count(*) from conversations c where c.project_id = p.id)::int as conversations,
                (select count(*) from chunks k where k.project_id = p.id)::int as chunks
           from projects p where p.id = any(array[?]::uuid[])`,
        [allowed],
      );
      for (const r of rows) out.set(r.id, { documents: r.documents, conversations: r.conversations, chunks: r.chunks });
    }
    return out;
  }

  /** Full users (GET /users/:id is admin-only; GET /users/me is the caller's own). */
  async users(actor: Actor, ids: readonly string[]): Promise<Batch<User>> {
    const out: Batch<User> = new Map();
    const allowed = gates.isPlatformAdmin(actor) ? [...ids] : ids.filter((id) => id === actor.id);
    for (const id of ids) if (!allowed.includes(id)) out.set(id, new ForbiddenError('forbidden', 'requires platform role admin or superadmin'));
    if (allowed.length) {
      for (const u of await this.em().find(User, { id: { $in: allowed } }, { populate: ['department'] })) out.set(u.id, u);
    }
    for (const id of allowed) if (!out.has(id)) out.set(id, new NotFoundError('not_found', 'User not found'));
    return out;
  }

  /**
   * For each user, the projects they are a visible member of, among the projects the caller can
   * access (with the caller's tier and source): what the caller could piece together from REST's
   * project lists and their members, in one query.
   */
  async memberProjects(actor: Actor, userIds: readonly string[]): Promise<Batch<Array<Pick<AccessibleProjectRow, 'access_tier' | 'access_source'> & { project: Project }>>> {
    const out: Batch<Array<Pick<AccessibleProjectRow, 'access_tier' | 'access_source'> & { project: Project }>> = new Map();
    for (const id of userIds) out.set(id, []);
    const em = this.em();
    const cte = accessibleProjectsCte(actor);
    const rows: Array<{ user_id: string; project_id: string; tier: AccessibleProjectRow['access_tier']; source: AccessibleProjectRow['access_source'] }> = await em.execute(
      `with accessible as (${cte.sql})
       select pm.user_id, a.project_id, a.tier, a.source
         from project_members pm
         join accessible a on a.project_id = pm.project_id
         join projects p on p.id = pm.project_id
        where pm.user_id = any(array[?]::uuid[])
        order by p.created_at desc, p.id`,
      [...cte.params, userIds.length ? [...userIds] : null],
    );
    if (!rows.length) return out;
    const projects = new Map((await em.find(Project, { id: { $in: [...new Set(rows.map((r) => r.project_id))] } })).map((p) => [p.id, p]));
    for (const r of rows) (out.get(r.user_id) as unknown[]).push({ project: projects.get(r.project_id)!, access_tier: r.tier, access_source: r.source });
    return out;
  }

  /** Departments with their `_count`, for readers of each (GET /departments/:id). */
  async departments(actor: Actor, ids: readonly string[]): Promise<Batch<{ department: Department; counts: DepartmentCounts }>> {
    const out: Batch<{ department: Department; counts: DepartmentCounts }> = new Map();
    const allowed = this.gated(ids, out, (id) => gates.requireDepartmentReader(actor, id));
    if (allowed.length) {
      const em = this.em();
      const rows: Array<DepartmentCounts & { id: string }> = await em.execute(
        `select d.id,
                (select count(*) from users u where u.department_id = d.id)::int as members,
                (select count(*) from groups g where g.department_id = d.id)::int as groups,
                (select count(*) from project_grants pg where pg.department_id = d.id)::int as grants
           from departments d where d.id = any(array[?]::uuid[])`,
        [allowed],
      );
      const entities = new Map((await em.find(Department, { id: { $in: allowed } })).map((d) => [d.id, d]));
      for (const r of rows) out.set(r.id, { department: entities.get(r.id)!, counts: { members: r.members, groups: r.groups, grants: r.grants } });
    }
    for (const id of allowed) if (!out.has(id)) out.set(id, new NotFoundError('not_found', 'Department not found'));
    return out;
  }

  /** Each department's members (GET /departments/:id/members: the department's readers). */
  async departmentMembers(actor: Actor, departmentIds: readonly string[]): Promise<Batch<User[]>> {
    const out: Batch<User[]> = new Map();
    const allowed = this.gated(departmentIds, out, (id) => gates.requireDepartmentReader(actor, id));
    for (const id of allowed) out.set(id, []);
    if (allowed.length) {
      for (const u of await this.em().find(User, { department: { $in: allowed } }, { orderBy: { name: 'asc', id: 'asc' } })) (out.get(u.department!.id) as User[]).push(u);
    }
    return out;
  }

  /** Each department's groups with member counts (GET /groups?departmentId: the groups' readers). */
  async departmentGroups(actor: Actor, departmentIds: readonly string[]): Promise<Batch<Array<{ group: Group; memberCount: number }>>> {
    const out: Batch<Array<{ group: Group; memberCount: number }>> = new Map();
    const allowed = this.gated(departmentIds, out, (id) => gates.requireGroupReader(actor, id));
    for (const id of allowed) out.set(id, []);
    if (allowed.length) {
      const groups = await this.em().find(Group, { department: { $in: allowed } }, { populate: ['department'], orderBy: { name: 'asc', id: 'asc' } });
      const counts = await this.memberCounts(groups.map((g) => g.id));
      for (const g of groups) (out.get(g.department.id) as unknown[]).push({ group: g, memberCount: counts.get(g.id) ?? 0 });
    }
    return out;
  }

  /** Groups with member counts, for readers of each (GET /groups/:id). */
  async groups(actor: Actor, ids: readonly string[]): Promise<Batch<{ group: Group; memberCount: number }>> {
    const out: Batch<{ group: Group; memberCount: number }> = new Map();
    const groups = await this.readableGroups(actor, ids, out);
    const counts = await this.memberCounts(groups.map((g) => g.id));
    for (const g of groups) out.set(g.id, { group: g, memberCount: counts.get(g.id) ?? 0 });
    return out;
  }

  /** Each group's members, ordered by name (GET /groups/:id's `members`). */
  async groupMembers(actor: Actor, groupIds: readonly string[]): Promise<Batch<User[]>> {
    const out: Batch<User[]> = new Map();
    const groups = await this.readableGroups(actor, groupIds, out);
    for (const g of groups) out.set(g.id, []);
    if (groups.length) {
      const rows = await this.em().find(GroupMember, { group: { $in: groups.map((g) => g.id) } }, { populate: ['user'], orderBy: { user: { name: 'asc' } } });
      for (const r of rows) (out.get(r.group.id) as User[]).push(r.user);
    }
    return out;
  }

  /** Loads groups and applies the group-read gate of each one's department; others get their error. */
  private async readableGroups(actor: Actor, ids: readonly string[], out: Batch<unknown>): Promise<Group[]> {
    // as GroupsService.get: callers who could read no group learn nothing about which ids exist
    try {
      gates.requireGroupReader(actor);
    } catch (e) {
      for (const id of ids) out.set(id, e as Error);
      return [];
    }
    const found = ids.length ? await this.em().find(Group, { id: { $in: [...ids] } }, { populate: ['department'] }) : [];
    const readable: Group[] = [];
    for (const g of found) {
      if (this.gated([g.id], out, () => gates.requireGroupReader(actor, g.department.id)).length) readable.push(g);
    }
    for (const id of ids) if (!out.has(id) && !readable.some((g) => g.id === id)) out.set(id, new NotFoundError('not_found', 'Group not found'));
    return readable;
  }

  private async memberCounts(groupIds: string[]): Promise<Map<string, number>> {
    if (!groupIds.length) return new Map();
    const rows: Array<{ group_id: string; n: number }> = await this.em().execute(
      `select group_id, count(*)::int as n from group_members where group_id = any(array[?]::uuid[]) group by group_id`,
      [groupIds],
    );
    return new Map(rows.map((r) => [r.group_id, r.n]));
  }

  /** Runs a role gate per id; ids that fail get the gate's error in `out`. Returns the ids that pass. */
  private gated(ids: readonly string[], out: Batch<unknown>, gate: (id: string) => void): string[] {
    const allowed: string[] = [];
    for (const id of ids) {
      try {
        gate(id);
        allowed.push(id);
      } catch (e) {
        out.set(id, e as Error);
      }
    }
    return allowed;
  }

  /** Each project's documents, newest first (GET /projects/:projectId/documents needs `use`). */
  async documents(actor: Actor, projectIds: readonly string[]): Promise<Batch<Document[]>> {
    const { allowed, out } = await this.readable<Document[]>(actor, projectIds);
    for (const id of allowed) out.set(id, []);
    if (allowed.length) {
      const rows = await this.em().find(Document, { project: { $in: allowed } }, { orderBy: { createdAt: 'desc', id: 'asc' } });
      for (const d of rows) (out.get(d.project.id) as Document[]).push(d);
    }
    return out;
  }

  /** The caller's own conversations in each project, newest first (GET /chat/projects/:id/conversations needs `use`). */
  async projectConversations(actor: Actor, projectIds: readonly string[]): Promise<Batch<ConversationRow[]>> {
    const { allowed, out } = await this.readable<ConversationRow[]>(actor, projectIds);
    for (const id of allowed) out.set(id, []);
    if (allowed.length) {
      const rows: Array<{ id: string; title: string; project_id: string; created_at: Date; updated_at: Date; message_count: number }> = await this.em().execute(
        `select c.id, c.title, c.project_id, c.created_at, c.updated_at,
                (select count(*) from messages m where m.conversation_id = c.id)::int as message_count
           from conversations c
          where c.project_id = any(array[?]::uuid[]) and c.user_id = ?
          order by c.updated_at desc, c.id desc`,
        [allowed, actor.id],
      );
      for (const r of rows) {
        (out.get(r.project_id) as ConversationRow[]).push({ id: r.id, title: r.title, projectId: r.project_id, createdAt: r.created_at, updatedAt: r.updated_at, messageCount: r.message_count });
      }
    }
    return out;
  }

  /**
   * Each conversation's messages, oldest first, under GET /chat/conversations/:id's rule: its author
   * while they hold `use` on the project, or platform staff; anyone else gets not_found.
   */
  async conversationMessages(actor: Actor, conversationIds: readonly string[]): Promise<Batch<Message[]>> {
    const out: Batch<Message[]> = new Map();
    const em = this.em();
    const conversations = conversationIds.length ? await em.find(Conversation, { id: { $in: [...conversationIds] } }) : [];
    let readable = conversations;
    if (!gates.isPlatformAdmin(actor)) {
      const access = await this.access(actor, [...new Set(conversations.map((c) => c.project.id))]);
      readable = conversations.filter((c) => c.user?.id === actor.id && access.has(c.project.id));
    }
    for (const id of conversationIds) out.set(id, new NotFoundError('not_found', 'Conversation not found'));
    for (const c of readable) out.set(c.id, []);
    if (readable.length) {
      const rows = await em.find(Message, { conversation: { $in: readable.map((c) => c.id) } }, { orderBy: { createdAt: 'asc', id: 'asc' } });
      for (const m of rows) (out.get(m.conversation.id) as Message[]).push(m);
    }
    return out;
  }
}
