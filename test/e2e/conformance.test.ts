/**
 * Spec conformance, black box: one organisation built through REST only (after bootstrap), every
 * response of the auth, users, departments, groups, projects, grants and audit-log endpoints
 * checked for its EXACT key set (an extra or a missing field fails), its status, and the error
 * body `{error, message?, details?}` (DESIGN §3). The expected shapes below are the spec's tables.
 */
import { randomUUID } from 'node:crypto';
import { api, ApiResponse, client } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

// ---- the spec's shapes, as sorted key lists ----
const LOGIN_USER = ['avatarColor', 'departmentId', 'email', 'id', 'name', 'orgPosition', 'platformRole'];
const ME_USER = ['createdAt', 'departmentId', 'email', 'id', 'lastLoginAt', 'name', 'orgPosition', 'platformRole', 'status'];
/** GET /users entries (spec: `department` only in the user list). */
const LIST_USER = [
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
const ONE_USER = LIST_USER.filter((k) => k !== 'department');
const DEPARTMENT_REF = ['color', 'id', 'name'];
const DEPARTMENT = ['_count', 'color', 'description', 'id', 'name'];
const DEPARTMENT_COUNT = ['grants', 'groups', 'members'];
/** Spec: "Project fields beyond those listed: not shown" — createdAt/updatedAt are the only additions. */
const PROJECT_BASE = [
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
const PROJECT_DETAIL = [...PROJECT_BASE, '_count', 'members'].sort();
const PROJECT_LIST_ITEM = [...PROJECT_BASE, '_count', 'accessSource', 'accessTier', 'members'].sort();
const MEMBER = ['addedAt', 'projectId', 'user', 'userId'];
const MEMBER_USER = ['avatarUrl', 'departmentId', 'email', 'id', 'name', 'orgPosition', 'platformRole'];
const GRANT = [
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
const AUDIT_ENTRY = ['action', 'actorId', 'createdAt', 'id', 'metadata', 'projectId', 'targetId', 'targetType'];
const DELETED = ['id', 'success'];

const keys = (o: unknown): string[] => Object.keys(o as object).sort();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HEX = /^#[0-9a-fA-F]{6}$/;

function expectUuid(v: unknown): void {
  expect(v).toEqual(expect.stringMatching(UUID));
}
/** A timestamp on the wire is an ISO 8601 string in UTC with milliseconds. */
function expectIso(v: unknown): void {
  expect(typeof v).toBe('string');
  expect(new Date(v as string).toISOString()).toBe(v);
}
/** DESIGN §3: `{error: <code>, message?: string, details?: [{field, message}]}`, JSON, nothing else. */
function expectError(res: ApiResponse, status: number, code?: string): void {
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
function expectValidation(res: ApiResponse, field?: string): void {
  expectError(res, 400, 'validation_failed');
  expect(Array.isArray(res.body.details)).toBe(true);
  if (field) expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
}

function expectLoginUser(u: any): void {
  expect(keys(u)).toEqual(LOGIN_USER);
  expectUuid(u.id);
  expect(u.avatarColor).toMatch(HEX);
}
function expectOneUser(u: any): void {
  expect(keys(u)).toEqual(ONE_USER);
  expectUuid(u.id);
  expectIso(u.createdAt);
  if (u.lastLoginAt !== null) expectIso(u.lastLoginAt);
  if (u.departmentId !== null) expectUuid(u.departmentId);
  expect(u.avatarColor).toMatch(HEX);
  expect(['active', 'inactive']).toContain(u.status);
}
function expectListUser(u: any): void {
  expect(keys(u)).toEqual(LIST_USER);
  const { department, ...rest } = u;
  expectOneUser(rest);
  if (u.departmentId === null) expect(department).toBeNull();
  else {
    expect(keys(department)).toEqual(DEPARTMENT_REF);
    expect(department.id).toBe(u.departmentId);
  }
}
function expectDepartment(d: any): void {
  expect(keys(d)).toEqual(DEPARTMENT);
  expectUuid(d.id);
  expect(d.color).toMatch(HEX);
  expect(typeof d.description).toBe('string');
  expect(keys(d._count)).toEqual(DEPARTMENT_COUNT);
  for (const n of Object.values(d._count)) expect(Number.isInteger(n)).toBe(true);
}
function expectMember(m: any, projectId: string): void {
  expect(keys(m)).toEqual(MEMBER);
  expect(m.projectId).toBe(projectId);
  expectIso(m.addedAt);
  expect(keys(m.user)).toEqual(MEMBER_USER);
  expect(m.user.id).toBe(m.userId);
}
function expectProjectBase(p: any): void {
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
function expectProjectDetail(p: any): void {
  expect(keys(p)).toEqual(PROJECT_DETAIL);
  expectProjectBase(p);
  expect(keys(p._count)).toEqual(['chunks', 'conversations', 'documents']);
}
function expectProjectListItem(p: any): void {
  expect(keys(p)).toEqual(PROJECT_LIST_ITEM);
  expectProjectBase(p);
  expect(keys(p._count)).toEqual(['conversations', 'documents']);
  expect(['use', 'edit', 'full']).toContain(p.accessTier);
  expect(typeof p.accessSource).toBe('string');
}
function expectGrant(g: any): void {
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

// ---- the scenario's cast, all made through REST ----
let t: TestApp;
const ROOT = { email: 'Root.Admin@Example.com', password: 'root-password-1', name: 'Root Admin' };
const CEO = { email: 'ceo@example.com', password: 'ceo-password-1', name: 'Chief Exec' };
let root: ReturnType<typeof client>;
let rootId: string;
let admin: ReturnType<typeof client>;
let adminId: string;
let sales: { id: string; name: string; color: string };
let manager: { id: string; email: string };
let memberUser: { id: string; email: string };
let projectId: string;
let groupId: string;

const anon = () => client(t.baseUrl);
const login = (email: string, password: string) => api(t.baseUrl, 'POST', '/api/auth/login', { body: { email, password } });

async function tokenFor(email: string, password: string): Promise<string> {
  const res = await login(email, password);
  expect(res.status).toBe(200);
  return res.body.accessToken;
}

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe('auth', () => {
  it('login before bootstrap: 503 not_bootstrapped', async () => {
    expectError(await login(ROOT.email, ROOT.password), 503, 'not_bootstrapped');
  });

  it('after bootstrap, login (email case-insensitive) answers {user, accessToken, refreshToken}', async () => {
    await t.services.bootstrap.bootstrap(ROOT, CEO);
    const res = await login(ROOT.email.toUpperCase(), ROOT.password);
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['accessToken', 'refreshToken', 'user']);
    expectLoginUser(res.body.user);
    expect(res.body.user).toEqual(
      expect.objectContaining({
        email: ROOT.email.toLowerCase(),
        name: ROOT.name,
        platformRole: 'superadmin',
        orgPosition: 'member',
        departmentId: null,
      }),
    );
    root = client(t.baseUrl, res.body.accessToken);
    rootId = res.body.user.id;
  });

  it('wrong password, unknown email and an empty body', async () => {
    const wrong = await login(ROOT.email, 'not-the-password');
    expectError(wrong, 401, 'Invalid email or password');
    expect(wrong.body).toEqual({ error: 'Invalid email or password' });
    expect((await login('nobody@example.com', 'whatever-pw')).body).toEqual(wrong.body);
    expectValidation(await api(t.baseUrl, 'POST', '/api/auth/login', { body: {} }), 'email');
  });

  it('GET /auth/me: {user} with exactly the spec fields; 401 without a token', async () => {
    expectError(await anon().get('/api/auth/me'), 401, 'unauthorized');
    const res = await root.get('/api/auth/me');
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['user']);
    expect(keys(res.body.user)).toEqual(ME_USER);
    expectIso(res.body.user.lastLoginAt);
    expectIso(res.body.user.createdAt);
    expect(res.body.user).toEqual(expect.objectContaining({ id: rootId, status: 'active', platformRole: 'superadmin' }));
  });

  it('refresh rotates ({accessToken, refreshToken} only); logout is 204 with no body; 401s', async () => {
    const first = (await login(CEO.email, CEO.password)).body;
    const r = await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } });
    expect(r.status).toBe(200);
    expect(keys(r.body)).toEqual(['accessToken', 'refreshToken']);
    expect(r.body.refreshToken).not.toBe(first.refreshToken);
    expectError(await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } }), 401, 'unauthorized');
    expectError(await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: 'garbage' } }), 401, 'unauthorized');
    expectError(await anon().post('/api/auth/logout'), 401, 'unauthorized');
    const out = await api(t.baseUrl, 'POST', '/api/auth/logout', {
      token: r.body.accessToken,
      body: { refreshToken: r.body.refreshToken },
    });
    expect(out.status).toBe(204);
    expect(out.text).toBe('');
    expectError(await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: r.body.refreshToken } }), 401);
  });
});

