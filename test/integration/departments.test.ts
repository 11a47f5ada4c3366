import { randomUUID } from 'node:crypto';
import type { Department } from '../../src/entities';
import { authorizationMatrix, Caller, orgSuite, requiresAuthentication, tag, Who } from '../support/org-suite';

const org = orgSuite();
const { as, sql } = org;
const deptOf = async (userId: string): Promise<string | null> =>
  (await sql(`select department_id from users where id = ?`, [userId]))[0].department_id;

// fixed ids: they are part of the test names, which `jest -t` selects by
const fixedId = '00000000-0000-4000-8000-000000000000';
requiresAuthentication(org, [
  ['GET', '/api/departments', undefined],
  ['POST', '/api/departments', { name: 'x' }],
  ['GET', `/api/departments/${fixedId}`, undefined],
  ['PATCH', `/api/departments/${fixedId}`, { name: 'x' }],
  ['DELETE', `/api/departments/${fixedId}`, undefined],
  ['GET', `/api/departments/${fixedId}/members`, undefined],
  ['POST', `/api/departments/${fixedId}/members`, { userIds: [randomUUID()] }],
  ['DELETE', `/api/departments/${fixedId}/members/00000000-0000-4000-8000-000000000001`, undefined],
]);

/**
 * The authorization matrix, line by line from the spec's role gates and DESIGN §3: `dept` is the
 * department acted on; "manager" manages it, "otherManager" manages another one.
 */
describe('authorization matrix', () => {
  const matrix: Array<[string, Who[]]> = [
    ['GET /departments', ['manager', 'otherManager', 'admin', 'superadmin', 'ceo']],
    ['GET /departments/:id', ['manager', 'admin', 'superadmin', 'ceo']],
    ['POST /departments', ['admin', 'superadmin']],
    ['PATCH /departments/:id', ['manager', 'admin', 'superadmin']],
    ['DELETE /departments/:id', ['admin', 'superadmin']],
    ['GET /departments/:id/members', ['manager', 'admin', 'superadmin', 'ceo']],
    ['POST /departments/:id/members', ['admin', 'superadmin']],
    ['DELETE /departments/:id/members/:userId', ['manager', 'admin', 'superadmin', 'ceo']],
  ];

  const gatesAdmit = (u: Caller) => u.platformRole === 'admin' || u.platformRole === 'superadmin';

  /** Runs one operation as `caller` against the cast's department, with fresh rows where it writes. */
  async function perform(op: string, caller: Caller) {
    const c = as(caller);
    const dept = org.cast.dept;
    switch (op) {
      case 'GET /departments':
        return c.get('/api/departments');
      case 'GET /departments/:id':
        return c.get(`/api/departments/${dept.id}`);
      case 'POST /departments':
        return c.post('/api/departments', { name: `Matrix ${tag()}` });
      case 'PATCH /departments/:id':
        return c.patch(`/api/departments/${dept.id}`, { description: `by ${caller.id}` });
      case 'DELETE /departments/:id': {
        // admins delete an empty department (the cast's has members, a 409); refused callers aim at the cast's
        const target = gatesAdmit(caller) ? (await org.f.makeDepartment()).id : dept.id;
        return c.delete(`/api/departments/${target}`);
      }
      case 'GET /departments/:id/members':
        return c.get(`/api/departments/${dept.id}/members`);
      case 'POST /departments/:id/members': {
        const u = await org.f.makeUser();
        return c.post(`/api/departments/${dept.id}/members`, { userIds: [u.id] });
      }
      case 'DELETE /departments/:id/members/:userId': {
        const u = await org.f.makeUser({ department: dept });
        return c.delete(`/api/departments/${dept.id}/members/${u.id}`);
      }
      default:
        throw new Error(op);
    }
  }

  authorizationMatrix(org, matrix, perform);

  it('a refused write changes nothing', async () => {
    const d = await org.f.makeDepartment({ name: `Untouched ${tag()}` });
    const free = await org.f.makeUser();
    const inside = await org.f.makeUser({ department: d });
    for (const who of ['member', 'otherManager', 'engineer', 'ceo'] as Who[]) {
      const c = as(org.cast[who]);
      await c.patch(`/api/departments/${d.id}`, { name: 'Hijacked' });
      await c.delete(`/api/departments/${d.id}`);
      await c.post(`/api/departments/${d.id}/members`, { userIds: [free.id] });
    }
    for (const who of ['member', 'otherManager', 'engineer'] as Who[])
      await as(org.cast[who]).delete(`/api/departments/${d.id}/members/${inside.id}`);
    const [row] = await sql(`select name from departments where id = ?`, [d.id]);
    expect(row.name).toBe(d.name);
    expect(await deptOf(free.id)).toBeNull();
    expect(await deptOf(inside.id)).toBe(d.id);
  });
});

