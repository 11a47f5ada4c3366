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

describe('GET /api/projects', () => {
  it('requires authentication', async () => {
    expect((await api(t.baseUrl, 'GET', '/api/projects')).status).toBe(401);
  });

  it('returns only accessible projects, each with accessTier, accessSource, members and _count', async () => {
    const dept = await f.makeDepartment();
    const me = await f.makeUser({ department: dept });
    const other = await f.makeUser();
    const group = await f.makeGroup({ department: dept, members: [me] });
    const direct = await f.makeProject();
    await f.makeGrant({ project: direct, user: me, tier: 'edit' });
    await f.makeGrant({ project: direct, user: other, tier: 'use' });
    const viaGroup = await f.makeProject();
    await f.makeGrant({ project: viaGroup, group, tier: 'full' });
    const viaDept = await f.makeProject();
    await f.makeGrant({ project: viaDept, department: dept, tier: 'use' });
    const pub = await f.makeProject({ isPrivate: false });
    const hidden = await f.makeProject();
    await f.makeGrant({ project: hidden, user: other, tier: 'full' });
    await fx.addDocument(direct.id, { chunks: 3 });
    await fx.addDocument(direct.id);
    await fx.addConversation(direct.id, me.id);

    const res = await as(me).get('/api/projects');
    expect(res.status).toBe(200);
    const byId = new Map<string, any>(res.body.projects.map((p: any) => [p.id, p]));
    expect(byId.has(hidden.id)).toBe(false);
    expect(byId.get(direct.id)).toMatchObject({ accessTier: 'edit', accessSource: 'user', _count: { documents: 2, conversations: 1 } });
    expect(byId.get(viaGroup.id)).toMatchObject({ accessTier: 'full', accessSource: 'group', _count: { documents: 0, conversations: 0 } });
    expect(byId.get(viaDept.id)).toMatchObject({ accessTier: 'use', accessSource: 'department' });
    expect(byId.get(pub.id)).toMatchObject({ accessTier: 'use', accessSource: 'public' });
    const d = byId.get(direct.id);
    expectShape(d, 'ProjectListItem');
    expect(d.members).toHaveLength(2);
    const mine = d.members.find((m: any) => m.userId === me.id);
    expect(mine.projectId).toBe(direct.id);
    expect(new Date(mine.addedAt).toISOString()).toBe(mine.addedAt);
    expect(mine.user).toMatchObject({
      id: me.id,
      email: me.email,
      name: me.name,
      platformRole: 'none',
      orgPosition: 'member',
      departmentId: dept.id,
      avatarUrl: null,
    });
  });

  it('gives platform staff every project with source platform; engineers only public ones', async () => {
    const priv = await f.makeProject();
    const pub = await f.makeProject({ isPrivate: false });
    const admin = await f.makeUser({ platformRole: 'admin' });
    const root = await f.superadmin();
    const engineer = await f.makeUser({ platformRole: 'engineer' });
    for (const staff of [admin, root]) {
      const list = (await as(staff).get('/api/projects')).body.projects;
      expect(list.find((p: any) => p.id === priv.id)).toMatchObject({ accessTier: 'full', accessSource: 'platform' });
      expect(list.find((p: any) => p.id === pub.id)).toMatchObject({ accessTier: 'full', accessSource: 'platform' });
    }
    const engList = (await as(engineer).get('/api/projects')).body.projects;
    expect(engList.find((p: any) => p.id === priv.id)).toBeUndefined();
    expect(engList.find((p: any) => p.id === pub.id)).toMatchObject({ accessTier: 'use', accessSource: 'public' });
  });

  it('a direct user grant narrows a broader group grant', async () => {
    const me = await f.makeUser();
    const group = await f.makeGroup({ members: [me] });
    const p = await f.makeProject();
    await f.makeGrant({ project: p, group, tier: 'full' });
    await f.makeGrant({ project: p, user: me, tier: 'use' });
    const item = (await as(me).get('/api/projects')).body.projects.find((x: any) => x.id === p.id);
    expect(item).toMatchObject({ accessTier: 'use', accessSource: 'user' });
  });

  it('a user without grants sees public projects only', async () => {
    const loner = await f.makeUser();
    const res = await as(loner).get('/api/projects');
    expect(res.status).toBe(200);
    expect(res.body.projects.every((p: any) => p.accessSource === 'public')).toBe(true);
  });
});