describe('departments', () => {
  it('POST /departments: 201 {department}', async () => {
    expectError(await anon().post('/api/departments', { name: 'X' }), 401, 'unauthorized');
    const res = await root.post('/api/departments', { name: 'Sales', color: '#10b981', description: 'Sells things' });
    expect(res.status).toBe(201);
    expect(keys(res.body)).toEqual(['department']);
    expectDepartment(res.body.department);
    expect(res.body.department).toEqual(expect.objectContaining({ name: 'Sales', color: '#10b981', description: 'Sells things' }));
    sales = res.body.department;
  });

  it('a duplicate name is a 409; a huge name is a 400; a Unicode name works', async () => {
    expectError(await root.post('/api/departments', { name: 'Sales', color: '#10b981', description: '' }), 409);
    expectValidation(await root.post('/api/departments', { name: 'D'.repeat(10_000), color: '#10b981', description: '' }), 'name');
    expectValidation(
      await root.post('/api/departments', { name: 'Ok', color: '#10b981', description: 'x'.repeat(100_000) }),
      'description',
    );
    const uni = await root.post('/api/departments', {
      name: 'Recherche & Développement 研究 🚀',
      color: '#123456',
      description: 'Ünïcödé',
    });
    expect(uni.status).toBe(201);
    expect(uni.body.department.name).toBe('Recherche & Développement 研究 🚀');
    expect(uni.body.department.description).toBe('Ünïcödé');
  });
});

