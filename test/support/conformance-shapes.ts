/**
 * The spec's wire shapes for the conformance suite (test/e2e/conformance/): exact key sets, as sorted
 * lists, and the assertions that check a response against them (DESIGN §3 for the error body).
 */
import { ApiResponse } from './http';

// ---- the spec's shapes, as sorted key lists ----
export const LOGIN_USER = ['avatarColor', 'departmentId', 'email', 'id', 'name', 'orgPosition', 'platformRole'];
export const ME_USER = ['createdAt', 'departmentId', 'email', 'id', 'lastLoginAt', 'name', 'orgPosition', 'platformRole', 'status'];
/** GET /users entries (spec: `department` only in the user list). */
export const LIST_USER = [
  'avatarColor',
  'createdAt',
  'department',
  'departmentId',
  'email',
  'id',
  'lastLoginAt',
  'name',
  'orgPosition',
  'platformRole',
  'status',
];
/** GET/POST/PATCH single user and GET /users/me. */
export const ONE_USER = LIST_USER.filter((k) => k !== 'department');
export const DEPARTMENT_REF = ['color', 'id', 'name'];
export const DEPARTMENT = ['_count', 'color', 'description', 'id', 'name'];
export const DEPARTMENT_COUNT = ['grants', 'groups', 'members'];
/** Spec: "Project fields beyond those listed: not shown" — createdAt/updatedAt are the only additions. */
export const PROJECT_BASE = [
  'color',
  'createdAt',
  'createdBy',
  'description',
  'id',
  'instructions',
  'isPrivate',
  'name',
  'ownerId',
  'settings',
  'updatedAt',
];
export const PROJECT_DETAIL = [...PROJECT_BASE, '_count', 'members'].sort();
export const PROJECT_LIST_ITEM = [...PROJECT_BASE, '_count', 'accessSource', 'accessTier', 'members'].sort();
export const MEMBER = ['addedAt', 'projectId', 'user', 'userId'];
export const MEMBER_USER = ['avatarUrl', 'departmentId', 'email', 'id', 'name', 'orgPosition', 'platformRole'];
export const GRANT = [
  'createdAt',
  'department',
  'departmentId',
  'grantedById',
  'group',
  'groupId',
  'id',
  'projectId',
  'tier',
  'updatedAt',
  'user',
  'userId',
];
// the spec's fields plus id and createdAt, and the names of the actor, project and target (issue 37)
export const AUDIT_ENTRY = [
  'action',
  'actorId',
  'actorName',
  'createdAt',
  'id',
  'metadata',
  'projectId',
  'projectName',
  'targetId',
  'targetName',
  'targetType',
];
export const DELETED = ['id', 'success'];

export const keys = (o: unknown): string[] => Object.keys(o as object).sort();
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const HEX = /^#[0-9a-fA-F]{6}$/;

export function expectUuid(v: unknown): void {
  expect(v).toEqual(expect.stringMatching(UUID));
}
/** A timestamp on the wire is an ISO 8601 string in UTC with milliseconds. */
export function expectIso(v: unknown): void {
  expect(typeof v).toBe('string');
  expect(new Date(v as string).toISOString()).toBe(v);
}
/** DESIGN §3: `{error: <code>, message?: string, details?: [{field, message}]}`, JSON, nothing else. */
export function expectError(res: ApiResponse, status: number, code?: string): void {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: expect.anything() });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(typeof res.body.error).toBe('string');
  expect(keys(res.body).every((k) => ['details', 'error', 'message'].includes(k))).toBe(true);
  if (res.body.message !== undefined) expect(typeof res.body.message).toBe('string');
  if (res.body.details !== undefined) {
    for (const d of res.body.details) expect(keys(d)).toEqual(['field', 'message']);
  }
  if (code) expect(res.body.error).toBe(code);
}
export function expectValidation(res: ApiResponse, field?: string): void {
  expectError(res, 400, 'validation_failed');
  expect(Array.isArray(res.body.details)).toBe(true);
  if (field) expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
}

