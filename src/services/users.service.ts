import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../access/actor';
import { capabilitiesOf, type Capabilities } from '../access/capabilities';
import { gates } from '../access/gates';
import { checkUserAccess } from '../access/read-rules';
import {
  requireAccountEditor,
  requireCreatableRole,
  requireDeactivatable,
  requireDeletable,
  requirePlatformRoleChange,
} from '../access/write-rules';
import { Department, OrgPosition, PlatformRole, User } from '../entities';
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../errors';
import { isUuid } from '../validation';
import { hashPassword, normalizeEmail } from '../auth/passwords';
import { avatarColorFor } from '../domain/avatar';
import type { AuditService } from './audit.service';
import { Batch, one, splitVerdicts } from './batch';
import { BaseService, ServiceContext } from '../db/service-context';
import { dropGroupsOutsideDepartment } from './groups.service';
import { CreateUserInput, ListUsersQuery, UpdateUserInput, USERS_DEFAULT_LIMIT, USERS_MAX_LIMIT } from './users.inputs';
import { query } from '../db/sql';
import { findByIdOr } from './find-by-id';

export interface UserPage {
  users: User[];
  total: number;
}

/** Escapes LIKE metacharacters so a search matches its text literally (DESIGN §3). */
export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Platform staff and the CEO sit outside departments (spec: their departmentId is null).
 * An explicit departmentId for them is refused with 400 validation_failed (field departmentId) rather than ignored.
 */
export const isOutsideDepartments = (role: PlatformRole, position: OrgPosition): boolean => role !== 'none' || position === 'ceo';

const notFound = () => new NotFoundError('not_found', 'User not found');
const departmentNotAllowed = () =>
  ValidationError.field('departmentId', 'Platform staff and the CEO do not belong to a department; omit departmentId');

export class UsersService extends BaseService {
  constructor(
    ctx: ServiceContext,
    private readonly audit: AuditService,
  ) {
    super(ctx);
  }

  /** GET /users: filters, literal case-insensitive search on name or email, and the unpaged total. */
  async list(actor: Actor, q: ListUsersQuery): Promise<UserPage> {
    gates.requirePlatformAdmin(actor);
    const where: FilterQuery<User> = {};
    if (q.search) {
      const pattern = `%${escapeLike(q.search)}%`;
      where.$or = [{ name: { $ilike: pattern } }, { email: { $ilike: pattern } }];
    }
    if (q.platformRole) where.platformRole = q.platformRole;
    if (q.orgPosition) where.orgPosition = q.orgPosition;
    if (q.departmentId) where.department = q.departmentId;
    if (q.status) where.status = q.status;
    const [users, total] = await this.em().findAndCount(User, where, {
      populate: ['department'],
      orderBy: { createdAt: 'asc', id: 'asc' },
      limit: Math.min(q.limit ?? USERS_DEFAULT_LIMIT, USERS_MAX_LIMIT),
      offset: q.offset ?? 0,
    });
    return { users, total };
  }

  /** GET /users/:id: admin or superadmin, even for one's own id (that is GET /users/me). */
  async get(actor: Actor, id: string): Promise<User> {
    gates.requirePlatformAdmin(actor);
    return one(await this.getMany(actor, [id]), id, notFound);
  }

  /** GET /users/me: any authenticated caller, re-read with their department. */
  async me(actor: Actor): Promise<User> {
    return one(await this.getMany(actor, [actor.id]), actor.id, notFound);
  }

  /** GET /auth/capabilities: what the caller may do in the organisation (from the actor alone: no query). */
  capabilities(actor: Actor): Capabilities {
    return capabilitiesOf(actor);
  }

  /** Users in full, with their department, as far as `checkUserAccess` lets the caller see them: the one read of users. */
  async getMany(actor: Actor, ids: readonly string[]): Promise<Batch<User>> {
    const out: Batch<User> = new Map();
    const allowed = splitVerdicts(checkUserAccess(actor, ids), out);
    for (const id of allowed) if (!isUuid(id)) out.set(id, notFound());
    const valid = allowed.filter(isUuid);
    if (valid.length) for (const u of await this.em().find(User, { id: { $in: valid } }, { populate: ['department'] })) out.set(u.id, u);
    for (const id of allowed) if (!out.has(id)) out.set(id, notFound());
    return out;
  }

  async create(actor: Actor, input: CreateUserInput): Promise<User> {
    gates.requirePlatformAdmin(actor);
    requireCreatableRole(input.platformRole);
    if (input.departmentId && isOutsideDepartments(input.platformRole, input.orgPosition)) throw departmentNotAllowed();
    const email = normalizeEmail(input.email);
    const passwordHash = await hashPassword(input.password);
    return this.em().transactional(async (em) => {
      // clear answers for the common case; the unique indexes decide concurrent requests
      if (await em.count(User, { email })) throw new ConflictError('email_exists', 'A user with this email already exists');
      if (input.orgPosition === 'ceo' && (await em.count(User, { orgPosition: 'ceo' })))
        throw new ConflictError('ceo_exists', 'A CEO already exists');
      const department = input.departmentId ? await this.department(em, input.departmentId) : null;
      const user = em.create(User, {
        email,
        name: input.name,
        passwordHash,
        platformRole: input.platformRole,
        orgPosition: input.orgPosition,
        department,
        avatarColor: avatarColorFor(email),
      });
      await em.flush();
      return user;
    });
  }