describe('users', () => {
  it('POST /users: 201 {user} with exactly the user fields (no department object, no secrets)', async () => {
    expectError(await anon().post('/api/users', {}), 401, 'unauthorized');
    const res = await root.post('/api/users', {
      email: 'Ada.Admin@Example.com',
      name: 'Ada Admin',
      password: 'admin-password',
      platformRole: 'admin',
      orgPosition: 'member',
    });
    expect(res.status).toBe(201);
    expect(keys(res.body)).toEqual(['user']);
    expectOneUser(res.body.user);
    expect(res.body.user).toEqual(
      expect.objectContaining({
        email: 'ada.admin@example.com',
        platformRole: 'admin',
        departmentId: null,
        status: 'active',
        lastLoginAt: null,
      }),
    );
    expect(res.text).not.toMatch(/password|\$2[aby]\$/i);
    adminId = res.body.user.id;
    // login is case-insensitive on the email as stored
    admin = client(t.baseUrl, await tokenFor('ADA.ADMIN@example.COM', 'admin-password'));
  });

  it('creates department members (Unicode names round-trip)', async () => {
    const m = await admin.post('/api/users', {
      email: 'mgr@example.com',
      name: 'Mária Ødegård-山田',
      password: 'manager-password',
      platformRole: 'none',
      orgPosition: 'manager',
      departmentId: sales.id,
    });
    expect(m.status).toBe(201);
    expectOneUser(m.body.user);
    expect(m.body.user).toEqual(expect.objectContaining({ name: 'Mária Ødegård-山田', departmentId: sales.id, orgPosition: 'manager' }));
    manager = m.body.user;
    const u = await admin.post('/api/users', {
      email: 'member@example.com',
      name: 'Zoë 🚀',
      password: 'member-password',
      platformRole: 'none',
      orgPosition: 'member',
      departmentId: sales.id,
    });
    expect(u.status).toBe(201);
    memberUser = u.body.user;
    expect((await login('member@example.com', 'member-password')).body.user.name).toBe('Zoë 🚀');
  });

  it('POST /users errors: email_exists (any case), forbidden_role, ceo_exists, department_not_found, validation', async () => {
    const base = { name: 'N', password: 'long-enough', platformRole: 'none', orgPosition: 'member' };
    expectError(await admin.post('/api/users', { ...base, email: 'MEMBER@Example.COM', departmentId: sales.id }), 409, 'email_exists');
    expectError(await admin.post('/api/users', { ...base, email: 'Ceo@Example.com' }), 409, 'email_exists');
    expectError(await admin.post('/api/users', { ...base, email: 'su@example.com', platformRole: 'superadmin' }), 403, 'forbidden_role');
    expectError(await admin.post('/api/users', { ...base, email: 'ceo2@example.com', orgPosition: 'ceo' }), 409, 'ceo_exists');
    expectError(
      await admin.post('/api/users', { ...base, email: 'nodept@example.com', departmentId: randomUUID() }),
      400,
      'department_not_found',
    );
    expectValidation(await admin.post('/api/users', { ...base, email: 'short@example.com', password: 'short' }), 'password');
    expectValidation(await admin.post('/api/users', { name: 'N', email: 'x@example.com' }), 'password');
    expectValidation(await admin.post('/api/users', { ...base, email: 'not-an-email' }), 'email');
    expectValidation(await admin.post('/api/users', { ...base, email: 'bad@example.com', platformRole: 'root' }), 'platformRole');
    expectValidation(await admin.post('/api/users', { ...base, email: 'extra@example.com', isAdmin: true }), 'isAdmin');
    // very long strings are refused, not stored and not a 500
    expectValidation(await admin.post('/api/users', { ...base, email: 'long@example.com', name: 'N'.repeat(10_000) }), 'name');
    expectValidation(await admin.post('/api/users', { ...base, email: `${'a'.repeat(400)}@example.com` }), 'email');
    expectValidation(await admin.post('/api/users', { ...base, email: `a@${'b'.repeat(400)}.com` }), 'email');
    expectValidation(await admin.post('/api/users', { ...base, email: 'pw@example.com', password: 'p'.repeat(100_000) }), 'password');
    // a plain member is refused
    const memberToken = await tokenFor('member@example.com', 'member-password');
    expectError(await client(t.baseUrl, memberToken).post('/api/users', { ...base, email: 'm2@example.com' }), 403);
  });

  it('GET /users: {users, total}; entries carry department {id, name, color}', async () => {
    expectError(await anon().get('/api/users'), 401, 'unauthorized');
    const res = await admin.get('/api/users');
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['total', 'users']);
    expect(res.body.total).toBe(5); // root, CEO, admin, manager, member
    for (const u of res.body.users) expectListUser(u);
    const m = res.body.users.find((u: any) => u.id === memberUser.id);
    expect(m.department).toEqual({ id: sales.id, name: sales.name, color: sales.color });
    const filtered = await admin.get(
      `/api/users?search=${encodeURIComponent('ZOË')}&departmentId=${sales.id}&orgPosition=member&platformRole=none&limit=10&offset=0`,
    );
    expect(filtered.body).toEqual({ users: [expect.objectContaining({ id: memberUser.id })], total: 1 });
  });

  it('GET /users/:id and GET /users/me: {user}', async () => {
    const one = await admin.get(`/api/users/${memberUser.id}`);
    expect(one.status).toBe(200);
    expect(keys(one.body)).toEqual(['user']);
    expectOneUser(one.body.user);
    expectIso(one.body.user.lastLoginAt); // the member logged in above
    expectError(await admin.get(`/api/users/${randomUUID()}`), 404);
    expectError(await admin.get('/api/users/not-a-uuid'), 404);
    const memberToken = await tokenFor('member@example.com', 'member-password');
    const me = await client(t.baseUrl, memberToken).get('/api/users/me');
    expect(me.status).toBe(200);
    expect(keys(me.body)).toEqual(['user']);
    expectOneUser(me.body.user);
    expect(me.body.user.id).toBe(memberUser.id);
    expectError(await client(t.baseUrl, memberToken).get(`/api/users/${memberUser.id}`), 403);
  });

  it('PATCH /users/:id: {user}; a duplicate email in another case is 409 email_exists', async () => {
    const res = await admin.patch(`/api/users/${memberUser.id}`, { name: 'Zoë Renamed 🎉' });
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['user']);
    expectOneUser(res.body.user);
    expect(res.body.user.name).toBe('Zoë Renamed 🎉');
    expectError(await admin.patch(`/api/users/${memberUser.id}`, { email: 'MGR@example.com' }), 409, 'email_exists');
    expectError(await admin.patch(`/api/users/${memberUser.id}`, { orgPosition: 'ceo' }), 409, 'ceo_exists');
    expectError(await admin.patch(`/api/users/${memberUser.id}`, { platformRole: 'superadmin' }), 403, 'forbidden_role');
    expectValidation(await admin.patch(`/api/users/${memberUser.id}`, { password: 'short' }), 'password');
    expectValidation(await admin.patch(`/api/users/${memberUser.id}`, { name: 'x'.repeat(5000) }), 'name');
    expectValidation(await admin.patch(`/api/users/${memberUser.id}`, { status: 'banned' }), 'status');
    expectError(await admin.patch(`/api/users/${randomUUID()}`, { name: 'x' }), 404);
    // an email changed only in case is the same email: no conflict with itself
    const same = await admin.patch(`/api/users/${memberUser.id}`, { email: 'Member@Example.com' });
    expect(same.status).toBe(200);
    expect(same.body.user.email).toBe('member@example.com');
  });

  it('GET /users query-string abuse answers 400, never 500', async () => {
    for (const qs of [
      'limit=1&limit=2',
      'search=a&search=b',
      'search[]=a',
      'search[a]=b',
      'platformRole[]=admin',
      'departmentId[$ne]=x',
      'limit=abc',
      'limit=-1',
      'limit=0',
      'offset=1e3',
      'offset=-5',
      'limit=99999999999999999999',
      `search=${'s'.repeat(5000)}`,
      'platformRole=root',
      'departmentId=not-a-uuid',
      'unknown=1',
      '__proto__=x',
      'constructor[prototype]=x',
    ]) {
      const res = await admin.get(`/api/users?${qs}`);
      expect({ qs, status: res.status }).toEqual({ qs, status: 400 });
      expectValidation(res);
    }
    // above the cap is capped (DESIGN: limit ≤ 200), not refused
    expect((await admin.get('/api/users?limit=1000')).status).toBe(200);
  });
});

