import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../access/actor';
import { gates } from '../access/gates';
import { checkDepartmentAccess, checkGroupAccess, departmentListScope, groupReaderVerdict } from '../access/read-rules';
import { Department, Group, GroupMember, ProjectGrant, User } from '../entities';
import type { AuditService, MembershipReason } from './audit.service';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { isUuid } from '../validation';
import { Batch, groupBy, one, splitVerdicts } from './batch';
import { BaseService, ServiceContext } from '../db/service-context';
import type { PageInput, Paged } from './page';
import type { CreateGroupInput, GroupMembersInput, ListGroupsQuery, UpdateGroupInput } from './groups.inputs';
import { query } from '../db/sql';
import { findByIdOr } from './find-by-id';

export interface GroupView {
  group: Group;
  memberCount: number;
  /** Only for single-group answers. */
  members?: User[];
}

const notFound = () => new NotFoundError('not_found', 'Group not found');

/**
 * Keeps the group rule "members belong to the group's department" true when users change department:
 * drops their memberships in groups of any other department (all groups when departmentId is null),
 * each recorded as group_member_removed (reason `department_changed`). Runs inside the caller's
 * transaction, after the users' department was written.
 */
export async function dropGroupsOutsideDepartment(
  audit: AuditService,
  em: EntityManager,
  actor: Actor,
  userIds: string[],
  departmentId: string | null,
  reason: MembershipReason = 'department_changed',
): Promise<void> {
  if (!userIds.length) return;
  // em.execute (not getConnection().execute) runs inside the caller's transaction
  await audit.deleteGroupMembers(
    em,
    actor,
    'gm.user_id = any(array[?]::uuid[]) and g.department_id is distinct from ?',
    [userIds, departmentId],
    reason,
  );
}

/**
 * Groups (DESIGN §4). A group belongs to one department, fixed at creation; its members must belong
 * to that department too, so a manager cannot extend their groups' grants to other departments.
 * Read: admin, superadmin, the CEO, the manager of the group's department. Write: admin, superadmin, that manager.
 */
export class GroupsService extends BaseService {
  constructor(
    ctx: ServiceContext,
    private readonly audit: AuditService,
  ) {
    super(ctx);
  }

  /** Admin, superadmin and the CEO see every group; a manager sees their own department's. */
  async list(actor: Actor, q: ListGroupsQuery, page?: PageInput): Promise<Paged<GroupView>> {
    // a departmentId filter needs that department's read right; without one, `departmentListScope` decides
    if (q.departmentId) one(checkDepartmentAccess(actor, [q.departmentId]), q.departmentId);
    const scope = q.departmentId ?? departmentListScope(actor);
    return this.withCounts(this.em(), scope === null ? null : [scope], page);
  }

  /** Each department's groups by name with member counts (GET /groups?departmentId for each; readers of that department). */
  async listByDepartments(actor: Actor, departmentIds: readonly string[]): Promise<Batch<GroupView[]>> {
    const out: Batch<GroupView[]> = new Map();
    const allowed = splitVerdicts(checkDepartmentAccess(actor, departmentIds), out);
    if (!allowed.length) return out;
    const { items } = await this.withCounts(this.em(), allowed);
    for (const [id, vs] of groupBy(allowed, items, (v) => v.group.department.id)) out.set(id, vs);
    return out;
  }

  async get(actor: Actor, id: string): Promise<GroupView> {
    return one(await this.getMany(actor, [id]), id, notFound);
  }

  /** Groups with their members (by name) and count, for readers of each one's department: the one read of groups. */
  async getMany(actor: Actor, ids: readonly string[]): Promise<Batch<GroupView>> {
    const out: Batch<GroupView> = new Map();
    // callers who could read no group learn nothing about which ids exist
    const reader = groupReaderVerdict(actor);
    if (reader instanceof Error) return new Map(ids.map((id) => [id, reader]));
    const em = this.em();
    const valid = ids.filter(isUuid);
    const found = valid.length ? await em.find(Group, { id: { $in: valid } }, { populate: ['department'] }) : [];
    const allowed = new Set(
      splitVerdicts(
        checkGroupAccess(
          actor,
          found.map((g) => ({ id: g.id, departmentId: g.department.id })),
        ),
        out,
      ),
    );
    const groups = found.filter((g) => allowed.has(g.id));
    const members = await this.membersOf(
      em,
      groups.map((g) => g.id),
    );
    for (const group of groups) {
      const users = members.get(group.id)!;
      out.set(group.id, { group, memberCount: users.length, members: users });
    }
    for (const id of ids) if (!out.has(id)) out.set(id, notFound());
    return out;
  }

  async create(actor: Actor, input: CreateGroupInput): Promise<GroupView> {
    // a manager creates groups in their own department only
    gates.requireGroupEditor(actor, input.departmentId);
    return this.em().transactional(async (em) => {
      const department = await em.findOne(Department, { id: input.departmentId });
      if (!department) throw ValidationError.field('departmentId', 'Department not found');
      if (await em.count(Group, { department, name: input.name })) throw nameTaken();
      const group = em.create(Group, { name: input.name, description: input.description ?? '', department });
      await em.flush();
      return { group, memberCount: 0, members: [] };
    });
  }