describe('POST /api/projects', () => {
  it('requires authentication', async () => {
    expect((await api(t.baseUrl, 'POST', '/api/projects', { body: { name: 'x' } })).status).toBe(401);
  });

  it('is refused to none-role users, engineers, managers and the CEO', async () => {
    const callers = [
      await f.makeUser(),
      await f.makeUser({ platformRole: 'engineer' }),
      await f.makeUser({ orgPosition: 'manager', department: await f.makeDepartment() }),
      await f.ceo(),
    ];
    for (const c of callers) {
      const res = await as(c).post('/api/projects', { name: 'Nope' });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('forbidden');
    }
  });

  it('creates a project owned and created by the caller, with documented defaults', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const res = await as(admin).post('/api/projects', { name: '  Handbook  ' });
    expect(res.status).toBe(201);
    const p = res.body.project;
    expectShape(p, 'ProjectDetail');
    expect(p).toMatchObject({
      name: 'Handbook',
      description: null,
      color: '#3b82f6',
      isPrivate: true,
      instructions: '',
      settings: {},
      ownerId: admin.id,
      createdBy: admin.id,
      members: [],
      _count: { documents: 0, conversations: 0, chunks: 0 },
    });
    // the private default: a bystander cannot see it
    const bystander = await f.makeUser();
    expect((await as(bystander).get(`/api/projects/${p.id}`)).status).toBe(403);
  });

  it('superadmin may create, with every optional field', async () => {
    const root = await f.superadmin();
    const body = {
      name: 'Open',
      description: 'd',
      color: '#AbC',
      isPrivate: false,
      instructions: 'Be brief.',
      settings: { model: 'm', temperature: 0.5, topK: 8 },
    };
    const res = await as(root).post('/api/projects', body);
    expect(res.status).toBe(201);
    expect(res.body.project).toMatchObject({ ...body, ownerId: root.id, createdBy: root.id });
  });

  it.each([
    ['missing name', {}],
    ['blank name', { name: '   ' }],
    ['name not a string', { name: 5 }],
    ['bad colour', { name: 'x', color: 'red' }],
    ['isPrivate not boolean', { name: 'x', isPrivate: 'yes' }],
    ['unknown field', { name: 'x', ownerId: randomUUID() }],
    ['settings out of range', { name: 'x', settings: { topK: 0 } }],
    ['body not an object', ['x']],
  ])('rejects %s with 400 validation_failed', async (_label, body) => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const res = await as(admin).post('/api/projects', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
  });
});

describe('GET /api/projects/:id', () => {
  it('requires authentication', async () => {
    const p = await f.makeProject();
    expect((await api(t.baseUrl, 'GET', `/api/projects/${p.id}`)).status).toBe(401);
  });

  it('404 for a missing project and for a malformed id; 403 when the resolver gives nothing', async () => {
    const u = await f.makeUser();
    expect((await as(u).get(`/api/projects/${randomUUID()}`)).status).toBe(404);
    expect((await as(u).get('/api/projects/not-a-uuid')).status).toBe(404);
    const p = await f.makeProject();
    const res = await as(u).get(`/api/projects/${p.id}`);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('forbidden');
  });

  it('any tier reads it, with members (with user) and _count {documents, conversations, chunks}', async () => {
    const reader = await f.makeUser();
    const p = await f.makeProject({ isPrivate: false });
    const member = await f.makeUser();
    await f.makeGrant({ project: p, user: member, tier: 'use' });
    await fx.addDocument(p.id, { chunks: 4 });
    await fx.addConversation(p.id, member.id);
    await fx.addConversation(p.id, member.id);
    const res = await as(reader).get(`/api/projects/${p.id}`);
    expect(res.status).toBe(200);
    expectShape(res.body.project, 'ProjectDetail');
    expect(res.body.project._count).toEqual({ documents: 1, conversations: 2, chunks: 4 });
    expect(res.body.project.members).toEqual([
      {
        projectId: p.id,
        userId: member.id,
        addedAt: expect.any(String),
        user: expect.objectContaining({ id: member.id, email: member.email }),
      },
    ]);
  });
});