describe('departments (with members)', () => {
  it('GET /departments: {departments} with _count {members, groups, grants}', async () => {
    const res = await admin.get('/api/departments');
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['departments']);
    for (const d of res.body.departments) expectDepartment(d);
    expect(res.body.departments.find((d: any) => d.id === sales.id)._count).toEqual({ members: 2, groups: 0, grants: 0 });
  });

  it('PATCH /departments/:id: {department}; the own manager may update', async () => {
    const mgr = client(t.baseUrl, await tokenFor('mgr@example.com', 'manager-password'));
    const res = await mgr.patch(`/api/departments/${sales.id}`, { description: 'Sales & Success' });
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['department']);
    expectDepartment(res.body.department);
    expect(res.body.department.description).toBe('Sales & Success');
    expectError(await mgr.post('/api/departments', { name: 'Nope', color: '#000000', description: '' }), 403);
  });

  it('members: GET {members}, POST {members}, DELETE {success, id}; 409 for another department without replace', async () => {
    const list = await admin.get(`/api/departments/${sales.id}/members`);
    expect(list.status).toBe(200);
    expect(keys(list.body)).toEqual(['members']);
    expect(list.body.members.map((m: any) => m.id).sort()).toEqual([manager.id, memberUser.id].sort());
    for (const m of list.body.members) expect(m.departmentId).toBe(sales.id);

    const other = (await admin.post('/api/departments', { name: 'Support', color: '#334455', description: '' })).body.department;
    expectError(await admin.post(`/api/departments/${other.id}/members`, { userIds: [memberUser.id] }), 409);
    const moved = await admin.post(`/api/departments/${other.id}/members`, { userIds: [memberUser.id], replace: true });
    expect(moved.status).toBe(200);
    expect(keys(moved.body)).toEqual(['members']);
    expect(moved.body.members.map((m: any) => m.id)).toEqual([memberUser.id]);
    const removed = await admin.delete(`/api/departments/${other.id}/members/${memberUser.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, id: memberUser.id });
    expect((await admin.get(`/api/users/${memberUser.id}`)).body.user.departmentId).toBeNull();
    // back into Sales for the rest of the scenario
    expect((await admin.post(`/api/departments/${sales.id}/members`, { userIds: [memberUser.id] })).status).toBe(200);
    const del = await admin.delete(`/api/departments/${other.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true, id: other.id });
  });

  it('DELETE /departments/:id with members is a 409 naming the blocker', async () => {
    const res = await admin.delete(`/api/departments/${sales.id}`);
    expectError(res, 409);
    expect(res.body.error).toMatch(/member/);
  });
});

