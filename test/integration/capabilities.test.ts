import { createTestApp, TestApp } from '../support/test-app';
import { api, client } from '../support/http';
import { gql } from '../support/graphql';
import { factories } from '../support/factories';
import { expectShape } from '../support/openapi-validator';

/**
 * GET /api/auth/capabilities and query `capabilities`: the server says what the caller may do, and
 * what it says holds: each "yes" is a request the server then allows, each "no" one it refuses.
 */
let t: TestApp;
let f: ReturnType<typeof factories>;

beforeAll(async () => {
  t = await createTestApp();
  f = factories(t.orm, t.services);
});
afterAll(async () => t?.close());

const CAPS = `{ capabilities { manageUsers changePlatformRoles createProjects readAuditLog listFeedback manageProviders
  departments { read { all departmentIds } create delete addMembers edit { all departmentIds } removeMembers { all departmentIds } }
  groups { read { all departmentIds } edit { all departmentIds } } } }`;

describe('GET /api/auth/capabilities', () => {
  it('requires authentication', async () => {
    expect((await api(t.baseUrl, 'GET', '/api/auth/capabilities')).status).toBe(401);
  });

  it('a manager: their own department read and edited, its groups edited; nothing else; GraphQL says the same', async () => {
    const dept = await f.makeDepartment();
    const manager = await f.makeUser({ orgPosition: 'manager', department: dept });
    const res = await client(t.baseUrl, manager.token).get('/api/auth/capabilities');
    expect(res.status).toBe(200);
    expectShape(res.body.capabilities, 'Capabilities');
    const own = { all: false, departmentIds: [dept.id] };
    expect(res.body.capabilities).toEqual({
      manageUsers: false,
      changePlatformRoles: false,
      createProjects: false,
      readAuditLog: false,
      listFeedback: false,
      manageProviders: false,
      departments: { read: own, create: false, delete: false, addMembers: false, edit: own, removeMembers: own },
      groups: { read: own, edit: own },
    });
    expect((await gql(t.baseUrl, CAPS, { token: manager.token })).data.capabilities).toEqual(res.body.capabilities);
  });

  it('what it says holds: the CEO reads every department but edits none; an admin runs users and the audit log', async () => {
    const a = await f.makeDepartment();
    const b = await f.makeDepartment();
    const ceo = await f.ceo();
    const caps = (await client(t.baseUrl, ceo.token).get('/api/auth/capabilities')).body.capabilities;
    expect(caps.departments.read).toEqual({ all: true, departmentIds: [] });
    expect(caps.departments.edit).toEqual({ all: false, departmentIds: [] });
    expect(caps.manageUsers).toBe(false);
    const asCeo = client(t.baseUrl, ceo.token);
    for (const d of [a, b]) expect((await asCeo.get(`/api/departments/${d.id}`)).status).toBe(200);
    expect((await asCeo.patch(`/api/departments/${a.id}`, { description: 'x' })).status).toBe(403);
    expect((await asCeo.get('/api/users')).status).toBe(403);

    const admin = await f.makeUser({ platformRole: 'admin' });
    const adminCaps = (await client(t.baseUrl, admin.token).get('/api/auth/capabilities')).body.capabilities;
    expect([adminCaps.manageUsers, adminCaps.readAuditLog, adminCaps.changePlatformRoles, adminCaps.manageProviders]).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect((await client(t.baseUrl, admin.token).get('/api/users')).status).toBe(200);
    expect((await client(t.baseUrl, admin.token).get('/api/audit-log')).status).toBe(200);
    expect((await client(t.baseUrl, admin.token).get('/api/providers/admin')).status).toBe(403);
  });
});