describe('PATCH /api/projects/:id', () => {
  it('requires authentication', async () => {
    const p = await f.makeProject();
    expect((await api(t.baseUrl, 'PATCH', `/api/projects/${p.id}`, { body: { name: 'x' } })).status).toBe(401);
  });

  it('needs edit: use is refused, edit updates and answers {project}', async () => {
    const p = await f.makeProject();
    const user = await f.makeUser();
    const editor = await f.makeUser();
    await f.makeGrant({ project: p, user, tier: 'use' });
    await f.makeGrant({ project: p, user: editor, tier: 'edit' });
    expect((await as(user).patch(`/api/projects/${p.id}`, { name: 'No' })).status).toBe(403);
    const res = await as(editor).patch(`/api/projects/${p.id}`, {
      name: 'Renamed',
      description: null,
      instructions: 'Cite pages.',
      color: '#000000',
    });
    expect(res.status).toBe(200);
    expect(res.body.project).toMatchObject({ id: p.id, name: 'Renamed', description: null, instructions: 'Cite pages.', color: '#000000' });
    expect(res.body.project._count).toEqual({ documents: 0, conversations: 0, chunks: 0 });
    expect((await as(editor).get(`/api/projects/${p.id}`)).body.project.name).toBe('Renamed');
  });

  it('404 for a missing project, 403 without access', async () => {
    const u = await f.makeUser();
    expect((await as(u).patch(`/api/projects/${randomUUID()}`, { name: 'x' })).status).toBe(404);
    const p = await f.makeProject();
    expect((await as(u).patch(`/api/projects/${p.id}`, { name: 'x' })).status).toBe(403);
  });

  it('merges settings keys; null removes one', async () => {
    const p = await f.makeProject({ settings: { model: 'old', topK: 5 } });
    const admin = await f.makeUser({ platformRole: 'admin' });
    let res = await as(admin).patch(`/api/projects/${p.id}`, { settings: { temperature: 0.2 } });
    expect(res.body.project.settings).toEqual({ model: 'old', topK: 5, temperature: 0.2 });
    res = await as(admin).patch(`/api/projects/${p.id}`, { settings: { model: 'new', topK: null } });
    expect(res.body.project.settings).toEqual({ model: 'new', temperature: 0.2 });
    res = await as(admin).patch(`/api/projects/${p.id}`, { settings: {} });
    expect(res.body.project.settings).toEqual({ model: 'new', temperature: 0.2 });
  });

  it.each([
    ['temperature above 2', { settings: { temperature: 2.5 } }],
    ['negative temperature', { settings: { temperature: -0.1 } }],
    ['temperature as string', { settings: { temperature: '1' } }],
    ['fractional topK', { settings: { topK: 1.5 } }],
    ['topK above 50', { settings: { topK: 51 } }],
    ['unknown settings key', { settings: { maxTokens: 5 } }],
    ['settings not an object', { settings: 'x' }],
    ['null name', { name: null }],
    ['instructions not a string', { instructions: 3 }],
    ['malformed ownerId', { ownerId: 'abc' }],
    ['unknown field', { archived: true }],
  ])('rejects %s with 400', async (_label, body) => {
    const p = await f.makeProject();
    const admin = await f.makeUser({ platformRole: 'admin' });
    const res = await as(admin).patch(`/api/projects/${p.id}`, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
  });

  it('rule 1: changing ownerId needs full tier', async () => {
    const p = await f.makeProject();
    const editor = await f.makeUser();
    const fuller = await f.makeUser();
    await f.makeGrant({ project: p, user: editor, tier: 'edit' });
    await f.makeGrant({ project: p, user: fuller, tier: 'full' });
    const newOwner = await f.makeUser({ platformRole: 'admin' });
    const denied = await as(editor).patch(`/api/projects/${p.id}`, { ownerId: newOwner.id, name: 'changed' });
    expect(denied.status).toBe(403);
    // nothing of a refused patch is applied
    expect((await as(editor).get(`/api/projects/${p.id}`)).body.project.name).toBe(p.name);
    // restating the current owner is not a change
    const current = (await as(editor).get(`/api/projects/${p.id}`)).body.project.ownerId;
    expect((await as(editor).patch(`/api/projects/${p.id}`, { ownerId: current })).status).toBe(200);
    const ok = await as(fuller).patch(`/api/projects/${p.id}`, { ownerId: newOwner.id });
    expect(ok.status).toBe(200);
    expect(ok.body.project.ownerId).toBe(newOwner.id);
  });

  it('rule 2: the new owner must be an admin or superadmin that exists', async () => {
    const p = await f.makeProject();
    const admin = await f.makeUser({ platformRole: 'admin' });
    for (const role of ['none', 'engineer'] as const) {
      const candidate = await f.makeUser({ platformRole: role });
      const res = await as(admin).patch(`/api/projects/${p.id}`, { ownerId: candidate.id });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details).toEqual([{ field: 'ownerId', message: 'The new owner must have platformRole admin or superadmin' }]);
    }
    const inactive = await f.makeUser({ platformRole: 'admin', status: 'inactive' });
    const inactiveRes = await as(admin).patch(`/api/projects/${p.id}`, { ownerId: inactive.id });
    expect(inactiveRes.status).toBe(400);
    expect(inactiveRes.body.error).toBe('validation_failed');
    expect(inactiveRes.body.details).toEqual([{ field: 'ownerId', message: 'The new owner must be an active user' }]);
    const missing = await as(admin).patch(`/api/projects/${p.id}`, { ownerId: randomUUID() });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'not_found', message: 'The new owner does not exist' });
    const root = await f.superadmin();
    expect((await as(admin).patch(`/api/projects/${p.id}`, { ownerId: root.id })).body.project.ownerId).toBe(root.id);
  });

  it('after a transfer the new owner has full access from ownership; the old owner keeps only what grants give', async () => {
    const oldOwner = await f.makeUser(); // a none-role owner: access comes from ownership alone
    const p = await f.makeProject({ owner: oldOwner });
    const newOwner = await f.makeUser({ platformRole: 'admin' });
    expect((await as(oldOwner).patch(`/api/projects/${p.id}`, { ownerId: newOwner.id })).status).toBe(200);
    expect((await as(oldOwner).get(`/api/projects/${p.id}`)).status).toBe(403);
    expect((await as(newOwner).get(`/api/projects/${p.id}`)).body.project.ownerId).toBe(newOwner.id);
  });

  it('rule 3: isPrivate false gives every authenticated user use tier', async () => {
    const p = await f.makeProject();
    const stranger = await f.makeUser();
    expect((await as(stranger).get(`/api/projects/${p.id}`)).status).toBe(403);
    const admin = await f.makeUser({ platformRole: 'admin' });
    expect((await as(admin).patch(`/api/projects/${p.id}`, { isPrivate: false })).body.project.isPrivate).toBe(false);
    expect((await as(stranger).get(`/api/projects/${p.id}`)).status).toBe(200);
    const item = (await as(stranger).get('/api/projects')).body.projects.find((x: any) => x.id === p.id);
    expect(item).toMatchObject({ accessTier: 'use', accessSource: 'public' });
    // use is not edit
    expect((await as(stranger).patch(`/api/projects/${p.id}`, { name: 'x' })).status).toBe(403);
  });
});