describe('groups', () => {
  it('POST/GET/PATCH /groups, members, with {group} and {groups} wrappers', async () => {
    const res = await admin.post('/api/groups', { name: 'Closers 🔒', departmentId: sales.id });
    expect(res.status).toBe(201);
    expect(keys(res.body)).toEqual(['group']);
    const g = res.body.group;
    expectUuid(g.id);
    expect(g.name).toBe('Closers 🔒');
    expect(g.department).toEqual({ id: sales.id, name: sales.name, color: sales.color });
    expectIso(g.createdAt);
    groupId = g.id;

    const added = await admin.post(`/api/groups/${groupId}/members`, { userIds: [memberUser.id] });
    expect(added.status).toBe(200);
    expect(keys(added.body)).toEqual(['group']);
    expect(added.body.group.members.map((m: any) => m.id)).toEqual([memberUser.id]);

    const list = await admin.get('/api/groups');
    expect(keys(list.body)).toEqual(['groups']);
    expect(list.body.groups.map((x: any) => x.id)).toContain(groupId);
    const one = await admin.get(`/api/groups/${groupId}`);
    expect(keys(one.body)).toEqual(['group']);
    const patched = await admin.patch(`/api/groups/${groupId}`, { description: 'Top sellers' });
    expect(keys(patched.body)).toEqual(['group']);
    expect(patched.body.group.description).toBe('Top sellers');
    expectValidation(await admin.post('/api/groups', { name: 'G'.repeat(10_000), departmentId: sales.id }), 'name');
    expectError(await admin.get(`/api/groups/${randomUUID()}`), 404);
    expect((await admin.get('/api/departments')).body.departments.find((d: any) => d.id === sales.id)._count.groups).toBe(1);
  });
});

describe('projects', () => {
  it('POST /projects: 201 {project}; ownerId and createdBy are the caller', async () => {
    expectError(await anon().post('/api/projects', { name: 'x' }), 401, 'unauthorized');
    const res = await admin.post('/api/projects', {
      name: 'Playbook 📘',
      description: 'How we sell',
      isPrivate: true,
      instructions: 'Be brief.',
    });
    expect(res.status).toBe(201);
    expect(keys(res.body)).toEqual(['project']);
    expectProjectDetail(res.body.project);
    expect(res.body.project).toEqual(
      expect.objectContaining({
        name: 'Playbook 📘',
        description: 'How we sell',
        isPrivate: true,
        instructions: 'Be brief.',
        ownerId: adminId,
        createdBy: adminId,
        members: [],
        _count: { documents: 0, conversations: 0, chunks: 0 },
      }),
    );
    projectId = res.body.project.id;
    const mgr = client(t.baseUrl, await tokenFor('mgr@example.com', 'manager-password'));
    expectError(await mgr.post('/api/projects', { name: 'Nope' }), 403);
    expectValidation(await admin.post('/api/projects', { name: 'P'.repeat(10_000) }), 'name');
    expectValidation(await admin.post('/api/projects', {}), 'name');
    expectValidation(await admin.post('/api/projects', { name: 'x', isPrivate: 'yes' }), 'isPrivate');
  });

  it('GET /projects/:id: {project}; 404 missing; 403 without access', async () => {
    const res = await admin.get(`/api/projects/${projectId}`);
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['project']);
    expectProjectDetail(res.body.project);
    expectError(await admin.get(`/api/projects/${randomUUID()}`), 404);
    const member = client(t.baseUrl, await tokenFor('member@example.com', 'member-password'));
    expectError(await member.get(`/api/projects/${projectId}`), 403);
  });

  it('PATCH /projects/:id: {project}; settings merge', async () => {
    const res = await admin.patch(`/api/projects/${projectId}`, { color: '#ff8800', settings: { topK: 4 } });
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['project']);
    expectProjectDetail(res.body.project);
    const again = await admin.patch(`/api/projects/${projectId}`, { settings: { temperature: 0.2, model: 'gpt-x' } });
    expect(again.body.project.settings).toEqual({ model: 'gpt-x', temperature: 0.2, topK: 4 });
    expectValidation(await admin.patch(`/api/projects/${projectId}`, { settings: { topK: 'many' } }));
  });
});

