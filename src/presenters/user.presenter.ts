import type { Actor } from '../access/actor';
import type { Department, User } from '../entities';
import type { DepartmentRefDto, LoginUserDto, MeDto, MemberUserDto, UserDto, UserListEntryDto, UserSummaryDto } from './dto.generated';
import { iso, isoOrNull } from './time';

const deptId = (u: User): string | null => (u.department ? u.department.id : null);

/** The graph's User: a list entry with its avatar. */
export type GraphUserDto = UserListEntryDto & { avatarUrl: string | null };

/** Who an actor is: the fields LoginUser and Me start with. */
function identityOf(a: Actor): Pick<MeDto, 'id' | 'email' | 'name' | 'platformRole' | 'orgPosition' | 'departmentId'> {
  return { id: a.id, email: a.email, name: a.name, platformRole: a.platformRole, orgPosition: a.orgPosition, departmentId: a.departmentId };
}

/** POST /auth/login `user`, from the actor read at login. */
export function presentLoginUser(u: Actor): LoginUserDto {
  return { ...identityOf(u), avatarColor: u.avatarColor };
}

/** GET /auth/me `user`, from the actor re-read for this request. */
export function presentMe(a: Actor): MeDto {
  return {
    ...identityOf(a),
    status: a.status,
    lastLoginAt: isoOrNull(a.lastLoginAt),
    createdAt: iso(a.createdAt),
  };
}

export function presentDepartmentRef(d: Department | null | undefined): DepartmentRefDto | null {
  return d ? { id: d.id, name: d.name, color: d.color } : null;
}

/**
 * A user in the single-user answers (GET/POST/PATCH /users/:id, GET /users/me): the spec's User
 * fields without `department` (spec: "only in the user list") and `avatarUrl` (spec: it appears in
 * project member entries).
 */
export function presentUserRecord(u: User): UserDto {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    platformRole: u.platformRole,
    orgPosition: u.orgPosition,
    departmentId: deptId(u),
    avatarColor: u.avatarColor,
    status: u.status,
    lastLoginAt: isoOrNull(u.lastLoginAt),
    createdAt: iso(u.createdAt),
  };
}

/** A GET /users entry: the user plus `department {id, name, color}` (populated when set). */
export function presentUserListEntry(u: User): UserListEntryDto {
  return { ...presentUserRecord(u), department: presentDepartmentRef(u.department ?? null) };
}

/** The graph's user (GraphQL selects the fields it wants): every field, department and avatarUrl included. */
export function presentUser(u: User): GraphUserDto {
  return { ...presentUserListEntry(u), avatarUrl: u.avatarUrl ?? null };
}

/** The user object nested in project member entries. */
export function presentMemberUser(u: User): MemberUserDto {
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    avatarUrl: u.avatarUrl ?? null,
    platformRole: u.platformRole,
    orgPosition: u.orgPosition,
    departmentId: deptId(u),
  };
}

export { iso };

/** A user in member lists (department and group members). */
export function presentUserSummary(u: User): UserSummaryDto {
  return {
    id: u.id,
    name: u.name,
    email: u.email,
    avatarColor: u.avatarColor,
    avatarUrl: u.avatarUrl ?? null,
    platformRole: u.platformRole,
    orgPosition: u.orgPosition,
    departmentId: deptId(u),
    status: u.status,
  };
}
