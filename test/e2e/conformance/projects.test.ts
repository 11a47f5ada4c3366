/**
 * Spec conformance, black box (projects, grants, audit log): exact key sets, statuses and error bodies.
 * Each describe works on its own app and organisation (test/support/conformance-world.ts): the
 * stage names what exists on the project before its tests run.
 */
import { randomUUID } from 'node:crypto';
import { client } from '../../support/http';
import {
  AUDIT_ENTRY,
  DELETED,
  keys,
  expectUuid,
  expectIso,
  expectError,
  expectValidation,
  expectProjectDetail,
  expectProjectListItem,
  expectGrant,
} from '../../support/conformance-shapes';
import { useWorld } from '../../support/conformance-world';

jest.setTimeout(120_000);

describe('projects', () => {
  const w = useWorld('project');

  it('POST /projects: 201 {project}; ownerId and createdBy are the caller', async () => {
    const { t, admin, adminId, anon, tokenFor } = w;
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
    const mgr = client(t.baseUrl, await tokenFor('mgr@example.com', 'manager-password'));
    expectError(await mgr.post('/api/projects', { name: 'Nope' }), 403);
    expectValidation(await admin.post('/api/projects', { name: 'P'.repeat(10_000) }), 'name');
    expectValidation(await admin.post('/api/projects', {}), 'name');
    expectValidation(await admin.post('/api/projects', { name: 'x', isPrivate: 'yes' }), 'isPrivate');
  });

  it('GET /projects/:id: {project}; 404 missing; 403 without access', async () => {
    const { t, admin, projectId, tokenFor } = w;
    const res = await admin.get(`/api/projects/${projectId}`);
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['project']);
    expectProjectDetail(res.body.project);
    expectError(await admin.get(`/api/projects/${randomUUID()}`), 404);
    const member = client(t.baseUrl, await tokenFor('member@example.com', 'member-password'));
    expectError(await member.get(`/api/projects/${projectId}`), 403);
  });

  it('PATCH /projects/:id: {project}; settings merge', async () => {
    const { admin, projectId } = w;
    const res = await admin.patch(`/api/projects/${projectId}`, { color: '#ff8800', settings: { topK: 4 } });
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['project']);
    expectProjectDetail(res.body.project);
    const again = await admin.patch(`/api/projects/${projectId}`, { settings: { temperature: 0.2, model: 'gpt-x' } });
    expect(again.body.project.settings).toEqual({ model: 'gpt-x', temperature: 0.2, topK: 4 });
    expectValidation(await admin.patch(`/api/projects/${projectId}`, { settings: { topK: 'many' } }));
  });
});

describe('grants: create', () => {
  const w = useWorld('project');

  it('POST grant: 201 created / 200 updated, {grant, action}', async () => {
    const { admin, adminId, sales, memberUser, projectId, groupId } = w;
    const created = await admin.post(`/api/projects/${projectId}/grants`, { targetType: 'user', targetId: memberUser.id, tier: 'use' });
    expect(created.status).toBe(201);
    expect(keys(created.body)).toEqual(['action', 'grant']);
    expect(created.body.action).toBe('created');
    expectGrant(created.body.grant);
    expect(created.body.grant.user).toEqual({ id: memberUser.id, name: 'Zoë Renamed 🎉', email: 'member@example.com' });
    expect(created.body.grant.grantedById).toBe(adminId);
    const userGrantId = created.body.grant.id;

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
});

describe('grants', () => {
  const w = useWorld('granted');

  it('POST grant errors: 404 target_not_found, 403 without full tier, 400 on bad input', async () => {
    const { t, admin, manager, memberUser, projectId, tokenFor } = w;
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
    const { t, projectId, tokenFor } = w;
    const member = client(t.baseUrl, await tokenFor('member@example.com', 'member-password'));
    const res = await member.get(`/api/projects/${projectId}/grants`); // `use` tier suffices
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['grants']);
    expect(res.body.grants).toHaveLength(3);
    for (const g of res.body.grants) expectGrant(g);
  });

  it('GET /projects: the member sees the project with members, _count, accessTier, accessSource', async () => {
    const { t, admin, memberUser, projectId, tokenFor } = w;
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
    const { t, admin, memberUser, projectId, tokenFor } = w;
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
});

describe('grants: remove a member', () => {
  const w = useWorld('granted');

  it('DELETE /projects/:id/members/:userId: {success, id}; the grant stays', async () => {
    const { admin, memberUser, projectId } = w;
    const res = await admin.delete(`/api/projects/${projectId}/members/${memberUser.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: memberUser.id });
    const grants = (await admin.get(`/api/projects/${projectId}/grants`)).body.grants;
    expect(grants.some((g: any) => g.userId === memberUser.id)).toBe(true);
    expect((await admin.get(`/api/projects/${projectId}`)).body.project.members).toEqual([]);
  });
});

describe('grants: delete', () => {
  const w = useWorld('granted');

  it('DELETE grant: {success, id}', async () => {
    const { admin, projectId, userGrantId } = w;
    const res = await admin.delete(`/api/projects/${projectId}/grants/${userGrantId}`);
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(DELETED);
    expect(res.body).toEqual({ success: true, id: userGrantId });
    expectError(await admin.delete(`/api/projects/${projectId}/grants/${userGrantId}`), 404);
  });
});

describe('audit log', () => {
  const w = useWorld('audited');

  it('GET /audit-log: {entries, total}; entries with the spec fields plus id, createdAt and names', async () => {
    const { t, admin, adminId, projectId, anon, tokenFor } = w;
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
    const { admin } = w;
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
});

describe('projects: delete', () => {
  const w = useWorld('project');

  it('DELETE /projects/:id: {success, id}; then 404', async () => {
    const { t, admin, projectId, tokenFor } = w;
    const mgr = client(t.baseUrl, await tokenFor('mgr@example.com', 'manager-password'));
    expectError(await mgr.delete(`/api/projects/${projectId}`), 403);
    const res = await admin.delete(`/api/projects/${projectId}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: projectId });
    expectError(await admin.get(`/api/projects/${projectId}`), 404);
  });
});
