import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../access/actor';
import { gates } from '../access/gates';
import { checkDepartmentAccess, departmentListScope } from '../access/read-rules';
import { Department, User } from '../entities';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import type { DepartmentCounts } from '../presenters/department.presenter';
import { isUuid } from '../validation';
import { Batch, groupBy, one, splitVerdicts } from './batch';
import type { AuditService } from './audit.service';
import { BaseService, ServiceContext } from '../db/service-context';
import { limitOffset, pageFromRows, type PageInput, type Paged } from './page';
import type { AddDepartmentMembersInput, CreateDepartmentInput, UpdateDepartmentInput } from './departments.inputs';
import { dropGroupsOutsideDepartment } from './groups.service';
import { isOutsideDepartments } from './users.service';
import { query } from '../db/sql';
import { findByIdOr } from './find-by-id';

export interface DepartmentView {
  department: Department;
  counts: DepartmentCounts;
}

interface DepartmentRow {
  id: string;
  name: string;
  color: string;
  description: string;
  created_at: Date;
  updated_at: Date;
  members: number;
  groups: number;
  grants: number;
  total_count: number;
}

const notFound = () => new NotFoundError('not_found', 'Department not found');
const nameTaken = () => new ConflictError('department_name_exists', 'A department with this name already exists');

/**
 * Departments (spec "Departments", DESIGN §3). Read: admin, superadmin, the CEO, and a manager of the
 * department — in the list a manager sees only their own department, the same reach as reading one.
 * Update: admin, superadmin, that manager. Create, delete, add members: admin and superadmin.
 * Remove a member: admin, superadmin, that manager, the CEO.
 */
export class DepartmentsService extends BaseService {
  constructor(
    ctx: ServiceContext,
    private readonly audit: AuditService,
  ) {
    super(ctx);
  }

  /** By name; admin, superadmin and the CEO see all, a manager their own (`departmentListScope`). */
  async list(actor: Actor, page?: PageInput): Promise<Paged<DepartmentView>> {
    const scope = departmentListScope(actor);
    const em = this.em();
    const ids = scope === null ? null : [scope];
    const rows = await pageFromRows(await this.rowsWithCounts(em, ids, page), page, () =>
      em.count(Department, ids ? { id: { $in: ids } } : {}),
    );
    return { items: rows.items.map((r) => this.view(em, r)), total: rows.total };
  }

  async get(actor: Actor, id: string): Promise<DepartmentView> {
    return one(await this.getMany(actor, [id]), id, notFound);
  }

  /** Departments with their `_count`, for readers of each: the one read of departments. */
  async getMany(actor: Actor, ids: readonly string[]): Promise<Batch<DepartmentView>> {
    const out: Batch<DepartmentView> = new Map();
    const allowed = splitVerdicts(checkDepartmentAccess(actor, ids), out);
    if (!allowed.length) return out;
    for (const view of await this.withCounts(this.em(), allowed)) out.set(view.department.id, view);
    for (const id of allowed) if (!out.has(id)) out.set(id, notFound());
    return out;
  }