describe('GET /departments', () => {
  it('lists departments with _count {members, groups, grants}', async () => {
    const d = await org.f.makeDepartment({ color: '#ff0000', description: 'Counted' });
    const a = await org.f.makeUser({ department: d });
    await org.f.makeUser({ department: d, orgPosition: 'manager' });
    await org.f.makeGroup({ department: d, members: [a] });
    await org.f.makeGrant({ department: d });
    await org.f.makeGrant({ department: d });
    const res = await as(org.cast.admin).get('/api/departments');
    expect(res.status).toBe(200);
    const entry = res.body.departments.find((x: any) => x.id === d.id);
    expect(entry).toEqual({
      id: d.id,
      name: d.name,
      color: '#ff0000',
      description: 'Counted',
      _count: { members: 2, groups: 1, grants: 2 },
    });
    const empty = await org.f.makeDepartment();
    const again = await as(org.cast.admin).get('/api/departments');
    expect(again.body.departments.find((x: any) => x.id === empty.id)._count).toEqual({ members: 0, groups: 0, grants: 0 });
  });

  it('admin, superadmin and the CEO see every department; a manager sees only their own', async () => {
    for (const who of ['admin', 'superadmin', 'ceo'] as Who[]) {
      const ids = (await as(org.cast[who]).get('/api/departments')).body.departments.map((d: any) => d.id);
      expect(ids).toEqual(expect.arrayContaining([org.cast.dept.id, org.cast.otherDept.id]));
    }
    const mine = (await as(org.cast.manager).get('/api/departments')).body.departments.map((d: any) => d.id);
    expect(mine).toEqual([org.cast.dept.id]);
  });

  it('a manager without a department is no department manager (403)', async () => {
    const floating = await org.f.makeUser({ orgPosition: 'manager' });
    expect((await as(floating).get('/api/departments')).status).toBe(403);
  });
});