describe('grants', () => {
  let userGrantId: string;

  it('POST grant: 201 created / 200 updated, {grant, action}', async () => {
    const created = await admin.post(`/api/projects/${projectId}/grants`, { targetType: 'user', targetId: memberUser.id, tier: 'use' });
    expect(created.status).toBe(201);
    expect(keys(created.body)).toEqual(['action', 'grant']);
    expect(created.body.action).toBe('created');
    expectGrant(created.body.grant);
    expect(created.body.grant.user).toEqual({ id: memberUser.id, name: 'Zoë Renamed 🎉', email: 'member@example.com' });
    expect(created.body.grant.grantedById).toBe(adminId);
    userGrantId = created.body.grant.id;

    const updated = await admin.post(`/api/projects/${projectId}/grants`, { targetType: 'user', targetId: memberUser.id, tier: 'edit' });
    expect(updated.status).toBe(200);
    expect(updated.body.action).toBe('updated');
    expect(updated.body.grant.id).toBe(userGrantId);
    expect(updated.body.grant.tier).toBe('edit');

    const group = await admin.post(`/api/projects/${projectId}/grants`, { targetType: 'group', targetId: groupId, tier: 'use' });
    expect(group.status).toBe(201);
    expectGrant(group.body.grant);
    expect(group.body.grant.group).toEqual({ id: groupId, name: 'Closers 🔒', department: { name: 'Sales' } });

    const dept = await admin.post(`/api/projects/${projectId}/grants`, { targetType: 'department', targetId: sales.id, tier: 'use' });
    expect(dept.status).toBe(201);
    expectGrant(dept.body.grant);
  });

  it('POST grant errors: 404 target_not_found, 403 without full tier, 400 on bad input', async () => {
    expectError(
      await admin.post(`/api/projects/${projectId}/grants`, { targetType: 'user', targetId: randomUUID(), tier: 'use' }),
      404,
      'target_not_found',
    );
    expectError(
      await admin.post(`/api/projects/${randomUUID()}/grants`, { targetType: 'user', targetId: memberUser.id, tier: 'use' }),
      404,
    );
    const member = client(t.baseUrl, await tokenFor('member@example.com', 'member-password'));
    expectError(await member.post(`/api/projects/${projectId}/grants`, { targetType: 'user', targetId: manager.id, tier: 'use' }), 403);
    expectValidation(
      await admin.post(`/api/projects/${projectId}/grants`, { targetType: 'team', targetId: memberUser.id, tier: 'use' }),
      'targetType',
    );
    expectValidation(
      await admin.post(`/api/projects/${projectId}/grants`, { targetType: 'user', targetId: memberUser.id, tier: 'owner' }),
      'tier',
    );
    expectValidation(await admin.post(`/api/projects/${projectId}/grants`, { targetType: 'user', targetId: 'x', tier: 'use' }), 'targetId');
  });

  it('GET grants: {grants}, each with user/group/department nested (null when not the target)', async () => {
    const member = client(t.baseUrl, await tokenFor('member@example.com', 'member-password'));
    const res = await member.get(`/api/projects/${projectId}/grants`); // `use` tier suffices
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['grants']);
    expect(res.body.grants).toHaveLength(3);
    for (const g of res.body.grants) expectGrant(g);
  });

  it('GET /projects: the member sees the project with members, _count, accessTier, accessSource', async () => {
    const member = client(t.baseUrl, await tokenFor('member@example.com', 'member-password'));
    const res = await member.get('/api/projects');
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['projects']);
    expect(res.body.projects).toHaveLength(1);
    const p = res.body.projects[0];
    expectProjectListItem(p);
    expect(p).toEqual(expect.objectContaining({ id: projectId, accessTier: 'edit', accessSource: 'user' }));
    // the user grant put the member on the visible member list
    expect(p.members.map((m: any) => m.userId)).toEqual([memberUser.id]);
    const adminList = await admin.get('/api/projects');
    expect(adminList.body.projects.find((x: any) => x.id === projectId)).toEqual(
      expect.objectContaining({ accessTier: 'full', accessSource: 'platform' }),
    );
  });

  it('GET /grants/by-user/:userId: {direct, viaGroup, viaDepartment} with the spec entries', async () => {
    const res = await admin.get(`/api/grants/by-user/${memberUser.id}`);
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['direct', 'viaDepartment', 'viaGroup']);
    expect(res.body.direct).toHaveLength(1);
    expect(keys(res.body.direct[0])).toEqual(['project', 'projectId', 'tier']);
    expect(res.body.viaGroup).toHaveLength(1);
    expect(keys(res.body.viaGroup[0])).toEqual(['group', 'project', 'projectId', 'tier']);
    expect(res.body.viaDepartment).toHaveLength(1);
    expect(keys(res.body.viaDepartment[0])).toEqual(['department', 'project', 'projectId', 'tier']);
    for (const e of [...res.body.direct, ...res.body.viaGroup, ...res.body.viaDepartment]) {
      expect(e.projectId).toBe(projectId);
      expect(e.project.id).toBe(projectId);
    }
    const member = client(t.baseUrl, await tokenFor('member@example.com', 'member-password'));
    expectError(await member.get(`/api/grants/by-user/${memberUser.id}`), 403);
  });

  it('DELETE /projects/:id/members/:userId: {success, id}; the grant stays', async () => {
    const res = await admin.delete(`/api/projects/${projectId}/members/${memberUser.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: memberUser.id });
    const grants = (await admin.get(`/api/projects/${projectId}/grants`)).body.grants;
    expect(grants.some((g: any) => g.userId === memberUser.id)).toBe(true);
    expect((await admin.get(`/api/projects/${projectId}`)).body.project.members).toEqual([]);
  });

  it('DELETE grant: {success, id}', async () => {
    const res = await admin.delete(`/api/projects/${projectId}/grants/${userGrantId}`);
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(DELETED);
    expect(res.body).toEqual({ success: true, id: userGrantId });
    expectError(await admin.delete(`/api/projects/${projectId}/grants/${userGrantId}`), 404);
  });

  it('GET /audit-log: {entries, total}; entries with the spec fields plus id and createdAt', async () => {
    const member = client(t.baseUrl, await tokenFor('member@example.com', 'member-password'));
    expectError(await anon().get('/api/audit-log'), 401, 'unauthorized');
    expectError(await member.get('/api/audit-log'), 403);
    const res = await admin.get(`/api/audit-log?projectId=${projectId}`);
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['entries', 'total']);
    expect(res.body.total).toBe(6);
    for (const e of res.body.entries) {
      expect(keys(e)).toEqual(AUDIT_ENTRY);
      expectUuid(e.id);
      expectIso(e.createdAt);
      expect(e.actorId).toBe(adminId);
      expect(e.projectId).toBe(projectId);
      expectUuid(e.targetId);
    }
    // newest first: deleted, then the department, group, updated and created user grants, then the project's creation
    expect(res.body.entries.map((e: any) => [e.action, e.targetType])).toEqual([
      ['grant_deleted', 'user'],
      ['grant_created', 'department'],
      ['grant_created', 'group'],
      ['grant_updated', 'user'],
      ['grant_created', 'user'],
      ['project_created', 'user'],
    ]);
    const [deleted, , , updated, created] = res.body.entries;
    expect(created.metadata).toEqual({ tier: 'use' });
    expect(updated.metadata).toEqual({ tier: 'edit', previousTier: 'use' });
    expect(deleted.metadata).toEqual({ tier: 'edit' });
    const filtered = await admin.get(
      `/api/audit-log?projectId=${projectId}&action=grant_created&actorId=${adminId}&limit=2&offset=0&from=2000-01-01T00:00:00.000Z`,
    );
    expect(filtered.body.total).toBe(3);
    expect(filtered.body.entries).toHaveLength(2);
  });

  it('GET /audit-log query-string abuse answers 400, never 500', async () => {
    for (const qs of [
      'action=grant_created&action=grant_deleted',
      'projectId[]=x',
      'projectId[$ne]=x',
      'actorId=not-a-uuid',
      'action=dropped',
      'from=yesterday',
      'to=2024-13-45',
      'limit=abc',
      'limit=0',
      'limit=99999999999999999999',
      'offset=-1',
      'foo=bar',
      `from=${'9'.repeat(5000)}`,
    ]) {
      const res = await admin.get(`/api/audit-log?${qs}`);
      expect({ qs, status: res.status }).toEqual({ qs, status: 400 });
      expectValidation(res);
    }
  });

  it('DELETE /projects/:id: {success, id}; then 404', async () => {
    const mgr = client(t.baseUrl, await tokenFor('mgr@example.com', 'manager-password'));
    expectError(await mgr.delete(`/api/projects/${projectId}`), 403);
    const res = await admin.delete(`/api/projects/${projectId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: projectId });
    expectError(await admin.get(`/api/projects/${projectId}`), 404);
  });
});