export function expectLoginUser(u: any): void {
  expect(keys(u)).toEqual(LOGIN_USER);
  expectUuid(u.id);
  expect(u.avatarColor).toMatch(HEX);
}
export function expectOneUser(u: any): void {
  expect(keys(u)).toEqual(ONE_USER);
  expectUuid(u.id);
  expectIso(u.createdAt);
  if (u.lastLoginAt !== null) expectIso(u.lastLoginAt);
  if (u.departmentId !== null) expectUuid(u.departmentId);
  expect(u.avatarColor).toMatch(HEX);
  expect(['active', 'inactive']).toContain(u.status);
}
export function expectListUser(u: any): void {
  expect(keys(u)).toEqual(LIST_USER);
  const { department, ...rest } = u;
  expectOneUser(rest);
  if (u.departmentId === null) expect(department).toBeNull();
  else {
    expect(keys(department)).toEqual(DEPARTMENT_REF);
    expect(department.id).toBe(u.departmentId);
  }
}
export function expectDepartment(d: any): void {
  expect(keys(d)).toEqual(DEPARTMENT);
  expectUuid(d.id);
  expect(d.color).toMatch(HEX);
  expect(typeof d.description).toBe('string');
  expect(keys(d._count)).toEqual(DEPARTMENT_COUNT);
  for (const n of Object.values(d._count)) expect(Number.isInteger(n)).toBe(true);
}
export function expectMember(m: any, projectId: string): void {
  expect(keys(m)).toEqual(MEMBER);
  expect(m.projectId).toBe(projectId);
  expectIso(m.addedAt);
  expect(keys(m.user)).toEqual(MEMBER_USER);
  expect(m.user.id).toBe(m.userId);
}
export function expectProjectBase(p: any): void {
  expectUuid(p.id);
  expectUuid(p.ownerId);
  expectUuid(p.createdBy);
  expectIso(p.createdAt);
  expectIso(p.updatedAt);
  expect(typeof p.isPrivate).toBe('boolean');
  expect(typeof p.instructions).toBe('string');
  expect(p.color).toMatch(/^#[0-9a-fA-F]{3,6}$/);
  expect(keys(p.settings).every((k) => ['model', 'temperature', 'topK'].includes(k))).toBe(true);
  for (const m of p.members) expectMember(m, p.id);
}
export function expectProjectDetail(p: any): void {
  expect(keys(p)).toEqual(PROJECT_DETAIL);
  expectProjectBase(p);
  expect(keys(p._count)).toEqual(['chunks', 'conversations', 'documents']);
}
export function expectProjectListItem(p: any): void {
  expect(keys(p)).toEqual(PROJECT_LIST_ITEM);
  expectProjectBase(p);
  expect(keys(p._count)).toEqual(['conversations', 'documents']);
  expect(['use', 'edit', 'full']).toContain(p.accessTier);
  expect(typeof p.accessSource).toBe('string');
}
export function expectGrant(g: any): void {
  expect(keys(g)).toEqual(GRANT);
  expectUuid(g.id);
  expectUuid(g.projectId);
  expectUuid(g.grantedById);
  expectIso(g.createdAt);
  expectIso(g.updatedAt);
  expect(['use', 'edit', 'full']).toContain(g.tier);
  // exactly one target, nested; the other two null
  const set = [g.userId, g.groupId, g.departmentId].filter((v) => v !== null);
  expect(set).toHaveLength(1);
  if (g.userId) expect(keys(g.user)).toEqual(['email', 'id', 'name']);
  else expect(g.user).toBeNull();
  if (g.groupId) {
    expect(keys(g.group)).toEqual(['department', 'id', 'name']);
    expect(keys(g.group.department)).toEqual(['name']);
  } else expect(g.group).toBeNull();
  if (g.departmentId) expect(g.department.id).toBe(g.departmentId);
  else expect(g.department).toBeNull();
}