  /** PATCH /users/:id with spec rules 2–4 and the singleton rules (DESIGN §3). */
  async update(actor: Actor, id: string, input: UpdateUserInput): Promise<User> {
    gates.requirePlatformAdmin(actor);
    const passwordHash = input.password !== undefined ? await hashPassword(input.password) : undefined;
    return this.em().transactional(async (em) => {
      const user = await this.load(em, id);
      requireAccountEditor(actor, user);

      const previousRole = user.platformRole;
      const previousStatus = user.status;
      if (input.platformRole !== undefined && input.platformRole !== user.platformRole) {
        requirePlatformRoleChange(actor, user, input.platformRole);
        user.platformRole = input.platformRole;
      }

      if (input.orgPosition !== undefined && input.orgPosition !== user.orgPosition) {
        if (user.orgPosition === 'ceo') throw new ConflictError('singleton_immutable', "The CEO's orgPosition cannot change");
        // spec rule 4 (the users_single_ceo index decides concurrent requests)
        if (input.orgPosition === 'ceo' && (await em.count(User, { orgPosition: 'ceo' })))
          throw new ConflictError('ceo_exists', 'A CEO already exists');
        user.orgPosition = input.orgPosition;
      }

      let deactivated = false;
      if (input.status !== undefined && input.status !== user.status) {
        if (input.status === 'inactive') requireDeactivatable(user);
        user.status = input.status;
        deactivated = input.status === 'inactive';
      }

      const previousDepartmentId = user.department?.id ?? null;
      if (isOutsideDepartments(user.platformRole, user.orgPosition)) {
        if (input.departmentId) throw departmentNotAllowed();
        // becoming platform staff or the CEO leaves the department
        user.department = null;
      } else if (input.departmentId !== undefined) {
        user.department = input.departmentId === null ? null : await this.department(em, input.departmentId);
      }

      if (input.email !== undefined) {
        const email = normalizeEmail(input.email);
        if (email !== user.email && (await em.count(User, { email, id: { $ne: user.id } }))) {
          throw new ConflictError('email_exists', 'A user with this email already exists');
        }
        user.email = email;
      }
      if (input.name !== undefined) user.name = input.name;
      if (passwordHash !== undefined) user.passwordHash = passwordHash;

      await em.flush();
      const departmentId = user.department?.id ?? null;
      await this.audit.recordUserAccessChange(em, actor, {
        userId: user.id,
        role: { from: previousRole, to: user.platformRole },
        status: { from: previousStatus, to: user.status },
      });
      if (departmentId !== previousDepartmentId) {
        await this.audit.recordDepartmentChange(em, actor, user.id, previousDepartmentId, departmentId);
        await dropGroupsOutsideDepartment(this.audit, em, actor, [user.id], departmentId);
      }
      // security: a new password or a deactivation ends the user's sessions. Their refresh tokens are
      // revoked with the change (same transaction), so a session started with the old password, or
      // one from before a deactivation, cannot be refreshed, not even after a reactivation.
      if (passwordHash !== undefined || deactivated) {
        await query(em, `update refresh_tokens set revoked_at = now() where user_id = ? and revoked_at is null`, [user.id]);
      }
      return user;
    });
  }

  /**
   * DELETE /users/:id (spec rule 5). Grants, group and project memberships and refresh tokens go with
   * the user (ON DELETE CASCADE), each removed grant recorded as grant_deleted, each group membership
   * as group_member_removed and the department as department_member_removed (reason `user_deleted`);
   * conversations and messages keep a null reference, and projects the user owned lose their owner,
   * each recorded as project_owner_changed (from the rows actually updated).
   */
  async delete(actor: Actor, id: string): Promise<{ id: string }> {
    gates.requirePlatformAdmin(actor);
    return this.em().transactional(async (em) => {
      const user = await this.load(em, id);
      requireDeletable(actor, user);
      // the row lock keeps grants to the user from being added until we commit; the grants then go
      // with an audit entry per row deleted, before the user
      await query(em, `select 1 from users where id = ? for update`, [user.id]);
      await this.audit.deleteUserGrants(em, actor, user.id);
      await this.audit.deleteGroupMembers(em, actor, 'gm.user_id = ?', [user.id], 'user_deleted');
      await this.audit.recordDepartmentChange(em, actor, user.id, user.department?.id ?? null, null, 'user_deleted');
      await this.audit.clearUserOwnerships(em, actor, user.id);
      await em.nativeDelete(User, { id: user.id });
      return { id: user.id };
    });
  }

  private load(em: EntityManager, id: string): Promise<User> {
    return findByIdOr(em, User, id, notFound, ['department']);
  }

  private async department(em: EntityManager, id: string): Promise<Department> {
    const department = await em.findOne(Department, { id });
    if (!department) throw new BadRequestError('department_not_found', 'Department not found');
    return department;
  }
}