describe('GET /departments/:id', () => {
  it('answers {department} with _count', async () => {
    const res = await as(org.cast.manager).get(`/api/departments/${org.cast.dept.id}`);
    expect(res.status).toBe(200);
    expect(res.body.department).toEqual(
      expect.objectContaining({
        id: org.cast.dept.id,
        name: org.cast.dept.name,
        _count: expect.objectContaining({ members: expect.any(Number) }),
      }),
    );
  });

  it('404 not_found for an unknown id; 404 for a malformed one', async () => {
    const unknown = await as(org.cast.admin).get(`/api/departments/${randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'not_found', message: 'Department not found' });
    for (const bad of ['nope', '123', 'a'.repeat(300)]) expect((await as(org.cast.admin).get(`/api/departments/${bad}`)).status).toBe(404);
  });
});

describe('POST /departments', () => {
  it('creates: 201 {department}; color and description default', async () => {
    const name = `  Research ${tag()}  `;
    const res = await as(org.cast.admin).post('/api/departments', { name });
    expect(res.status).toBe(201);
    expect(res.body.department).toEqual({
      id: expect.any(String),
      name: name.trim(),
      color: expect.stringMatching(/^#[0-9a-f]{6}$/i),
      description: '',
      _count: { members: 0, groups: 0, grants: 0 },
    });
    const full = await as(org.cast.superadmin).post('/api/departments', { name: `Sales ${tag()}`, color: '#00AAFF', description: 'Sells' });
    expect(full.body.department).toEqual(expect.objectContaining({ color: '#00AAFF', description: 'Sells' }));
  });

  it('409 department_name_exists for a taken name', async () => {
    const res = await as(org.cast.admin).post('/api/departments', { name: org.cast.dept.name });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('department_name_exists');
  });

  it('concurrent creations of one name: exactly one succeeds', async () => {
    const name = `Race ${tag()}`;
    const results = await Promise.all(Array.from({ length: 5 }, () => as(org.cast.admin).post('/api/departments', { name })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error).toBe('department_name_exists');
  });

  it.each([
    ['a missing name', { color: '#000000' }],
    ['a blank name', { name: '  ' }],
    ['a numeric name', { name: 7 }],
    ['a bad colour', { name: `C ${tag()}`, color: 'red' }],
    ['a non-string description', { name: `D ${tag()}`, description: ['x'] }],
    ['an unknown field', { name: `U ${tag()}`, budget: 1 }],
    ['a null color', { name: `N ${tag()}`, color: null }],
  ])('400 validation_failed for %s', async (_label, body) => {
    const res = await as(org.cast.admin).post('/api/departments', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
  });
});

describe('PATCH /departments/:id', () => {
  it('updates the fields and answers {department}', async () => {
    const d = await org.f.makeDepartment();
    const res = await as(org.cast.admin).patch(`/api/departments/${d.id}`, {
      name: `Renamed ${tag()}`,
      color: '#abcdef',
      description: 'New',
    });
    expect(res.status).toBe(200);
    expect(res.body.department).toEqual(
      expect.objectContaining({ id: d.id, color: '#abcdef', description: 'New', _count: { members: 0, groups: 0, grants: 0 } }),
    );
    expect(res.body.department.name).toMatch(/^Renamed /);
  });

  it("the department's own manager may update it", async () => {
    const d = await org.f.makeDepartment();
    const boss = await org.f.makeUser({ orgPosition: 'manager', department: d });
    const res = await as(boss).patch(`/api/departments/${d.id}`, { description: 'Managed' });
    expect(res.status).toBe(200);
    expect(res.body.department.description).toBe('Managed');
    // a member of the same department is not a manager
    const member = await org.f.makeUser({ department: d });
    expect((await as(member).patch(`/api/departments/${d.id}`, { description: 'x' })).status).toBe(403);
  });

  it('409 department_name_exists when renaming onto a taken name; keeping the own name is fine', async () => {
    const d = await org.f.makeDepartment();
    const taken = await as(org.cast.admin).patch(`/api/departments/${d.id}`, { name: org.cast.otherDept.name });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toBe('department_name_exists');
    expect((await as(org.cast.admin).patch(`/api/departments/${d.id}`, { name: d.name })).status).toBe(200);
  });

  it.each([
    ['an unknown field', { head: 'x' }],
    ['a null name', { name: null }],
    ['a bad colour', { color: '#12345' }],
    ['a numeric description', { description: 3 }],
  ])('400 validation_failed for %s', async (_label, body) => {
    const res = await as(org.cast.admin).patch(`/api/departments/${org.cast.otherDept.id}`, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
  });

  it('404 for an unknown or malformed id', async () => {
    expect((await as(org.cast.admin).patch(`/api/departments/${randomUUID()}`, { name: 'x' })).status).toBe(404);
    expect((await as(org.cast.admin).patch('/api/departments/bad-id', { name: 'x' })).status).toBe(404);
  });
});

describe('DELETE /departments/:id', () => {
  it('deletes an unreferenced department: {success: true, id}', async () => {
    const d = await org.f.makeDepartment();
    const res = await as(org.cast.admin).delete(`/api/departments/${d.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: d.id });
    expect((await as(org.cast.admin).get(`/api/departments/${d.id}`)).status).toBe(404);
  });

  it('409 department_has_members while a user belongs to it', async () => {
    const d = await org.f.makeDepartment();
    await org.f.makeUser({ department: d });
    const res = await as(org.cast.admin).delete(`/api/departments/${d.id}`);
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('department_has_members');
    expect(res.body.message).toMatch(/member/);
  });

  it('409 department_has_groups while a group exists under it', async () => {
    const d = await org.f.makeDepartment();
    await org.f.makeGroup({ department: d });
    const res = await as(org.cast.admin).delete(`/api/departments/${d.id}`);
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('department_has_groups');
    expect(res.body.message).toMatch(/group/);
  });

  it('409 department_has_grants while a grant references it', async () => {
    const d = await org.f.makeDepartment();
    await org.f.makeGrant({ department: d });
    const res = await as(org.cast.admin).delete(`/api/departments/${d.id}`);
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('department_has_grants');
    expect(res.body.message).toMatch(/grant/);
    expect((await as(org.cast.admin).get(`/api/departments/${d.id}`)).status).toBe(200);
  });

  it('404 for an unknown or malformed id', async () => {
    expect((await as(org.cast.admin).delete(`/api/departments/${randomUUID()}`)).status).toBe(404);
    expect((await as(org.cast.admin).delete('/api/departments/%20')).status).toBe(404);
  });

  it('a delete racing member additions never leaves a member pointing at a deleted department', async () => {
    for (let i = 0; i < 3; i++) {
      const d = await org.f.makeDepartment();
      const u = await org.f.makeUser();
      const [del, add] = await Promise.all([
        as(org.cast.admin).delete(`/api/departments/${d.id}`),
        as(org.cast.admin).post(`/api/departments/${d.id}/members`, { userIds: [u.id] }),
      ]);
      expect(del.status === 200 ? [404, 409] : [200]).toContain(add.status);
      if (del.status !== 200) expect(del.body.error).toBe('department_has_members');
      const after = await deptOf(u.id);
      expect(after === null || after === d.id).toBe(true);
    }
  });
});

