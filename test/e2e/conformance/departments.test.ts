/**
 * Spec conformance, black box (departments and groups): exact key sets, statuses and error bodies.
 * Each describe works on its own app and organisation (test/support/conformance-world.ts).
 */
import { randomUUID } from 'node:crypto';
import { client } from '../../support/http';
import { keys, expectUuid, expectIso, expectError, expectValidation, expectDepartment } from '../../support/conformance-shapes';
import { useWorld } from '../../support/conformance-world';

jest.setTimeout(120_000);

describe('departments: create', () => {
  const w = useWorld('bootstrapped');

  it('POST /departments: 201 {department}', async () => {
    const { root, anon } = w;
    expectError(await anon().post('/api/departments', { name: 'X' }), 401, 'unauthorized');
    const res = await root.post('/api/departments', { name: 'Sales', color: '#10b981', description: 'Sells things' });
    expect(res.status).toBe(201);
    expect(keys(res.body)).toEqual(['department']);
    expectDepartment(res.body.department);
    expect(res.body.department).toEqual(expect.objectContaining({ name: 'Sales', color: '#10b981', description: 'Sells things' }));
  });
});

describe('departments', () => {
  const w = useWorld('people');

  it('a duplicate name is a 409; a huge name is a 400; a Unicode name works', async () => {
    const { root } = w;
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

  it('GET /departments: {departments} with _count {members, groups, grants}', async () => {
    const { admin, sales } = w;
    const res = await admin.get('/api/departments');
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['departments']);
    for (const d of res.body.departments) expectDepartment(d);
    expect(res.body.departments.find((d: any) => d.id === sales.id)._count).toEqual({ members: 2, groups: 0, grants: 0 });
  });

  it('PATCH /departments/:id: {department}; the own manager may update', async () => {
    const { t, sales, tokenFor } = w;
    const mgr = client(t.baseUrl, await tokenFor('mgr@example.com', 'manager-password'));
    const res = await mgr.patch(`/api/departments/${sales.id}`, { description: 'Sales & Success' });
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['department']);
    expectDepartment(res.body.department);
    expect(res.body.department.description).toBe('Sales & Success');
    expectError(await mgr.post('/api/departments', { name: 'Nope', color: '#000000', description: '' }), 403);
  });

  it('members: GET {members}, POST {members}, DELETE {success, id}; 409 for another department without replace', async () => {
    const { admin, sales, manager, memberUser } = w;
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
    const { admin, sales } = w;
    const res = await admin.delete(`/api/departments/${sales.id}`);
    expectError(res, 409);
    expect(res.body.error).toMatch(/member/);
  });
});

describe('groups', () => {
  const w = useWorld('people');

  it('POST/GET/PATCH /groups, members, with {group} and {groups} wrappers', async () => {
    const { admin, sales, memberUser } = w;
    const res = await admin.post('/api/groups', { name: 'Closers 🔒', departmentId: sales.id });
    expect(res.status).toBe(201);
    expect(keys(res.body)).toEqual(['group']);
    const g = res.body.group;
    expectUuid(g.id);
    expect(g.name).toBe('Closers 🔒');
    expect(g.department).toEqual({ id: sales.id, name: sales.name, color: sales.color });
    expectIso(g.createdAt);
    const groupId = g.id;

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
