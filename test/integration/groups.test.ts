import { randomUUID } from 'node:crypto';
import type { Group } from '../../src/entities';
import { authorizationMatrix, Caller, orgSuite, requiresAuthentication, tag, Who } from '../support/org-suite';

const org = orgSuite();
const { as, sql } = org;
const memberIds = async (groupId: string): Promise<string[]> =>
  (await sql(`select user_id from group_members where group_id = ? order by user_id`, [groupId])).map((r) => r.user_id);

// fixed ids: they are part of the test names, which `jest -t` selects by
const fixedId = '00000000-0000-4000-8000-000000000000';
requiresAuthentication(org, [
  ['GET', '/api/groups', undefined],
  ['POST', '/api/groups', { name: 'x', departmentId: randomUUID() }],
  ['GET', `/api/groups/${fixedId}`, undefined],
  ['PATCH', `/api/groups/${fixedId}`, { name: 'x' }],
  ['DELETE', `/api/groups/${fixedId}`, undefined],
  ['POST', `/api/groups/${fixedId}/members`, { userIds: [randomUUID()] }],
  ['DELETE', `/api/groups/${fixedId}/members/00000000-0000-4000-8000-000000000001`, undefined],
]);

/**
 * DESIGN §3/§4: read by admin, superadmin, the CEO and the manager of the group's department;
 * written by admin, superadmin and that manager. The groups acted on belong to the cast's `dept`.
 */
describe('authorization matrix', () => {
  const matrix: Array<[string, Who[]]> = [
    ['GET /groups', ['manager', 'otherManager', 'admin', 'superadmin', 'ceo']],
    ['GET /groups/:id', ['manager', 'admin', 'superadmin', 'ceo']],
    ['POST /groups', ['manager', 'admin', 'superadmin']],
    ['PATCH /groups/:id', ['manager', 'admin', 'superadmin']],
    ['DELETE /groups/:id', ['manager', 'admin', 'superadmin']],
    ['POST /groups/:id/members', ['manager', 'admin', 'superadmin']],
    ['DELETE /groups/:id/members/:userId', ['manager', 'admin', 'superadmin']],
  ];

  async function perform(op: string, caller: Caller) {
    const c = as(caller);
    const dept = org.cast.dept;
    const group = await org.f.makeGroup({ department: dept });
    switch (op) {
      case 'GET /groups':
        return c.get('/api/groups');
      case 'GET /groups/:id':
        return c.get(`/api/groups/${group.id}`);
      case 'POST /groups':
        return c.post('/api/groups', { name: `Matrix ${tag()}`, departmentId: dept.id });
      case 'PATCH /groups/:id':
        return c.patch(`/api/groups/${group.id}`, { description: 'changed' });
      case 'DELETE /groups/:id':
        return c.delete(`/api/groups/${group.id}`);
      case 'POST /groups/:id/members': {
        const u = await org.f.makeUser({ department: dept });
        return c.post(`/api/groups/${group.id}/members`, { userIds: [u.id] });
      }
      case 'DELETE /groups/:id/members/:userId': {
        const u = await org.f.makeUser({ department: dept });
        const g = await org.f.makeGroup({ department: dept, members: [u] });
        return c.delete(`/api/groups/${g.id}/members/${u.id}`);
      }
      default:
        throw new Error(op);
    }
  }

  authorizationMatrix(org, matrix, perform);

  it('a refused write changes nothing', async () => {
    const inside = await org.f.makeUser({ department: org.cast.dept });
    const newcomer = await org.f.makeUser({ department: org.cast.dept });
    const g = await org.f.makeGroup({ department: org.cast.dept, members: [inside] });
    for (const who of ['member', 'otherManager', 'engineer', 'ceo'] as Who[]) {
      const c = as(org.cast[who]);
      await c.patch(`/api/groups/${g.id}`, { name: 'Hijacked' });
      await c.post(`/api/groups/${g.id}/members`, { userIds: [newcomer.id] });
      await c.delete(`/api/groups/${g.id}/members/${inside.id}`);
      await c.delete(`/api/groups/${g.id}`);
    }
    const [row] = await sql(`select name from groups where id = ?`, [g.id]);
    expect(row.name).toBe(g.name);
    expect(await memberIds(g.id)).toEqual([inside.id]);
  });

  it('non-readers learn nothing from unknown ids: 403, not 404', async () => {
    for (const who of ['member', 'engineer'] as Who[]) {
      expect((await as(org.cast[who]).get(`/api/groups/${randomUUID()}`)).status).toBe(403);
      expect((await as(org.cast[who]).patch(`/api/groups/${randomUUID()}`, { name: 'x' })).status).toBe(403);
    }
  });
});