describe('department members', () => {
  let d: Department;
  beforeEach(async () => {
    d = await org.f.makeDepartment();
  });

  it('GET /:id/members answers {members: [user summary]}', async () => {
    const a = await org.f.makeUser({ department: d, name: 'A member' });
    const b = await org.f.makeUser({ department: d, name: 'B manager', orgPosition: 'manager' });
    const res = await as(org.cast.ceo).get(`/api/departments/${d.id}/members`);
    expect(res.status).toBe(200);
    expect(res.body.members.map((m: any) => m.id)).toEqual([a.id, b.id]);
    expect(res.body.members[0]).toEqual({
      id: a.id,
      name: 'A member',
      email: a.email,
      avatarColor: a.avatarColor,
      avatarUrl: null,
      platformRole: 'none',
      orgPosition: 'member',
      departmentId: d.id,
      status: 'active',
    });
    expect(res.text).not.toMatch(/password/i);
  });

  it('GET /:id/members: 404 for an unknown department (admin)', async () => {
    const res = await as(org.cast.admin).get(`/api/departments/${randomUUID()}/members`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'Department not found' });
  });

  it('POST /:id/members adds users and answers {members}; re-adding is harmless', async () => {
    const a = await org.f.makeUser();
    const b = await org.f.makeUser();
    const res = await as(org.cast.admin).post(`/api/departments/${d.id}/members`, { userIds: [a.id, b.id, a.id] });
    expect(res.status).toBe(200);
    expect(res.body.members.map((m: any) => m.id).sort()).toEqual([a.id, b.id].sort());
    expect(await deptOf(a.id)).toBe(d.id);
    const again = await as(org.cast.admin).post(`/api/departments/${d.id}/members`, { userIds: [a.id] });
    expect(again.status).toBe(200);
    expect(again.body.members).toHaveLength(2);
  });

  it('spec rule 1: 409 user_in_other_department without replace, all or nothing', async () => {
    const free = await org.f.makeUser();
    const elsewhere = await org.f.makeUser({ department: org.cast.otherDept });
    const res = await as(org.cast.admin).post(`/api/departments/${d.id}/members`, { userIds: [free.id, elsewhere.id] });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('user_in_other_department');
    expect(res.body.message).toContain(elsewhere.id);
    expect(await deptOf(free.id)).toBeNull();
    expect(await deptOf(elsewhere.id)).toBe(org.cast.otherDept.id);
    const noReplace = await as(org.cast.admin).post(`/api/departments/${d.id}/members`, { userIds: [elsewhere.id], replace: false });
    expect(noReplace.status).toBe(409);
  });

  it("spec rule 1: replace: true moves the user, who leaves the old department's groups", async () => {
    const old = await org.f.makeDepartment();
    const mover = await org.f.makeUser({ department: old });
    const oldGroup = await org.f.makeGroup({ department: old, members: [mover] });
    const res = await as(org.cast.admin).post(`/api/departments/${d.id}/members`, { userIds: [mover.id], replace: true });
    expect(res.status).toBe(200);
    expect(await deptOf(mover.id)).toBe(d.id);
    expect(await sql(`select 1 from group_members where group_id = ? and user_id = ?`, [oldGroup.id, mover.id])).toHaveLength(0);
    // the old department no longer lists them
    expect((await as(org.cast.admin).get(`/api/departments/${old.id}/members`)).body.members).toEqual([]);
  });

  it('400 validation_failed (field userIds) for unknown user ids, and nothing is added', async () => {
    const real = await org.f.makeUser();
    const ghost = randomUUID();
    const res = await as(org.cast.admin).post(`/api/departments/${d.id}/members`, { userIds: [real.id, ghost] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
    expect(res.body.details).toEqual([{ field: 'userIds', message: `Unknown user id(s): ${ghost}` }]);
    expect(await deptOf(real.id)).toBeNull();
  });

  it('400 validation_failed (field userIds) for platform staff and the CEO', async () => {
    for (const u of [org.cast.engineer, org.cast.admin, org.cast.ceo]) {
      const res = await as(org.cast.superadmin).post(`/api/departments/${d.id}/members`, { userIds: [u.id] });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details).toEqual([{ field: 'userIds', message: expect.stringMatching(/do not belong to a department: .*/) }]);
      expect(res.body.details[0].message).toContain(u.id);
      expect(await deptOf(u.id)).toBeNull();
    }
  });

  it('404 for an unknown or malformed department', async () => {
    const u = await org.f.makeUser();
    expect((await as(org.cast.admin).post(`/api/departments/${randomUUID()}/members`, { userIds: [u.id] })).status).toBe(404);
    expect((await as(org.cast.admin).post('/api/departments/xyz/members', { userIds: [u.id] })).status).toBe(404);
  });

  it.each([
    ['a missing userIds', {}],
    ['an empty userIds', { userIds: [] }],
    ['a malformed user id', { userIds: ['not-a-uuid'] }],
    ['a string instead of an array', { userIds: 'abc' }],
    ['a non-boolean replace', { userIds: [randomUUID()], replace: 'yes' }],
    ['an unknown field', { userIds: [randomUUID()], force: true }],
  ])('400 validation_failed for %s', async (_label, body) => {
    const res = await as(org.cast.admin).post(`/api/departments/${d.id}/members`, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
  });

  it("DELETE /:id/members/:userId sets departmentId null and drops the department's groups", async () => {
    const u = await org.f.makeUser({ department: d });
    const g = await org.f.makeGroup({ department: d, members: [u] });
    const res = await as(org.cast.admin).delete(`/api/departments/${d.id}/members/${u.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: u.id });
    expect(await deptOf(u.id)).toBeNull();
    expect(await sql(`select 1 from group_members where group_id = ? and user_id = ?`, [g.id, u.id])).toHaveLength(0);
  });

  it('spec rule 3: the department manager and the CEO may remove members; another manager may not', async () => {
    const boss = await org.f.makeUser({ orgPosition: 'manager', department: d });
    const a = await org.f.makeUser({ department: d });
    const b = await org.f.makeUser({ department: d });
    expect((await as(boss).delete(`/api/departments/${d.id}/members/${a.id}`)).status).toBe(200);
    expect((await as(org.cast.ceo).delete(`/api/departments/${d.id}/members/${b.id}`)).status).toBe(200);
    const c = await org.f.makeUser({ department: d });
    expect((await as(org.cast.otherManager).delete(`/api/departments/${d.id}/members/${c.id}`)).status).toBe(403);
    expect(await deptOf(c.id)).toBe(d.id);
  });

  it('a manager cannot remove a member of another department through their own department', async () => {
    const boss = await org.f.makeUser({ orgPosition: 'manager', department: d });
    const victim = await org.f.makeUser({ department: org.cast.otherDept });
    const res = await as(boss).delete(`/api/departments/${d.id}/members/${victim.id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'The user is not a member of this department' });
    expect(await deptOf(victim.id)).toBe(org.cast.otherDept.id);
  });

  it('404 not_found for a non-member, an unknown and a malformed user id', async () => {
    const outsider = await org.f.makeUser();
    for (const id of [outsider.id, randomUUID(), 'nope']) {
      const res = await as(org.cast.admin).delete(`/api/departments/${d.id}/members/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not_found', message: 'The user is not a member of this department' });
    }
    expect((await as(org.cast.admin).delete(`/api/departments/nope/members/${outsider.id}`)).status).toBe(404);
  });
});