  async update(actor: Actor, id: string, input: UpdateGroupInput): Promise<GroupView> {
    gates.requireSomeGroupEditor(actor);
    return this.em().transactional(async (em) => {
      const group = await this.load(em, id);
      gates.requireGroupEditor(actor, group.department.id);
      if (input.name !== undefined && input.name !== group.name) {
        if (await em.count(Group, { department: group.department, name: input.name, id: { $ne: group.id } })) throw nameTaken();
        group.name = input.name;
      }
      if (input.description !== undefined) group.description = input.description;
      await em.flush();
      return this.view(em, group);
    });
  }

  /** Members go with the group (each recorded as group_member_removed, reason `group_deleted`); a group that grants are given to is kept (409) so no grant vanishes unaudited. */
  async delete(actor: Actor, id: string): Promise<{ id: string }> {
    gates.requireSomeGroupEditor(actor);
    return this.em().transactional(async (em) => {
      const group = await this.load(em, id);
      gates.requireGroupEditor(actor, group.department.id);
      // the row lock makes a concurrent grant insert (its FK check) wait for this decision
      await em.lock(group, LockMode.PESSIMISTIC_WRITE);
      const grants = await em.count(ProjectGrant, { group: group.id });
      if (grants) throw new ConflictError('group_has_grants', `The group is the target of ${grants} project grant(s); delete them first`);
      // the row lock also keeps members from being added meanwhile (their insert's FK check waits on it)
      await this.audit.deleteGroupMembers(em, actor, 'gm.group_id = ?', [group.id], 'group_deleted');
      await em.nativeDelete(Group, { id: group.id });
      return { id: group.id };
    });
  }

  /**
   * Adds users (idempotent for existing members; each new membership recorded as group_member_added).
   * Every user must belong to the group's department.
   */
  async addMembers(actor: Actor, id: string, input: GroupMembersInput): Promise<GroupView> {
    gates.requireSomeGroupEditor(actor);
    return this.em().transactional(async (em) => {
      const group = await this.load(em, id);
      gates.requireGroupEditor(actor, group.department.id);
      const ids = [...new Set(input.userIds.map((u) => u.toLowerCase()))];
      // FOR SHARE: a concurrent department change of these users waits until the membership is written,
      // and then drops it (dropGroupsOutsideDepartment), so the rule holds either way
      const users = await em.find(User, { id: { $in: ids } }, { lockMode: LockMode.PESSIMISTIC_READ });
      const missing = ids.filter((uid) => !users.some((u) => u.id === uid));
      if (missing.length) throw ValidationError.field('userIds', `Unknown user id(s): ${missing.join(', ')}`);
      const outside = users.filter((u) => u.department?.id !== group.department.id);
      if (outside.length) {
        throw new ConflictError('user_not_in_department', `Not members of the group's department: ${outside.map((u) => u.id).join(', ')}`);
      }
      await this.audit.addGroupMembers(em, actor, group.id, ids);
      return this.view(em, group);
    });
  }

  async removeMember(actor: Actor, id: string, userId: string): Promise<{ id: string }> {
    gates.requireSomeGroupEditor(actor);
    return this.em().transactional(async (em) => {
      const group = await this.load(em, id);
      gates.requireGroupEditor(actor, group.department.id);
      const removed = isUuid(userId)
        ? await this.audit.deleteGroupMembers(em, actor, 'gm.group_id = ? and gm.user_id = ?', [group.id, userId])
        : 0;
      if (!removed) throw new NotFoundError('not_found', 'The user is not a member of this group');
      return { id: userId };
    });
  }

  private load(em: EntityManager, id: string): Promise<Group> {
    return findByIdOr(em, Group, id, notFound, ['department']);
  }

  private async view(em: EntityManager, group: Group): Promise<GroupView> {
    const members = (await this.membersOf(em, [group.id])).get(group.id)!;
    return { group, memberCount: members.length, members };
  }

  /** Each group's members, by name (then id), in one query. */
  private async membersOf(em: EntityManager, groupIds: string[]): Promise<Map<string, User[]>> {
    const rows = groupIds.length
      ? await em.find(GroupMember, { group: { $in: groupIds } }, { populate: ['user'], orderBy: { user: { name: 'asc', id: 'asc' } } })
      : [];
    return new Map([...groupBy(groupIds, rows, (r) => r.group.id)].map(([id, rs]) => [id, rs.map((r) => r.user)]));
  }

  /** Groups (all, or those of the given departments) by name, a page of them, with member counts and the total, in three queries. */
  private async withCounts(em: EntityManager, departmentIds: string[] | null, page: PageInput = {}): Promise<Paged<GroupView>> {
    const [groups, total] = await em.findAndCount(Group, departmentIds ? { department: { $in: departmentIds } } : {}, {
      populate: ['department'],
      orderBy: { name: 'asc', id: 'asc' },
      limit: page.limit,
      offset: page.offset,
    });
    if (!groups.length) return { items: [], total };
    const rows: Array<{ group_id: string; n: number }> = await query(
      em,
      `select group_id, count(*)::int as n from group_members where group_id = any(array[?]::uuid[]) group by group_id`,
      [groups.map((g) => g.id)],
    );
    const counts = new Map(rows.map((r) => [r.group_id, r.n]));
    return { items: groups.map((group) => ({ group, memberCount: counts.get(group.id) ?? 0 })), total };
  }
}

const nameTaken = () => new ConflictError('group_name_exists', 'A group with this name already exists in the department');