describe('GET /groups', () => {
  it('answers {groups} with department and memberCount', async () => {
    const a = await org.f.makeUser({ department: org.cast.dept });
    const b = await org.f.makeUser({ department: org.cast.dept });
    const g = await org.f.makeGroup({ department: org.cast.dept, members: [a, b], name: `Listed ${tag()}` });
    const res = await as(org.cast.admin).get('/api/groups');
    expect(res.status).toBe(200);
    expect(res.body.groups.find((x: any) => x.id === g.id)).toEqual({
      id: g.id,
      name: g.name,
      description: '',
      departmentId: org.cast.dept.id,
      department: { id: org.cast.dept.id, name: org.cast.dept.name, color: org.cast.dept.color },
      memberCount: 2,
      createdAt: expect.any(String),
    });
  });

  it("admin, superadmin and the CEO see every department's groups; a manager only their own", async () => {
    const mine = await org.f.makeGroup({ department: org.cast.dept });
    const theirs = await org.f.makeGroup({ department: org.cast.otherDept });
    for (const who of ['admin', 'superadmin', 'ceo'] as Who[]) {
      const ids = (await as(org.cast[who]).get('/api/groups')).body.groups.map((g: any) => g.id);
      expect(ids).toEqual(expect.arrayContaining([mine.id, theirs.id]));
    }
    const managerSees = (await as(org.cast.manager).get('/api/groups')).body.groups;
    expect(managerSees.map((g: any) => g.id)).toContain(mine.id);
    expect(managerSees.every((g: any) => g.departmentId === org.cast.dept.id)).toBe(true);
  });

  it('filters by departmentId; a manager asking for another department gets 403', async () => {
    const g = await org.f.makeGroup({ department: org.cast.otherDept });
    const res = await as(org.cast.admin).get(`/api/groups?departmentId=${org.cast.otherDept.id}`);
    expect(res.body.groups.map((x: any) => x.id)).toContain(g.id);
    expect(res.body.groups.every((x: any) => x.departmentId === org.cast.otherDept.id)).toBe(true);
    expect((await as(org.cast.manager).get(`/api/groups?departmentId=${org.cast.otherDept.id}`)).status).toBe(403);
    expect((await as(org.cast.manager).get(`/api/groups?departmentId=${org.cast.dept.id}`)).status).toBe(200);
  });

  it.each([['departmentId=nope'], ['foo=bar']])('400 validation_failed for the query %s', async (qs) => {
    const res = await as(org.cast.admin).get(`/api/groups?${qs}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
  });
});

describe('GET /groups/:id', () => {
  it('answers {group} with its members (user summaries), ordered by name', async () => {
    const zed = await org.f.makeUser({ department: org.cast.dept, name: 'Zed' });
    const amy = await org.f.makeUser({ department: org.cast.dept, name: 'Amy' });
    const g = await org.f.makeGroup({ department: org.cast.dept, members: [zed, amy] });
    const res = await as(org.cast.ceo).get(`/api/groups/${g.id}`);
    expect(res.status).toBe(200);
    expect(res.body.group).toEqual(expect.objectContaining({ id: g.id, memberCount: 2, departmentId: org.cast.dept.id }));
    expect(res.body.group.members.map((m: any) => m.id)).toEqual([amy.id, zed.id]);
    expect(res.body.group.members[0]).toEqual(
      expect.objectContaining({ id: amy.id, name: 'Amy', email: amy.email, departmentId: org.cast.dept.id }),
    );
    expect(res.text).not.toMatch(/password/i);
  });

  it('404 not_found for an unknown id; 404 for a malformed one', async () => {
    const unknown = await as(org.cast.admin).get(`/api/groups/${randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'not_found', message: 'Group not found' });
    expect((await as(org.cast.admin).get('/api/groups/not-a-uuid')).status).toBe(404);
    expect((await as(org.cast.manager).get('/api/groups/not-a-uuid')).status).toBe(404);
  });
});

