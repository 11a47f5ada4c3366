import { factories } from '../support/factories';
import { codes, gql } from '../support/graphql';
import { client } from '../support/http';
import { projectFixtures } from '../support/project-fixtures';
import { createTestApp, TestApp } from '../support/test-app';

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
const q = (u: { token: string }, query: string, variables?: Record<string, unknown>) =>
  gql(t.baseUrl, query, { token: u.token, variables });

const MEMBER = 'projectId userId addedAt user { id name email avatarUrl platformRole orgPosition departmentId }';
const PROJECT_FIELDS = `id name description color isPrivate instructions settings { model temperature topK } ownerId createdBy createdAt updatedAt members { ${MEMBER} }`;
const GRANT =
  'id projectId userId groupId departmentId tier grantedById createdAt updatedAt user { id name email } group { id name department { name } } department { id name color }';

/** REST's project JSON in GraphQL's spelling: `_count` is `counts`, and absent settings keys are null. */
function restToGraph(p: any, withChunks = true) {
  const { _count, ...rest } = p;
  const counts = withChunks ? _count : { documents: _count.documents, conversations: _count.conversations };
  return { ...rest, settings: { model: null, temperature: null, topK: null, ...p.settings }, counts };
}

describe('graphql: projects', () => {
  it('requires authentication', async () => {
    const r = await gql(t.baseUrl, '{ projects { total } }');
    expect(codes(r)).toEqual(['unauthorized']);
  });

  it('the project list equals REST GET /projects for the same caller (tier, source, members, counts)', async () => {
    const dept = await f.makeDepartment();
    const me = await f.makeUser({ department: dept });
    const other = await f.makeUser();
    const group = await f.makeGroup({ department: dept, members: [me] });
    const direct = await f.makeProject({ settings: { model: 'gpt-x', topK: 4 } });
    await f.makeGrant({ project: direct, user: me, tier: 'edit' });
    await f.makeGrant({ project: direct, user: other, tier: 'use' });
    const viaGroup = await f.makeProject();
    await f.makeGrant({ project: viaGroup, group, tier: 'full' });
    const viaDept = await f.makeProject();
    await f.makeGrant({ project: viaDept, department: dept, tier: 'use' });
    await f.makeProject({ isPrivate: false });
    const hidden = await f.makeProject();
    await f.makeGrant({ project: hidden, user: other, tier: 'full' });
    await fx.addDocument(direct.id, { chunks: 2 });
    await fx.addConversation(direct.id, me.id);

    const rest = (await as(me).get('/api/projects')).body.projects;
    const r = await q(
      me,
      `{ projects(limit: 200) { total items { ${PROJECT_FIELDS} accessTier accessSource counts { documents conversations } } } }`,
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.projects.total).toBe(rest.length);
    expect(r.data.projects.items).toEqual(rest.map((p: any) => restToGraph(p, false)));
    expect(r.data.projects.items.map((p: any) => p.id)).not.toContain(hidden.id);
  });

  it('pages with limit/offset and a total; bad page arguments are validation_failed', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    for (let i = 0; i < 3; i++) await f.makeProject();
    const all = await q(admin, '{ projects(limit: 200) { total items { id } } }');
    const page = await q(admin, '{ projects(limit: 2, offset: 1) { total items { id } } }');
    expect(page.data.projects.total).toBe(all.data.projects.total);
    expect(page.data.projects.items).toEqual(all.data.projects.items.slice(1, 3));
    const bad = await q(admin, '{ projects(limit: 0) { total } }');
    expect(codes(bad)).toEqual(['validation_failed']);
    expect(bad.errors![0].extensions!.details).toEqual([expect.objectContaining({ field: 'limit' })]);
  });

  it('project(id) equals REST GET /projects/:id, with chunks in counts; 404 and 403 carry the REST codes', async () => {
    const me = await f.makeUser();
    const p = await f.makeProject();
    await f.makeGrant({ project: p, user: me, tier: 'use' });
    await fx.addDocument(p.id, { chunks: 3 });
    const rest = (await as(me).get(`/api/projects/${p.id}`)).body.project;
    const r = await q(
      me,
      `query($id: ID!) { project(id: $id) { ${PROJECT_FIELDS} counts { documents conversations chunks } accessTier accessSource } }`,
      { id: p.id },
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.project).toEqual({ ...restToGraph(rest), accessTier: 'use', accessSource: 'user' });
    const hidden = await f.makeProject();
    expect(codes(await q(me, `{ project(id: "${hidden.id}") { id } }`))).toEqual(['forbidden']);
    expect(codes(await q(me, '{ project(id: "00000000-0000-4000-8000-000000000000") { id } }'))).toEqual(['not_found']);
    expect(codes(await q(me, '{ project(id: "nope") { id } }'))).toEqual(['not_found']);
  });

  it('nested grants equal REST GET /projects/:id/grants for each project', async () => {
    const dept = await f.makeDepartment();
    const me = await f.makeUser({ department: dept });
    const p1 = await f.makeProject();
    await f.makeGrant({ project: p1, user: me, tier: 'use' });
    await f.makeGrant({ project: p1, group: await f.makeGroup(), tier: 'edit' });
    await f.makeGrant({ project: p1, department: await f.makeDepartment(), tier: 'full' });
    const p2 = await f.makeProject();
    await f.makeGrant({ project: p2, department: dept, tier: 'use' });
    const r = await q(me, `{ projects(limit: 60) { items { id grants { ${GRANT} } } } }`);
    expect(r.errors).toBeUndefined();
    for (const p of r.data.projects.items) {
      const rest = (await as(me).get(`/api/projects/${p.id}/grants`)).body.grants;
      expect(p.grants).toEqual(rest);
    }
    expect(r.data.projects.items.find((p: any) => p.id === p1.id).grants).toHaveLength(3);
  });

  it('nested fields never reveal more than REST: a use-tier caller gets forbidden for what REST does not show', async () => {
    const me = await f.makeUser();
    const granter = await f.makeUser({ platformRole: 'admin' });
    const target = await f.makeUser({ platformRole: 'engineer' });
    const p = await f.makeProject();
    await f.makeGrant({ project: p, user: me, tier: 'use' });
    await f.makeGrant({ project: p, group: await f.makeGroup(), tier: 'use', grantedBy: granter });
    await f.makeGrant({ project: p, user: target, tier: 'use' });
    await fx.exec(`delete from project_members where project_id = ? and user_id = ?`, [p.id, target.id]);
    const r = await q(
      me,
      `query($id: ID!) { project(id: $id) { grants { user { id email platformRole status } group { name department { name id } } grantedBy { id } } } }`,
      { id: p.id },
    );
    const grants = r.data.project.grants;
    const targetGrant = grants.find((g: any) => g.user?.id === target.id);
    expect(targetGrant.user).toEqual({ id: target.id, email: target.email, platformRole: null, status: null });
    const groupGrant = grants.find((g: any) => g.group);
    expect(groupGrant.group.department).toBeNull(); // its id is not visible, so the (nullable) department is null
    expect(groupGrant.grantedBy).toBeNull();
    const denied = (r.errors ?? []).map((e) => [e.path!.slice(3).join('.'), e.extensions!.code]);
    expect(denied).toEqual(
      expect.arrayContaining([
        ['user.platformRole', 'forbidden'],
        ['user.status', 'forbidden'],
        ['group.department.id', 'forbidden'],
        ['grantedBy', 'forbidden'],
      ]),
    );
    expect(denied.every(([, code]) => code === 'forbidden')).toBe(true);
    // an admin reading the same fields gets them
    const admin = await f.makeUser({ platformRole: 'admin' });
    const a = await q(admin, `query($id: ID!) { project(id: $id) { grants { user { platformRole } grantedBy { email } } } }`, { id: p.id });
    expect(a.errors).toBeUndefined();
    expect(a.data.project.grants.map((g: any) => g.user?.platformRole ?? g.grantedBy?.email)).toEqual(
      expect.arrayContaining(['engineer', granter.email]),
    );
  });

  it('grantedBy shows a granter who is a visible member of the project to a use-tier caller', async () => {
    const me = await f.makeUser();
    const owner = await f.makeUser({ platformRole: 'admin' });
    const p = await f.makeProject({ owner });
    await f.makeGrant({ project: p, user: owner, tier: 'full' });
    await f.makeGrant({ project: p, user: me, tier: 'use', grantedBy: owner });
    const r = await q(me, `query($id: ID!) { project(id: $id) { grants { userId grantedBy { id email platformRole } } } }`, { id: p.id });
    expect(r.errors).toBeUndefined();
    expect(r.data.project.grants.find((g: any) => g.userId === me.id).grantedBy).toEqual({
      id: owner.id,
      email: owner.email,
      platformRole: 'admin',
    });
  });

  it('no N+1: projects { members { user } grants { user group department } } runs a constant number of queries', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const QUERY = `{ projects(limit: 60) { items { id members { user { id email } } grants { user { id email } group { id name } department { id name } } } } }`;
    const count = async () => fx.countQueries(() => q(admin, QUERY));
    const addProject = async () => {
      const p = await f.makeProject();
      await f.makeGrant({ project: p, user: await f.makeUser(), tier: 'use' });
      await f.makeGrant({ project: p, group: await f.makeGroup(), tier: 'edit' });
      await f.makeGrant({ project: p, department: await f.makeDepartment(), tier: 'full' });
    };
    await addProject();
    const small = await count();
    expect(small.result.errors).toBeUndefined();
    for (let i = 0; i < 50; i++) {
      await addProject();
    }
    const big = await count();
    expect(big.result.errors).toBeUndefined();
    const items = big.result.data.projects.items;
    expect(items.length).toBeGreaterThanOrEqual(50);
    expect(items.filter((p: any) => p.grants.length === 3 && p.members.length === 1).length).toBeGreaterThanOrEqual(50);
    expect(big.queries).toBe(small.queries);
    // the caller, the project list, the caller's access to the listed projects, their grants
    expect(big.queries).toBeLessThanOrEqual(4);
  });

  it('mutations follow the REST rules and answer the REST shapes', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const plain = await f.makeUser();
    const CREATE = `mutation($input: CreateProjectInput!) { createProject(input: $input) { ${PROJECT_FIELDS} counts { documents conversations chunks } } }`;
    expect(codes(await q(plain, CREATE, { input: { name: 'x' } }))).toEqual(['forbidden']);
    const bad = await q(admin, CREATE, { input: { name: 'x', color: 'blue' } });
    expect(codes(bad)).toEqual(['validation_failed']);
    expect(bad.errors![0].extensions!.details).toEqual([expect.objectContaining({ field: 'color' })]);
    const created = await q(admin, CREATE, { input: { name: '  Alpha  ', isPrivate: false, settings: { topK: 3 } } });
    expect(created.errors).toBeUndefined();
    const p = created.data.createProject;
    expect(p).toMatchObject({
      name: 'Alpha',
      ownerId: admin.id,
      createdBy: admin.id,
      isPrivate: false,
      settings: { topK: 3, model: null },
    });
    expect(p).toEqual(restToGraph((await as(admin).get(`/api/projects/${p.id}`)).body.project));

    const UPDATE =
      'mutation($id: ID!, $input: UpdateProjectInput!) { updateProject(id: $id, input: $input) { name settings { topK model } } }';
    expect(codes(await q(plain, UPDATE, { id: p.id, input: { name: 'B' } }))).toEqual(['forbidden']); // public: use tier only
    const up = await q(admin, UPDATE, { id: p.id, input: { name: 'Beta', settings: { model: 'm1' } } });
    expect(up.data.updateProject).toEqual({ name: 'Beta', settings: { topK: 3, model: 'm1' } });

    const GRANT_M =
      'mutation($p: ID!, $input: UpsertGrantInput!) { upsertGrant(projectId: $p, input: $input) { action grant { id tier userId user { email } } } }';
    const g1 = await q(admin, GRANT_M, { p: p.id, input: { targetType: 'user', targetId: plain.id, tier: 'use' } });
    expect(g1.data.upsertGrant).toMatchObject({
      action: 'created',
      grant: { tier: 'use', userId: plain.id, user: { email: plain.email } },
    });
    const g2 = await q(admin, GRANT_M, { p: p.id, input: { targetType: 'user', targetId: plain.id, tier: 'edit' } });
    expect(g2.data.upsertGrant).toMatchObject({ action: 'updated', grant: { id: g1.data.upsertGrant.grant.id, tier: 'edit' } });
    expect(
      codes(
        await q(admin, GRANT_M, { p: p.id, input: { targetType: 'user', targetId: '00000000-0000-4000-8000-000000000000', tier: 'use' } }),
      ),
    ).toEqual(['target_not_found']);
    expect(codes(await q(admin, GRANT_M, { p: p.id, input: { targetType: 'robot', targetId: plain.id, tier: 'use' } }))).toEqual([
      'validation_failed',
    ]);
    expect(codes(await q(plain, GRANT_M, { p: p.id, input: { targetType: 'user', targetId: plain.id, tier: 'full' } }))).toEqual([
      'forbidden',
    ]);

    // the REST by-user entries; the graph's entries also carry grantId
    const REF = 'project { id name color isPrivate ownerId }';
    const BY_USER = `query($u: ID!) { grantsByUser(userId: $u) { direct { projectId tier ${REF} } viaGroup { projectId tier group { id name } ${REF} } viaDepartment { projectId tier department { id name color } ${REF} } } }`;
    expect(codes(await q(plain, BY_USER, { u: plain.id }))).toEqual(['forbidden']);
    const byUser = await q(admin, BY_USER, { u: plain.id });
    expect(byUser.errors).toBeUndefined();
    expect(byUser.data.grantsByUser.direct).toHaveLength(1);
    expect(byUser.data.grantsByUser).toEqual((await as(admin).get(`/api/grants/by-user/${plain.id}`)).body);
    const grantIds = await q(admin, `query($u: ID!) { grantsByUser(userId: $u) { direct { grantId } } }`, { u: plain.id });
    expect(grantIds.data.grantsByUser.direct).toEqual([{ grantId: g1.data.upsertGrant.grant.id }]);

    const AUDIT = `query($f: AuditLogQuery) { auditLog(filter: $f) { total items { id action actorId projectId targetType targetId metadata { tier previousTier isPrivate } createdAt actorName projectName targetName } } }`;
    expect(codes(await q(plain, AUDIT, { f: { projectId: p.id } }))).toEqual(['forbidden']);
    const audit = await q(admin, AUDIT, { f: { projectId: p.id } });
    const restAudit = (await as(admin).get(`/api/audit-log?projectId=${p.id}`)).body;
    expect(audit.data.auditLog.total).toBe(restAudit.total);
    expect(audit.data.auditLog.items).toEqual(
      restAudit.entries.map((e: any) => ({ ...e, metadata: { previousTier: null, isPrivate: null, ...e.metadata } })),
    );
    expect(audit.data.auditLog.items.map((e: any) => e.action)).toEqual(['grant_updated', 'grant_created', 'project_created']);

    const REMOVE = 'mutation($p: ID!, $u: ID!) { removeProjectMember(projectId: $p, userId: $u) { success projectId userId } }';
    const notMember = await q(plain, REMOVE, { p: p.id, u: admin.id });
    expect(codes(notMember)).toEqual(['not_found']);
    expect(notMember.errors![0].message).toBe('The user is not a member of this project');
    expect((await q(admin, REMOVE, { p: p.id, u: plain.id })).data.removeProjectMember).toEqual({
      success: true,
      projectId: p.id,
      userId: plain.id,
    });

    const DEL_GRANT = 'mutation($p: ID!, $g: ID!) { deleteGrant(projectId: $p, grantId: $g) { success id } }';
    expect((await q(admin, DEL_GRANT, { p: p.id, g: g1.data.upsertGrant.grant.id })).data.deleteGrant).toEqual({
      success: true,
      id: g1.data.upsertGrant.grant.id,
    });

    const DEL = 'mutation($id: ID!) { deleteProject(id: $id) { success id } }';
    expect(codes(await q(plain, DEL, { id: p.id }))).toEqual(['forbidden']);
    expect((await q(admin, DEL, { id: p.id })).data.deleteProject).toEqual({ success: true, id: p.id });
    expect(codes(await q(admin, `{ project(id: "${p.id}") { id } }`))).toEqual(['not_found']);
  });
});