describe('users: delete and the security rules', () => {
  it('DELETE /users/:id: {success, id}; the superadmin and oneself are refused', async () => {
    const u = await admin.post('/api/users', {
      email: 'temp@example.com',
      name: 'Temp',
      password: 'temp-password',
      platformRole: 'none',
      orgPosition: 'member',
    });
    const res = await admin.delete(`/api/users/${u.body.user.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: u.body.user.id });
    expectError(await admin.delete(`/api/users/${u.body.user.id}`), 404);
    expectError(await admin.delete(`/api/users/${rootId}`), 403);
    expectError(await admin.delete(`/api/users/${adminId}`), 403);
  });

  it('deleting a user removes their grants and records each one as grant_deleted', async () => {
    const p = (await admin.post('/api/projects', { name: 'Ephemeral' })).body.project;
    const u = (
      await admin.post('/api/users', {
        email: 'leaver@example.com',
        name: 'Leaver',
        password: 'leaver-password',
        platformRole: 'none',
        orgPosition: 'member',
      })
    ).body.user;
    expect((await admin.post(`/api/projects/${p.id}/grants`, { targetType: 'user', targetId: u.id, tier: 'edit' })).status).toBe(201);
    expect((await admin.delete(`/api/users/${u.id}`)).status).toBe(200);
    expect((await admin.get(`/api/projects/${p.id}/grants`)).body.grants).toEqual([]);
    const log = await admin.get(`/api/audit-log?projectId=${p.id}&action=grant_deleted`);
    expect(log.body.total).toBe(1);
    expect(log.body.entries[0]).toEqual(expect.objectContaining({ actorId: adminId, targetType: 'user', targetId: u.id }));
    expect(log.body.entries[0].metadata.tier).toBe('edit');
  });

  it("changing a password revokes the user's refresh tokens; other changes do not", async () => {
    const session = (await login('mgr@example.com', 'manager-password')).body;
    const refresh = (token: string) => api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: token } });
    // a rename keeps the session
    expect((await admin.patch(`/api/users/${manager.id}`, { name: 'Mária Renamed' })).status).toBe(200);
    const rotated = await refresh(session.refreshToken);
    expect(rotated.status).toBe(200);
    // a refused change (409) revokes nothing
    expectError(await admin.patch(`/api/users/${manager.id}`, { password: 'brand-new-password', orgPosition: 'ceo' }), 409, 'ceo_exists');
    const stillValid = await refresh(rotated.body.refreshToken);
    expect(stillValid.status).toBe(200);
    // the password change does
    expect((await admin.patch(`/api/users/${manager.id}`, { password: 'brand-new-password' })).status).toBe(200);
    expectError(await refresh(stillValid.body.refreshToken), 401, 'unauthorized');
    expect((await login('mgr@example.com', 'manager-password')).status).toBe(401);
    expect((await login('mgr@example.com', 'brand-new-password')).status).toBe(200);
  });

  it('setting a user inactive revokes their refresh tokens: reactivation does not revive old sessions', async () => {
    const session = (await login('member@example.com', 'member-password')).body;
    expect((await admin.patch(`/api/users/${memberUser.id}`, { status: 'inactive' })).status).toBe(200);
    expectError(await login('member@example.com', 'member-password'), 401, 'Invalid email or password');
    expect((await admin.patch(`/api/users/${memberUser.id}`, { status: 'active' })).status).toBe(200);
    expectError(await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: session.refreshToken } }), 401, 'unauthorized');
    expect((await login('member@example.com', 'member-password')).status).toBe(200);
  });
});

describe('transport edges', () => {
  it('a known path with a method it does not serve answers JSON 404/405, never HTML', async () => {
    for (const [method, path] of [
      ['PUT', '/api/projects'],
      ['PATCH', '/api/projects'],
      ['DELETE', '/api/users'],
      ['PUT', '/api/users/me'],
      ['POST', '/api/auth/me'],
      ['GET', '/api/auth/login'],
      ['PUT', `/api/departments/${sales.id}`],
      ['POST', '/api/audit-log'],
      ['GET', '/api/no-such-thing'],
    ]) {
      const res = await api(t.baseUrl, method, path, {
        token: undefined,
        headers: { authorization: `Bearer ${(await login(ROOT.email, ROOT.password)).body.accessToken}` },
        body: method === 'GET' ? undefined : {},
      });
      expect([404, 405]).toContain(res.status);
      expectError(res, res.status);
      expect(res.text).not.toMatch(/<html|<!DOCTYPE/i);
    }
  });

  it('malformed path parameters answer JSON 4xx, never 500', async () => {
    const token = (await login(ROOT.email, ROOT.password)).body.accessToken;
    for (const path of [
      '/api/users/%E0%A4%A',
      `/api/users/${'f'.repeat(5000)}`,
      '/api/projects/%00',
      `/api/departments/${randomUUID()}x/members`,
      '/api/grants/by-user/..%2F..%2Fetc',
    ]) {
      const res = await api(t.baseUrl, 'GET', path, { token });
      expect({ path, status: res.status }).toEqual({ path, status: expect.any(Number) });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expectError(res, res.status);
    }
  });

  it('malformed JSON and a non-object body are 400 validation_failed', async () => {
    expectValidation(
      await api(t.baseUrl, 'POST', '/api/auth/login', { rawBody: '{"email":', headers: { 'content-type': 'application/json' } }),
    );
    expectValidation(
      await api(t.baseUrl, 'POST', '/api/auth/login', { rawBody: '[1,2]', headers: { 'content-type': 'application/json' } }),
    );
    expectValidation(await api(t.baseUrl, 'POST', '/api/auth/login', { body: { email: ['a@b.c'], password: { $gt: '' } } }));
  });
});

describe('prototype keys', () => {
  it('__proto__, constructor and prototype keys are refused like any unknown field (body and query)', async () => {
    for (const raw of [
      '{"name":"P1","__proto__":{"a":1}}',
      '{"name":"P2","constructor":{"prototype":{"a":1}}}',
      '{"name":"P3","settings":{"__proto__":{"topK":1}}}',
    ]) {
      expectValidation(
        await api(t.baseUrl, 'POST', '/api/departments', {
          rawBody: raw,
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${(await login(ROOT.email, ROOT.password)).body.accessToken}`,
          },
        }),
      );
    }
    expect((await admin.get('/api/departments')).body.departments.some((d: any) => /^P\d$/.test(d.name))).toBe(false);
  });
});