describe('POST /groups', () => {
  it('creates: 201 {group} with no members', async () => {
    const res = await as(org.cast.manager).post('/api/groups', {
      name: `  Design ${tag()} `,
      description: 'Pixels',
      departmentId: org.cast.dept.id,
    });
    expect(res.status).toBe(201);
    expect(res.body.group).toEqual({
      id: expect.any(String),
      name: expect.stringMatching(/^Design [0-9a-f]{8}$/),
      description: 'Pixels',
      departmentId: org.cast.dept.id,
      department: { id: org.cast.dept.id, name: org.cast.dept.name, color: org.cast.dept.color },
      memberCount: 0,
      members: [],
      createdAt: expect.any(String),
    });
  });

  it('a manager creates groups only in their own department', async () => {
    const res = await as(org.cast.manager).post('/api/groups', { name: `Elsewhere ${tag()}`, departmentId: org.cast.otherDept.id });
    expect(res.status).toBe(403);
    expect(await sql(`select 1 from groups where department_id = ? and name like 'Elsewhere%'`, [org.cast.otherDept.id])).toHaveLength(0);
  });

  it('400 validation_failed (field departmentId) for an unknown department', async () => {
    const res = await as(org.cast.admin).post('/api/groups', { name: 'Orphan', departmentId: randomUUID() });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
    expect(res.body.details).toEqual([{ field: 'departmentId', message: 'Department not found' }]);
  });

  it('409 group_name_exists for a name taken in the same department; other departments may reuse it', async () => {
    const name = `Dup ${tag()}`;
    expect((await as(org.cast.admin).post('/api/groups', { name, departmentId: org.cast.dept.id })).status).toBe(201);
    const dup = await as(org.cast.admin).post('/api/groups', { name, departmentId: org.cast.dept.id });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toBe('group_name_exists');
    expect((await as(org.cast.admin).post('/api/groups', { name, departmentId: org.cast.otherDept.id })).status).toBe(201);
  });

  it('concurrent creations of one name in one department: exactly one succeeds', async () => {
    const name = `Race ${tag()}`;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => as(org.cast.admin).post('/api/groups', { name, departmentId: org.cast.dept.id })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it.each([
    ['a missing name', { departmentId: randomUUID() }],
    ['a missing departmentId', { name: 'x' }],
    ['a malformed departmentId', { name: 'x', departmentId: 'dept' }],
    ['a numeric name', { name: 5, departmentId: randomUUID() }],
    ['a blank name', { name: ' ', departmentId: randomUUID() }],
    ['an unknown field', { name: 'x', departmentId: randomUUID(), members: [] }],
  ])('400 validation_failed for %s', async (_label, body) => {
    const res = await as(org.cast.admin).post('/api/groups', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
  });
});

describe('PATCH /groups/:id', () => {
  it('renames and re-describes; answers {group}', async () => {
    const g = await org.f.makeGroup({ department: org.cast.dept });
    const res = await as(org.cast.manager).patch(`/api/groups/${g.id}`, { name: `Renamed ${tag()}`, description: 'Now described' });
    expect(res.status).toBe(200);
    expect(res.body.group).toEqual(expect.objectContaining({ id: g.id, description: 'Now described', memberCount: 0, members: [] }));
    expect(res.body.group.name).toMatch(/^Renamed /);
  });

  it('the department is fixed: departmentId is not an updatable field', async () => {
    const g = await org.f.makeGroup({ department: org.cast.dept });
    const res = await as(org.cast.admin).patch(`/api/groups/${g.id}`, { departmentId: org.cast.otherDept.id });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
  });

  it("409 group_name_exists when renaming onto a sibling's name", async () => {
    const a = await org.f.makeGroup({ department: org.cast.dept });
    const b = await org.f.makeGroup({ department: org.cast.dept });
    const res = await as(org.cast.admin).patch(`/api/groups/${b.id}`, { name: a.name });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('group_name_exists');
  });

  it.each([
    ['a null name', { name: null }],
    ['a numeric description', { description: 1 }],
    ['an unknown field', { color: '#fff' }],
  ])('400 validation_failed for %s', async (_label, body) => {
    const g = await org.f.makeGroup({ department: org.cast.dept });
    expect((await as(org.cast.admin).patch(`/api/groups/${g.id}`, body)).status).toBe(400);
  });

  it('404 for an unknown or malformed id', async () => {
    expect((await as(org.cast.admin).patch(`/api/groups/${randomUUID()}`, { name: 'x' })).status).toBe(404);
    expect((await as(org.cast.admin).patch('/api/groups/123', { name: 'x' })).status).toBe(404);
  });
});

describe('DELETE /groups/:id', () => {
  it('deletes the group and its memberships: {success: true, id}; the users remain', async () => {
    const u = await org.f.makeUser({ department: org.cast.dept });
    const g = await org.f.makeGroup({ department: org.cast.dept, members: [u] });
    const res = await as(org.cast.manager).delete(`/api/groups/${g.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: g.id });
    expect(await memberIds(g.id)).toEqual([]);
    expect(await sql(`select 1 from users where id = ?`, [u.id])).toHaveLength(1);
    expect((await as(org.cast.admin).get(`/api/groups/${g.id}`)).status).toBe(404);
  });

  it('409 group_has_grants while a project grant targets the group (no grant disappears unaudited)', async () => {
    const g = await org.f.makeGroup({ department: org.cast.dept });
    const grant = await org.f.makeGrant({ group: g, tier: 'edit' });
    const res = await as(org.cast.admin).delete(`/api/groups/${g.id}`);
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('group_has_grants');
    expect(await sql(`select 1 from project_grants where id = ?`, [grant.id])).toHaveLength(1);
  });

  it('404 for an unknown or malformed id', async () => {
    expect((await as(org.cast.admin).delete(`/api/groups/${randomUUID()}`)).status).toBe(404);
    expect((await as(org.cast.admin).delete('/api/groups/x')).status).toBe(404);
  });
});

describe('group members', () => {
  let g: Group;
  beforeEach(async () => {
    g = await org.f.makeGroup({ department: org.cast.dept });
  });

  it('POST /:id/members adds users of the department and answers {group}; re-adding is harmless', async () => {
    const a = await org.f.makeUser({ department: org.cast.dept });
    const b = await org.f.makeUser({ department: org.cast.dept });
    const res = await as(org.cast.manager).post(`/api/groups/${g.id}/members`, { userIds: [a.id, b.id, b.id] });
    expect(res.status).toBe(200);
    expect(res.body.group.memberCount).toBe(2);
    expect(res.body.group.members.map((m: any) => m.id).sort()).toEqual([a.id, b.id].sort());
    const again = await as(org.cast.manager).post(`/api/groups/${g.id}/members`, { userIds: [a.id] });
    expect(again.status).toBe(200);
    expect(again.body.group.memberCount).toBe(2);
  });

  it("409 user_not_in_department for users outside the group's department, all or nothing", async () => {
    const inside = await org.f.makeUser({ department: org.cast.dept });
    const outside = await org.f.makeUser({ department: org.cast.otherDept });
    const none = await org.f.makeUser();
    for (const stranger of [outside, none, org.cast.admin]) {
      const res = await as(org.cast.admin).post(`/api/groups/${g.id}/members`, { userIds: [inside.id, stranger.id] });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('user_not_in_department');
      expect(res.body.message).toContain(stranger.id);
    }
    expect(await memberIds(g.id)).toEqual([]);
  });

  it('400 validation_failed (field userIds) for unknown user ids, and nothing is added', async () => {
    const inside = await org.f.makeUser({ department: org.cast.dept });
    const ghost = randomUUID();
    const res = await as(org.cast.admin).post(`/api/groups/${g.id}/members`, { userIds: [inside.id, ghost] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
    expect(res.body.details).toEqual([{ field: 'userIds', message: `Unknown user id(s): ${ghost}` }]);
    expect(await memberIds(g.id)).toEqual([]);
  });

  it.each([
    ['a missing userIds', {}],
    ['an empty userIds', { userIds: [] }],
    ['a malformed id', { userIds: ['abc'] }],
    ['a number', { userIds: 3 }],
    ['an unknown field', { userIds: [randomUUID()], replace: true }],
  ])('400 validation_failed for %s', async (_label, body) => {
    const res = await as(org.cast.admin).post(`/api/groups/${g.id}/members`, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
  });

  it('404 for an unknown or malformed group', async () => {
    const u = await org.f.makeUser({ department: org.cast.dept });
    expect((await as(org.cast.admin).post(`/api/groups/${randomUUID()}/members`, { userIds: [u.id] })).status).toBe(404);
    expect((await as(org.cast.admin).post('/api/groups/bad/members', { userIds: [u.id] })).status).toBe(404);
  });

  it('DELETE /:id/members/:userId removes one membership: {success: true, id}', async () => {
    const a = await org.f.makeUser({ department: org.cast.dept });
    const b = await org.f.makeUser({ department: org.cast.dept });
    const grp = await org.f.makeGroup({ department: org.cast.dept, members: [a, b] });
    const res = await as(org.cast.manager).delete(`/api/groups/${grp.id}/members/${a.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: a.id });
    expect(await memberIds(grp.id)).toEqual([b.id]);
    // the user keeps their department
    expect((await sql(`select department_id from users where id = ?`, [a.id]))[0].department_id).toBe(org.cast.dept.id);
  });

  it('404 member_not_found for a non-member, an unknown and a malformed user id', async () => {
    const outsider = await org.f.makeUser({ department: org.cast.dept });
    for (const id of [outsider.id, randomUUID(), 'zzz']) {
      const res = await as(org.cast.admin).delete(`/api/groups/${g.id}/members/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not_found', message: 'The user is not a member of this group' });
    }
  });

  it('a membership never survives its user moving department, even when both happen at once', async () => {
    for (let i = 0; i < 5; i++) {
      const grp = await org.f.makeGroup({ department: org.cast.dept });
      const u = await org.f.makeUser({ department: org.cast.dept });
      await Promise.all([
        as(org.cast.admin).post(`/api/groups/${grp.id}/members`, { userIds: [u.id] }),
        as(org.cast.admin).post(`/api/departments/${org.cast.otherDept.id}/members`, { userIds: [u.id], replace: true }),
      ]);
      const [row] = await sql(`select department_id from users where id = ?`, [u.id]);
      expect(row.department_id).toBe(org.cast.otherDept.id);
      expect(await memberIds(grp.id)).toEqual([]);
    }
  });
});
