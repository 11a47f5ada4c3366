import pg from 'pg';
import { factories } from '../support/factories';
import { gql } from '../support/graphql';
import { client } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Issue 25 item 5: every access decision is audited — platform-role, status and membership changes,
 * project creation and deletion, and owner changes by cascade (from the rows actually changed).
 */
let t: TestApp;
let f: ReturnType<typeof factories>;
type U = Awaited<ReturnType<ReturnType<typeof factories>['makeUser']>>;
let root: U;
let admin: U;

beforeAll(async () => {
  t = await createTestApp();
  f = factories(t.orm, t.services);
  root = await f.superadmin();
  admin = await f.makeUser({ platformRole: 'admin' });
});
afterAll(async () => t?.close());

const as = (u: { token: string }) => client(t.baseUrl, u.token);
/** The entries of one action about one target, oldest first, without id, createdAt and the names (audit.test.ts checks those). */
async function entries(action: string, targetId: string): Promise<any[]> {
  const res = await as(admin).get(`/api/audit-log?action=${action}&limit=200`);
  expect(res.status).toBe(200);
  return res.body.entries
    .filter((e: any) => e.targetId === targetId)
    .reverse()
    .map(({ id: _id, createdAt: _c, actorName: _a, projectName: _p, targetName: _t, ...rest }: any) => rest);
}

describe('users', () => {
  it('a platform-role change writes user_role_changed (no project); an unchanged role writes nothing', async () => {
    const u = await f.makeUser();
    expect((await as(root).patch(`/api/users/${u.id}`, { platformRole: 'engineer' })).status).toBe(200);
    expect((await as(root).patch(`/api/users/${u.id}`, { platformRole: 'engineer', name: 'Renamed' })).status).toBe(200);
    expect((await as(root).patch(`/api/users/${u.id}`, { platformRole: 'admin' })).status).toBe(200);
    expect(await entries('user_role_changed', u.id)).toEqual([
      {
        action: 'user_role_changed',
        actorId: root.id,
        projectId: null,
        targetType: 'user',
        targetId: u.id,
        metadata: { role: 'engineer', previousRole: 'none' },
      },
      {
        action: 'user_role_changed',
        actorId: root.id,
        projectId: null,
        targetType: 'user',
        targetId: u.id,
        metadata: { role: 'admin', previousRole: 'engineer' },
      },
    ]);
  });

  it('a refused role change writes nothing (same transaction)', async () => {
    const u = await f.makeUser();
    expect((await as(admin).patch(`/api/users/${u.id}`, { platformRole: 'engineer' })).status).toBe(403);
    expect(await entries('user_role_changed', u.id)).toEqual([]);
  });

  it('deactivation and reactivation write user_status_changed; GraphQL filters by the enum', async () => {
    const u = await f.makeUser();
    expect((await as(admin).patch(`/api/users/${u.id}`, { status: 'inactive' })).status).toBe(200);
    const r = await gql(t.baseUrl, `mutation($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { id status } }`, {
      token: admin.token,
      variables: { id: u.id, input: { status: 'active' } },
    });
    expect(r.errors).toBeUndefined();
    const q = await gql(
      t.baseUrl,
      `query($f: AuditLogQuery) { auditLog(filter: $f) { items { action projectId targetId metadata { status previousStatus tier } } } }`,
      { token: admin.token, variables: { f: { action: 'user_status_changed', limit: 200 } } },
    );
    expect(q.errors).toBeUndefined();
    expect(q.data.auditLog.items.filter((e: any) => e.targetId === u.id)).toEqual([
      {
        action: 'user_status_changed',
        projectId: null,
        targetId: u.id,
        metadata: { status: 'active', previousStatus: 'inactive', tier: null },
      },
      {
        action: 'user_status_changed',
        projectId: null,
        targetId: u.id,
        metadata: { status: 'inactive', previousStatus: 'active', tier: null },
      },
    ]);
  });
});

describe('department membership', () => {
  it('add, move (replace) and remove write department_member_added / _removed', async () => {
    const d1 = await f.makeDepartment();
    const d2 = await f.makeDepartment();
    const u = await f.makeUser();
    expect((await as(admin).post(`/api/departments/${d1.id}/members`, { userIds: [u.id] })).status).toBeLessThan(300);
    // already a member: nothing changes, nothing is written
    expect((await as(admin).post(`/api/departments/${d1.id}/members`, { userIds: [u.id] })).status).toBeLessThan(300);
    expect((await as(admin).post(`/api/departments/${d2.id}/members`, { userIds: [u.id], replace: true })).status).toBeLessThan(300);
    expect((await as(admin).delete(`/api/departments/${d2.id}/members/${u.id}`)).status).toBeLessThan(300);
    expect((await entries('department_member_added', u.id)).map((e) => e.metadata)).toEqual([
      { departmentId: d1.id },
      { departmentId: d2.id },
    ]);
    expect((await entries('department_member_removed', u.id)).map((e) => e.metadata)).toEqual([
      { departmentId: d1.id, reason: 'moved' },
      { departmentId: d2.id },
    ]);
  });

  it('PATCH /users/:id departmentId writes them too, and the groups dropped with the old department are group_member_removed', async () => {
    const d1 = await f.makeDepartment();
    const d2 = await f.makeDepartment();
    const u = await f.makeUser({ department: d1 });
    const g = await f.makeGroup({ department: d1, members: [u] });
    expect((await as(admin).patch(`/api/users/${u.id}`, { departmentId: d2.id })).status).toBe(200);
    expect((await entries('department_member_removed', u.id)).map((e) => e.metadata)).toEqual([{ departmentId: d1.id, reason: 'moved' }]);
    expect((await entries('department_member_added', u.id)).map((e) => e.metadata)).toEqual([{ departmentId: d2.id }]);
    expect((await entries('group_member_removed', u.id)).map((e) => e.metadata)).toEqual([{ groupId: g.id, reason: 'department_changed' }]);
  });
});