  async create(actor: Actor, input: CreateDepartmentInput): Promise<DepartmentView> {
    gates.requirePlatformAdmin(actor);
    return this.em().transactional(async (em) => {
      if (await em.count(Department, { name: input.name })) throw nameTaken();
      const department = em.create(Department, {
        name: input.name,
        ...(input.color !== undefined ? { color: input.color } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
      });
      await em.flush();
      return { department, counts: { members: 0, groups: 0, grants: 0 } };
    });
  }

  async update(actor: Actor, id: string, input: UpdateDepartmentInput): Promise<DepartmentView> {
    if (!isUuid(id)) throw notFound();
    gates.requireDepartmentEditor(actor, id);
    return this.em().transactional(async (em) => {
      const department = await this.load(em, id);
      if (input.name !== undefined && input.name !== department.name) {
        if (await em.count(Department, { name: input.name, id: { $ne: id } })) throw nameTaken();
        department.name = input.name;
      }
      if (input.color !== undefined) department.color = input.color;
      if (input.description !== undefined) department.description = input.description;
      await em.flush();
      const [view] = await this.withCounts(em, [id]);
      return view;
    });
  }

  /** Refused (409) while members, groups or grants reference the department; the code names the first blocker. */
  async delete(actor: Actor, id: string): Promise<{ id: string }> {
    gates.requirePlatformAdmin(actor);
    if (!isUuid(id)) throw notFound();
    return this.em().transactional(async (em) => {
      const department = await this.load(em, id);
      // FOR UPDATE: member, group and grant writes referencing the row (FK checks, addMembers' FOR SHARE) wait for us
      await em.lock(department, LockMode.PESSIMISTIC_WRITE);
      const [view] = await this.withCounts(em, [id]);
      const { members, groups, grants } = view.counts;
      if (members) throw new ConflictError('department_has_members', `The department still has ${members} member(s); remove them first`);
      if (groups) throw new ConflictError('department_has_groups', `The department still has ${groups} group(s); delete them first`);
      if (grants)
        throw new ConflictError('department_has_grants', `The department is the target of ${grants} project grant(s); delete them first`);
      await em.nativeDelete(Department, { id });
      return { id };
    });
  }

  async members(actor: Actor, id: string): Promise<User[]> {
    return one(await this.membersMany(actor, [id]), id, notFound);
  }

  /** Each department's members, by name (department readers; 404 for a missing department). */
  async membersMany(actor: Actor, ids: readonly string[]): Promise<Batch<User[]>> {
    const out: Batch<User[]> = new Map();
    const allowed = splitVerdicts(checkDepartmentAccess(actor, ids), out);
    if (!allowed.length) return out;
    const em = this.em();
    const existing = (await em.find(Department, { id: { $in: allowed } }, { fields: ['id'] })).map((d) => d.id);
    const members = existing.length ? await em.find(User, { department: { $in: existing } }, { orderBy: { name: 'asc', id: 'asc' } }) : [];
    for (const [id, users] of groupBy(existing, members, (u) => u.department!.id)) out.set(id, users);
    for (const id of allowed) if (!out.has(id)) out.set(id, notFound());
    return out;
  }

  /**
   * Adds existing users, all or nothing. Spec rule 1: a user in another department is a 409
   * unless `replace`, which moves them (and drops their groups of the old department).
   */
  async addMembers(actor: Actor, id: string, input: AddDepartmentMembersInput): Promise<User[]> {
    gates.requirePlatformAdmin(actor);
    if (!isUuid(id)) throw notFound();
    return this.em().transactional(async (em) => {
      const department = await this.load(em, id);
      // FOR SHARE: a concurrent delete of the department waits and then sees these members
      await em.lock(department, LockMode.PESSIMISTIC_READ);
      const ids = [...new Set(input.userIds.map((u) => u.toLowerCase()))];
      const users = await em.find(User, { id: { $in: ids } }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      const missing = ids.filter((uid) => !users.some((u) => u.id === uid));
      if (missing.length) throw ValidationError.field('userIds', `Unknown user id(s): ${missing.join(', ')}`);
      const staff = users.filter((u) => isOutsideDepartments(u.platformRole, u.orgPosition));
      if (staff.length) {
        throw ValidationError.field(
          'userIds',
          `Platform staff and the CEO do not belong to a department: ${staff.map((u) => u.id).join(', ')}`,
        );
      }
      const elsewhere = users.filter((u) => u.department && u.department.id !== id);
      if (elsewhere.length && !input.replace) {
        throw new ConflictError(
          'user_in_other_department',
          `Already in another department (send replace: true to move them): ${elsewhere.map((u) => u.id).join(', ')}`,
        );
      }
      const joining = users.filter((u) => u.department?.id !== id);
      const previous = new Map(joining.map((u) => [u.id, u.department?.id ?? null]));
      for (const u of joining) u.department = department;
      await em.flush();
      for (const u of joining) await this.audit.recordDepartmentChange(em, actor, u.id, previous.get(u.id)!, id);
      await dropGroupsOutsideDepartment(
        this.audit,
        em,
        actor,
        elsewhere.map((u) => u.id),
        id,
      );
      return this.memberList(em, id);
    });
  }

  /** Sets the user's departmentId to null and drops their groups of this department. */
  async removeMember(actor: Actor, id: string, userId: string): Promise<{ id: string }> {
    if (!isUuid(id)) throw notFound();
    gates.requireDepartmentMemberRemover(actor, id);
    return this.em().transactional(async (em) => {
      const user = isUuid(userId) ? await em.findOne(User, { id: userId, department: id }) : null;
      if (!user) throw new NotFoundError('not_found', 'The user is not a member of this department');
      user.department = null;
      await em.flush();
      await this.audit.recordDepartmentChange(em, actor, user.id, id, null);
      await dropGroupsOutsideDepartment(this.audit, em, actor, [user.id], null);
      return { id: user.id };
    });
  }

  private load(em: EntityManager, id: string): Promise<Department> {
    return findByIdOr(em, Department, id, notFound);
  }

  private memberList(em: EntityManager, id: string): Promise<User[]> {
    return em.find(User, { department: id }, { orderBy: { name: 'asc', id: 'asc' } });
  }

  /** Departments (all, or those of `onlyIds`) by name with their `_count`, in one query (correlated counts, no per-row loop). */
  private async withCounts(em: EntityManager, onlyIds: string[] | null): Promise<DepartmentView[]> {
    return (await this.rowsWithCounts(em, onlyIds)).map((r) => this.view(em, r));
  }

  private rowsWithCounts(em: EntityManager, onlyIds: string[] | null, page?: PageInput): Promise<DepartmentRow[]> {
    return query(
      em,
      `select d.id, d.name, d.color, d.description, d.created_at, d.updated_at,
              (select count(*) from users u where u.department_id = d.id)::int as members,
              (select count(*) from groups g where g.department_id = d.id)::int as groups,
              (select count(*) from project_grants pg where pg.department_id = d.id)::int as grants,
              (count(*) over ())::int as total_count
         from departments d
        ${onlyIds ? 'where d.id = any(array[?]::uuid[])' : ''}
        order by d.name, d.id
        limit ? offset ?`,
      [...(onlyIds ? [onlyIds] : []), ...limitOffset(page)],
    );
  }

  private view(em: EntityManager, r: DepartmentRow): DepartmentView {
    return {
      department: em.map(Department, {
        id: r.id,
        name: r.name,
        color: r.color,
        description: r.description,
        created_at: r.created_at,
        updated_at: r.updated_at,
      }),
      counts: { members: r.members, groups: r.groups, grants: r.grants },
    };
  }
}
