import { randomUUID } from 'node:crypto';
import { createTestApp, TestApp } from '../support/test-app';
import { api, client } from '../support/http';
import { factories } from '../support/factories';
import { projectFixtures } from '../support/project-fixtures';
import { expectShape } from '../support/openapi-validator';

let t: TestApp;
let f: ReturnType<typeof factories>;
let fx: ReturnType<typeof projectFixtures>;

beforeAll(async () => {
  t = await createTestApp();
  f = factories(t.orm, t.services);
  fx = projectFixtures(t.orm);
});
afterAll(async () => t?.close());

const as = (u: { token: string }) => client(t.baseUrl, u.token);

/** A project and a caller holding `full` on it through a user grant (not platform staff). */
async function projectWithManager() {
  const project = await f.makeProject();
  const manager = await f.makeUser();
  await f.makeGrant({ project, user: manager, tier: 'full' });
  return { project, manager };
}

describe('POST /api/projects/:projectId/grants', () => {
  it('requires authentication', async () => {
    const p = await f.makeProject();
    const res = await api(t.baseUrl, 'POST', `/api/projects/${p.id}/grants`, {
      body: { targetType: 'user', targetId: randomUUID(), tier: 'use' },
    });
    expect(res.status).toBe(401);
  });

  it('needs full tier: no access and edit get 403; a missing project 404', async () => {
    const { project } = await projectWithManager();
    const target = await f.makeUser();
    const editor = await f.makeUser();
    await f.makeGrant({ project, user: editor, tier: 'edit' });
    const stranger = await f.makeUser();
    for (const c of [editor, stranger]) {
      const res = await as(c).post(`/api/projects/${project.id}/grants`, { targetType: 'user', targetId: target.id, tier: 'use' });
      expect(res.status).toBe(403);
    }
    const missing = await as(editor).post(`/api/projects/${randomUUID()}/grants`, { targetType: 'user', targetId: target.id, tier: 'use' });
    expect(missing.status).toBe(404);
    expect(await fx.countRows('project_grants', 'user_id', target.id)).toBe(0);
  });

  it('creates a user grant (201, action created) with the user nested and syncs a member row', async () => {
    const { project, manager } = await projectWithManager();
    const target = await f.makeUser();
    const res = await as(manager).post(`/api/projects/${project.id}/grants`, { targetType: 'user', targetId: target.id, tier: 'edit' });
    expect(res.status).toBe(201);
    expect(res.body.action).toBe('created');
    expectShape(res.body.grant, 'Grant');
    expect(res.body.grant).toMatchObject({
      projectId: project.id,
      userId: target.id,
      groupId: null,
      departmentId: null,
      tier: 'edit',
      grantedById: manager.id,
      user: { id: target.id, name: target.name, email: target.email },
      group: null,
      department: null,
    });
    const detail = (await as(manager).get(`/api/projects/${project.id}`)).body.project;
    expect(detail.members.map((m: any) => m.userId)).toContain(target.id);
    // the grant gives access at once
    expect((await as(target).patch(`/api/projects/${project.id}`, { instructions: 'x' })).status).toBe(200);
  });

  it('posting the same target again updates it (200, action updated, never 409) and keeps one row', async () => {
    const { project, manager } = await projectWithManager();
    const target = await f.makeUser();
    const first = await as(manager).post(`/api/projects/${project.id}/grants`, { targetType: 'user', targetId: target.id, tier: 'use' });
    const second = await as(manager).post(`/api/projects/${project.id}/grants`, { targetType: 'user', targetId: target.id, tier: 'full' });
    expect(second.status).toBe(200);
    expect(second.body.action).toBe('updated');
    expect(second.body.grant.id).toBe(first.body.grant.id);
    expect(second.body.grant.tier).toBe('full');
    expect(second.body.grant.createdAt).toBe(first.body.grant.createdAt);
    // timestamps are the database's, in the wire's ISO form (UTC, milliseconds), as every other resource shows them
    const [row] = await fx.exec<{ created_ms: string; updated_ms: string }>(
      `select floor(extract(epoch from created_at) * 1000)::bigint::text as created_ms,
              floor(extract(epoch from updated_at) * 1000)::bigint::text as updated_ms
         from project_grants where id = ?`,
      [second.body.grant.id],
    );
    expect(second.body.grant.createdAt).toBe(new Date(Number(row.created_ms)).toISOString());
    expect(second.body.grant.updatedAt).toBe(new Date(Number(row.updated_ms)).toISOString());
    expect(Date.parse(second.body.grant.updatedAt)).toBeGreaterThanOrEqual(Date.parse(second.body.grant.createdAt));
    expect(await fx.countRows('project_grants', 'user_id', target.id)).toBe(1);
    expect(await fx.countRows('project_members', 'user_id', target.id)).toBe(1);
  });

  it('group and department grants nest their target; no member row is added', async () => {
    const { project, manager } = await projectWithManager();
    const dept = await f.makeDepartment({ color: '#ff0000' });
    const member = await f.makeUser({ department: dept });
    const group = await f.makeGroup({ department: dept, members: [member] });
    const g = await as(manager).post(`/api/projects/${project.id}/grants`, { targetType: 'group', targetId: group.id, tier: 'use' });
    expect(g.status).toBe(201);
    expect(g.body.grant).toMatchObject({
      groupId: group.id,
      userId: null,
      departmentId: null,
      user: null,
      department: null,
      group: { id: group.id, name: group.name, department: { name: dept.name } },
    });
    const d = await as(manager).post(`/api/projects/${project.id}/grants`, { targetType: 'department', targetId: dept.id, tier: 'edit' });
    expect(d.status).toBe(201);
    expect(d.body.grant).toMatchObject({
      departmentId: dept.id,
      user: null,
      group: null,
      department: { id: dept.id, name: dept.name, color: '#ff0000' },
    });
    expect(await fx.countRows('project_members', 'user_id', member.id)).toBe(0);
    expect((await as(member).get('/api/projects')).body.projects.find((p: any) => p.id === project.id)).toMatchObject({
      accessTier: 'use',
      accessSource: 'group',
    });
  });

  it.each(['user', 'group', 'department'] as const)('404 target_not_found for a missing %s', async (targetType) => {
    const { project, manager } = await projectWithManager();
    const res = await as(manager).post(`/api/projects/${project.id}/grants`, { targetType, targetId: randomUUID(), tier: 'use' });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('target_not_found');
  });

  it('a target of another type with that id is not found', async () => {
    const { project, manager } = await projectWithManager();
    const user = await f.makeUser();
    const res = await as(manager).post(`/api/projects/${project.id}/grants`, { targetType: 'group', targetId: user.id, tier: 'use' });
    expect(res.body.error).toBe('target_not_found');
  });

  it.each([
    ['missing targetType', { targetId: randomUUID(), tier: 'use' }],
    ['unknown targetType', { targetType: 'team', targetId: randomUUID(), tier: 'use' }],
    ['missing targetId', { targetType: 'user', tier: 'use' }],
    ['malformed targetId', { targetType: 'user', targetId: 'abc', tier: 'use' }],
    ['missing tier', { targetType: 'user', targetId: randomUUID() }],
    ['unknown tier', { targetType: 'user', targetId: randomUUID(), tier: 'owner' }],
    ['a second target alongside', { targetType: 'user', targetId: randomUUID(), groupId: randomUUID(), tier: 'use' }],
    ['target columns instead of targetType', { userId: randomUUID(), tier: 'use' }],
  ])('rejects %s with 400 validation_failed', async (_label, body) => {
    const { project, manager } = await projectWithManager();
    const res = await as(manager).post(`/api/projects/${project.id}/grants`, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
  });

  it('is safe under concurrent posts of one target: one row, one created and the rest updated', async () => {
    const { project, manager } = await projectWithManager();
    const target = await f.makeUser();
    const N = 10;
    const tiers = ['use', 'edit', 'full'] as const;
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        as(manager).post(`/api/projects/${project.id}/grants`, { targetType: 'user', targetId: target.id, tier: tiers[i % 3] }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    expect(results.filter((r) => r.body.action === 'created')).toHaveLength(1);
    expect(new Set(results.map((r) => r.body.grant.id)).size).toBe(1);
    expect(await fx.countRows('project_grants', 'user_id', target.id)).toBe(1);
    expect(await fx.countRows('project_members', 'user_id', target.id)).toBe(1);
    const audit = await fx.exec<{ action: string; metadata: any }>(
      `select action, metadata from audit_entries where target_id = ? order by created_at, id`,
      [target.id],
    );
    expect(audit.filter((a) => a.action === 'grant_created')).toHaveLength(1);
    expect(audit.filter((a) => a.action === 'grant_updated')).toHaveLength(N - 1);
    // the posts took turns, so replaying the history in order is consistent: each update names the
    // tier it replaced exactly when it changed it, and the last entry is the stored tier
    for (let i = 1; i < audit.length; i++) {
      const before = audit[i - 1].metadata.tier;
      const { tier, previousTier } = audit[i].metadata;
      if (tier === before) expect(previousTier).toBeUndefined();
      else expect(previousTier).toBe(before);
    }
    const [stored] = await fx.exec<{ tier: string }>(`select tier from project_grants where user_id = ?`, [target.id]);
    expect(audit[audit.length - 1].metadata.tier).toBe(stored.tier);
    expect(audit.some((a) => a.metadata.previousTier)).toBe(true);
  });
});

describe('GET /api/projects/:projectId/grants', () => {
  it('requires authentication', async () => {
    const p = await f.makeProject();
    expect((await api(t.baseUrl, 'GET', `/api/projects/${p.id}/grants`)).status).toBe(401);
  });

  it('needs use tier: 403 without access, 404 for a missing project', async () => {
    const p = await f.makeProject();
    const stranger = await f.makeUser();
    expect((await as(stranger).get(`/api/projects/${p.id}/grants`)).status).toBe(403);
    expect((await as(stranger).get(`/api/projects/${randomUUID()}/grants`)).status).toBe(404);
  });

  it('lists every grant with tier and the target nested (others null), to a use-tier caller', async () => {
    const p = await f.makeProject();
    const dept = await f.makeDepartment();
    const u = await f.makeUser();
    const group = await f.makeGroup({ department: dept });
    await f.makeGrant({ project: p, user: u, tier: 'use' });
    await f.makeGrant({ project: p, group, tier: 'edit' });
    await f.makeGrant({ project: p, department: dept, tier: 'full' });
    await f.makeGrant({ user: u, tier: 'full' }); // another project's grant
    const res = await as(u).get(`/api/projects/${p.id}/grants`);
    expect(res.status).toBe(200);
    expect(res.body.grants).toHaveLength(3);
    for (const g of res.body.grants) expectShape(g, 'Grant');
    const byTier = Object.fromEntries(res.body.grants.map((g: any) => [g.tier, g]));
    expect(byTier.use).toMatchObject({ user: { id: u.id, name: u.name, email: u.email }, group: null, department: null });
    expect(byTier.edit).toMatchObject({
      user: null,
      group: { id: group.id, name: group.name, department: { name: dept.name } },
      department: null,
    });
    expect(byTier.full).toMatchObject({ user: null, group: null, department: { id: dept.id, name: dept.name, color: dept.color } });
  });

  it('uses a constant number of queries however many grants', async () => {
    const counts: number[] = [];
    for (const n of [2, 30]) {
      const p = await f.makeProject();
      const admin = await f.makeUser({ platformRole: 'admin' });
      const dept = await f.makeDepartment();
      for (let i = 0; i < n; i++) {
        if (i % 3 === 0) await f.makeGrant({ project: p, user: await f.makeUser(), tier: 'use' });
        else if (i % 3 === 1) await f.makeGrant({ project: p, group: await f.makeGroup({ department: dept }), tier: 'edit' });
        else await f.makeGrant({ project: p, department: await f.makeDepartment(), tier: 'full' });
      }
      const { result, queries } = await fx.countQueries(() => as(admin).get(`/api/projects/${p.id}/grants`));
      expect(result.body.grants).toHaveLength(n);
      counts.push(queries);
    }
    expect(counts[1]).toBe(counts[0]);
  });
});

describe('DELETE /api/projects/:projectId/grants/:grantId', () => {
  it('requires authentication', async () => {
    const g = await f.makeGrant({ user: await f.makeUser() });
    expect((await api(t.baseUrl, 'DELETE', `/api/projects/${g.project.id}/grants/${g.id}`)).status).toBe(401);
  });

  it('needs full; deletes and answers {success, id}; access through it ends', async () => {
    const { project, manager } = await projectWithManager();
    const editor = await f.makeUser();
    await f.makeGrant({ project, user: editor, tier: 'edit' });
    const target = await f.makeUser();
    const g = await f.makeGrant({ project, user: target, tier: 'use' });
    expect((await as(editor).delete(`/api/projects/${project.id}/grants/${g.id}`)).status).toBe(403);
    expect((await as(target).get(`/api/projects/${project.id}`)).status).toBe(200);
    const res = await as(manager).delete(`/api/projects/${project.id}/grants/${g.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: g.id });
    expect((await as(target).get(`/api/projects/${project.id}`)).status).toBe(403);
  });

  it('404 not_found for an unknown id, a malformed id, or a grant of another project', async () => {
    const { project, manager } = await projectWithManager();
    const elsewhere = await f.makeGrant({ user: await f.makeUser(), tier: 'use' });
    for (const id of [randomUUID(), 'nope', elsewhere.id]) {
      const res = await as(manager).delete(`/api/projects/${project.id}/grants/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not_found', message: 'Grant not found' });
    }
    expect(await fx.countRows('project_grants', 'id', elsewhere.id)).toBe(1);
  });
});

describe('GET /api/grants/by-user/:userId', () => {
  it('requires authentication', async () => {
    expect((await api(t.baseUrl, 'GET', `/api/grants/by-user/${randomUUID()}`)).status).toBe(401);
  });

  it('is refused to none-role users, engineers, managers and the CEO', async () => {
    const subject = await f.makeUser();
    const dept = await f.makeDepartment();
    for (const c of [
      subject,
      await f.makeUser({ platformRole: 'engineer' }),
      await f.makeUser({ orgPosition: 'manager', department: dept }),
      await f.ceo(),
    ]) {
      expect((await as(c).get(`/api/grants/by-user/${subject.id}`)).status).toBe(403);
    }
  });

  it('404 for an unknown or malformed user id', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    for (const id of [randomUUID(), 'xyz']) {
      const res = await as(admin).get(`/api/grants/by-user/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not_found', message: 'User not found' });
    }
  });

  it('splits the grants reaching a user into direct, viaGroup and viaDepartment', async () => {
    const dept = await f.makeDepartment();
    const subject = await f.makeUser({ department: dept });
    const group = await f.makeGroup({ department: dept, members: [subject] });
    const otherGroup = await f.makeGroup({ department: dept });
    const p1 = await f.makeProject({ name: 'A direct' });
    const p2 = await f.makeProject({ name: 'B group' });
    const p3 = await f.makeProject({ name: 'C department' });
    await f.makeGrant({ project: p1, user: subject, tier: 'edit' });
    await f.makeGrant({ project: p2, group, tier: 'full' });
    await f.makeGrant({ project: p2, group: otherGroup, tier: 'use' }); // not the subject's group
    await f.makeGrant({ project: p3, department: dept, tier: 'use' });
    await f.makeGrant({ project: p3, department: await f.makeDepartment(), tier: 'full' }); // not the subject's department
    const root = await f.superadmin();
    const res = await as(root).get(`/api/grants/by-user/${subject.id}`);
    expect(res.status).toBe(200);
    expectShape(res.body, 'GrantsByUser');
    expect(res.body.direct).toEqual([
      {
        projectId: p1.id,
        tier: 'edit',
        project: { id: p1.id, name: 'A direct', color: p1.color, isPrivate: true, ownerId: expect.any(String) },
      },
    ]);
    expect(res.body.viaGroup).toEqual([
      {
        projectId: p2.id,
        tier: 'full',
        group: { id: group.id, name: group.name },
        project: expect.objectContaining({ id: p2.id, name: 'B group' }),
      },
    ]);
    expect(res.body.viaDepartment).toEqual([
      {
        projectId: p3.id,
        tier: 'use',
        department: { id: dept.id, name: dept.name, color: dept.color },
        project: expect.objectContaining({ id: p3.id }),
      },
    ]);
  });

  it('answers empty lists for a user without grants', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const res = await as(admin).get(`/api/grants/by-user/${admin.id}`);
    expect(res.body).toEqual({ direct: [], viaGroup: [], viaDepartment: [] });
  });
});