describe('DELETE /api/projects/:id', () => {
  it('requires authentication', async () => {
    const p = await f.makeProject();
    expect((await api(t.baseUrl, 'DELETE', `/api/projects/${p.id}`)).status).toBe(401);
  });

  it('needs full: edit is refused; 404 for a missing project', async () => {
    const p = await f.makeProject();
    const editor = await f.makeUser();
    await f.makeGrant({ project: p, user: editor, tier: 'edit' });
    expect((await as(editor).delete(`/api/projects/${p.id}`)).status).toBe(403);
    expect((await as(editor).delete(`/api/projects/${randomUUID()}`)).status).toBe(404);
    expect((await as(editor).get(`/api/projects/${p.id}`)).status).toBe(200);
  });

  it('cascades to chunks, documents, conversations, messages, grants, members and index statistics; other projects untouched', async () => {
    const owner = await f.makeUser({ platformRole: 'admin' });
    const p = await f.makeProject({ owner });
    const keep = await f.makeProject({ owner });
    const u = await f.makeUser();
    const g = await f.makeGroup({ members: [u] });
    for (const proj of [p, keep]) {
      await f.makeGrant({ project: proj, user: u, tier: 'use' });
      await f.makeGrant({ project: proj, group: g, tier: 'edit' });
      await fx.addDocument(proj.id, { chunks: 3 });
      await fx.addConversation(proj.id, u.id, { messages: 4 });
    }
    const convId = (await fx.exec<{ id: string }>(`select id from conversations where project_id = ?`, [p.id]))[0].id;
    const res = await as(owner).delete(`/api/projects/${p.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: p.id });
    for (const table of [
      'projects',
      'documents',
      'chunks',
      'conversations',
      'project_grants',
      'project_members',
      'term_stats',
      'term_postings',
      'project_index_stats',
    ]) {
      expect([table, await fx.countRows(table, table === 'projects' ? 'id' : 'project_id', p.id)]).toEqual([table, 0]);
      expect([table, await fx.countRows(table, table === 'projects' ? 'id' : 'project_id', keep.id)]).not.toEqual([table, 0]);
    }
    expect(await fx.countRows('messages', 'conversation_id', convId)).toBe(0);
    // the grants removed with the project are in the audit log
    const audit = await fx.exec(
      `select action, target_type, metadata from audit_entries where project_id = ? order by target_type, action`,
      [p.id],
    );
    expect(audit).toEqual([
      { action: 'grant_deleted', target_type: 'group', metadata: { tier: 'edit', reason: 'project_deleted' } },
      { action: 'grant_deleted', target_type: 'user', metadata: { tier: 'use', reason: 'project_deleted' } },
      { action: 'project_deleted', target_type: 'user', metadata: { tier: 'full', previousOwnerId: owner.id } },
    ]);
    expect((await as(owner).get(`/api/projects/${p.id}`)).status).toBe(404);
  });

  it('is one transaction: a failure after the row is gone deletes nothing', async () => {
    const owner = await f.makeUser({ platformRole: 'admin' });
    const p = await f.makeProject({ owner });
    await fx.addDocument(p.id, { chunks: 2 });
    // make the last step (removing the index statistics) fail for this project only
    await fx.exec(`create or replace function fail_stats_delete() returns trigger language plpgsql as $$
      begin if old.project_id = '${p.id}' then raise exception 'injected failure'; end if; return old; end $$`);
    await fx.exec(
      `create trigger fail_stats_delete before delete on project_index_stats for each row execute function fail_stats_delete()`,
    );
    try {
      const res = await as(owner).delete(`/api/projects/${p.id}`);
      expect(res.status).toBe(500);
    } finally {
      await fx.exec(`drop trigger fail_stats_delete on project_index_stats`);
    }
    expect(await fx.countRows('projects', 'id', p.id)).toBe(1);
    expect(await fx.countRows('chunks', 'project_id', p.id)).toBe(2);
    expect(await fx.countRows('term_stats', 'project_id', p.id)).toBe(1);
    expect(await fx.countRows('term_postings', 'project_id', p.id)).toBe(1);
    expect((await as(owner).delete(`/api/projects/${p.id}`)).status).toBe(200);
  });
});

describe('DELETE /api/projects/:id/members/:userId', () => {
  it('requires authentication', async () => {
    const p = await f.makeProject();
    expect((await api(t.baseUrl, 'DELETE', `/api/projects/${p.id}/members/${randomUUID()}`)).status).toBe(401);
  });

  it('needs edit; removes the visible member only, the grant still gives access', async () => {
    const p = await f.makeProject();
    const member = await f.makeUser();
    const user = await f.makeUser();
    const editor = await f.makeUser();
    await f.makeGrant({ project: p, user: member, tier: 'use' });
    await f.makeGrant({ project: p, user, tier: 'use' });
    await f.makeGrant({ project: p, user: editor, tier: 'edit' });
    expect((await as(user).delete(`/api/projects/${p.id}/members/${member.id}`)).status).toBe(403);
    const res = await as(editor).delete(`/api/projects/${p.id}/members/${member.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: member.id });
    const detail = (await as(editor).get(`/api/projects/${p.id}`)).body.project;
    expect(detail.members.map((m: any) => m.userId)).not.toContain(member.id);
    // spec: grants are not revoked
    expect(await fx.countRows('project_grants', 'user_id', member.id)).toBe(1);
    expect((await as(member).get(`/api/projects/${p.id}`)).status).toBe(200);
  });

  it('404 when the user is not a member (or the id is malformed), and for a missing project', async () => {
    const p = await f.makeProject();
    const admin = await f.makeUser({ platformRole: 'admin' });
    const res = await as(admin).delete(`/api/projects/${p.id}/members/${randomUUID()}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: 'The user is not a member of this project' });
    expect((await as(admin).delete(`/api/projects/${p.id}/members/nope`)).status).toBe(404);
    expect((await as(admin).delete(`/api/projects/${randomUUID()}/members/${admin.id}`)).status).toBe(404);
  });
});