describe('group membership', () => {
  it('add (only rows actually added) and remove write group_member_added / _removed', async () => {
    const d = await f.makeDepartment();
    const u = await f.makeUser({ department: d });
    const v = await f.makeUser({ department: d });
    const g = await f.makeGroup({ department: d, members: [v] });
    expect((await as(admin).post(`/api/groups/${g.id}/members`, { userIds: [u.id, v.id] })).status).toBeLessThan(300);
    expect(await entries('group_member_added', u.id)).toEqual([
      { action: 'group_member_added', actorId: admin.id, projectId: null, targetType: 'user', targetId: u.id, metadata: { groupId: g.id } },
    ]);
    expect(await entries('group_member_added', v.id)).toEqual([]); // was a member already
    expect((await as(admin).delete(`/api/groups/${g.id}/members/${u.id}`)).status).toBeLessThan(300);
    expect((await entries('group_member_removed', u.id)).map((e) => e.metadata)).toEqual([{ groupId: g.id }]);
    // deleting the group removes the remaining members, each recorded
    expect((await as(admin).delete(`/api/groups/${g.id}`)).status).toBeLessThan(300);
    expect((await entries('group_member_removed', v.id)).map((e) => e.metadata)).toEqual([{ groupId: g.id, reason: 'group_deleted' }]);
  });

  it('GraphQL: addGroupMembers goes through the same service', async () => {
    const d = await f.makeDepartment();
    const u = await f.makeUser({ department: d });
    const g = await f.makeGroup({ department: d });
    const r = await gql(t.baseUrl, `mutation($id: ID!, $ids: [String!]!) { addGroupMembers(id: $id, input: { userIds: $ids }) { id } }`, {
      token: admin.token,
      variables: { id: g.id, ids: [u.id] },
    });
    expect(r.errors).toBeUndefined();
    expect((await entries('group_member_added', u.id)).map((e) => e.metadata)).toEqual([{ groupId: g.id }]);
  });
});

describe('projects', () => {
  it('creation writes project_created and deletion project_deleted', async () => {
    const created = await as(admin).post('/api/projects', { name: 'Audited', isPrivate: true });
    expect(created.status).toBe(201);
    const id = created.body.id ?? created.body.project?.id;
    expect((await as(admin).delete(`/api/projects/${id}`)).status).toBeLessThan(300);
    const res = await as(admin).get(`/api/audit-log?projectId=${id}`);
    expect(res.body.entries.map(({ id: _i, createdAt: _c, actorName: _a, projectName: _p, targetName: _t, ...e }: any) => e)).toEqual([
      {
        action: 'project_deleted',
        actorId: admin.id,
        projectId: id,
        targetType: 'user',
        targetId: admin.id,
        metadata: { tier: 'full', previousOwnerId: admin.id },
      },
      {
        action: 'project_created',
        actorId: admin.id,
        projectId: id,
        targetType: 'user',
        targetId: admin.id,
        metadata: { tier: 'full', isPrivate: true },
      },
    ]);
  });

  it("a deleted user's projects lose their owner with project_owner_changed, from the rows actually changed", async () => {
    const owner = await f.makeUser({ platformRole: 'admin' });
    const p1 = await f.makeProject({ owner });
    const p2 = await f.makeProject({ owner: admin });
    const other = await f.makeProject({ owner: admin });
    // another transaction gives p2 to the user and commits only while the deletion is under way
    const c = new pg.Client({ connectionString: t.dbUrl });
    await c.connect();
    try {
      await c.query('begin');
      await c.query(`update projects set owner_id = $1 where id = $2`, [owner.id, p2.id]);
      const pending = as(root).delete(`/api/users/${owner.id}`);
      await new Promise((r) => setTimeout(r, 500)); // the deletion now waits on our transaction
      await c.query('commit');
      expect((await pending).status).toBeLessThan(300);
    } finally {
      await c.end();
    }
    const changed = await entries('project_owner_changed', owner.id);
    expect(changed.map((e) => e.projectId).sort()).toEqual([p1.id, p2.id].sort());
    for (const e of changed) {
      expect(e).toMatchObject({
        actorId: root.id,
        targetType: 'user',
        metadata: { tier: 'full', previousOwnerId: owner.id, reason: 'user_deleted' },
      });
    }
    const check = new pg.Client({ connectionString: t.dbUrl });
    await check.connect();
    try {
      const owners = await check.query(`select id, owner_id from projects where id = any($1::uuid[])`, [[p1.id, p2.id, other.id]]);
      expect(Object.fromEntries(owners.rows.map((r) => [r.id, r.owner_id]))).toEqual({
        [p1.id]: null,
        [p2.id]: null,
        [other.id]: admin.id,
      });
    } finally {
      await check.end();
    }
  });
});

it('the audit-log filter (REST and GraphQL) accepts every new action', async () => {
  for (const action of [
    'project_created',
    'project_deleted',
    'user_role_changed',
    'user_status_changed',
    'group_member_added',
    'group_member_removed',
    'department_member_added',
    'department_member_removed',
  ]) {
    expect((await as(admin).get(`/api/audit-log?action=${action}`)).status).toBe(200);
    const q = await gql(t.baseUrl, `query($f: AuditLogQuery) { auditLog(filter: $f) { total } }`, {
      token: admin.token,
      variables: { f: { action } },
    });
    expect(q.errors).toBeUndefined();
  }
});
