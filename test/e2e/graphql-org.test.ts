import { factories } from '../support/factories';
import { codes, gql } from '../support/graphql';
import { client } from '../support/http';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import { projectFixtures } from '../support/project-fixtures';
import { createTestApp, TestApp } from '../support/test-app';

let t: TestApp;
let f: ReturnType<typeof factories>;
let fx: ReturnType<typeof projectFixtures>;
let stub: OpenAiStub;

beforeAll(async () => {
  stub = await startOpenAiStub();
  t = await createTestApp();
  f = factories(t.orm, t.services);
  fx = projectFixtures(t.orm);
});
afterAll(async () => {
  await t?.close();
  await stub?.close();
});

const as = (u: { token: string }) => client(t.baseUrl, u.token);
const q = (u: { token: string }, query: string, variables?: Record<string, unknown>) =>
  gql(t.baseUrl, query, { token: u.token, variables });
/** The REST single-user shape (GET/POST/PATCH /users/:id, GET /users/me). */
const USER = 'id email name platformRole orgPosition departmentId avatarColor status lastLoginAt createdAt';
/** A REST GET /users entry: the user plus `department`. */
const USER_ENTRY = `${USER} department { id name color }`;
const SUMMARY = 'id name email avatarColor avatarUrl platformRole orgPosition departmentId status';

describe('graphql: users', () => {
  it('requires authentication, and admin or superadmin like REST', async () => {
    expect(codes(await gql(t.baseUrl, '{ users { total } }'))).toEqual(['unauthorized']);
    for (const role of ['none', 'engineer'] as const) {
      const u = await f.makeUser({ platformRole: role });
      expect(codes(await q(u, '{ users { total } }'))).toEqual(['forbidden']);
      expect(codes(await q(u, `{ user(id: "${u.id}") { id } }`))).toEqual(['forbidden']);
    }
  });

  it('users(filter) equals REST GET /users with the same filters', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const dept = await f.makeDepartment();
    for (let i = 0; i < 3; i++) await f.makeUser({ department: dept, name: `Zed ${i}` });
    const rest = (await as(admin).get(`/api/users?departmentId=${dept.id}&limit=2&offset=1`)).body;
    const r = await q(admin, `query($f: ListUsersQuery) { users(filter: $f) { total items { ${USER_ENTRY} } } }`, {
      f: { departmentId: dept.id, limit: 2, offset: 1 },
    });
    expect(r.errors).toBeUndefined();
    expect(r.data.users).toEqual({ total: rest.total, items: rest.users });
    // the graph also exposes avatarUrl, which REST lists leave out
    const extra = await q(admin, `{ users(filter: { departmentId: "${dept.id}" }) { items { avatarUrl } } }`);
    expect(extra.data.users.items).toEqual([{ avatarUrl: null }, { avatarUrl: null }, { avatarUrl: null }]);
    const search = await q(admin, '{ users(filter: { search: "zed 1" }) { items { name } } }');
    expect(search.data.users.items).toEqual([{ name: 'Zed 1' }]);
    expect(codes(await q(admin, '{ users(filter: { platformRole: "king" }) { total } }'))).toEqual(['validation_failed']);
  });

  it('user(id) equals REST GET /users/:id; me completes to the full user', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const dept = await f.makeDepartment();
    const u = await f.makeUser({ department: dept });
    expect((await q(admin, `{ user(id: "${u.id}") { ${USER} } }`)).data.user).toEqual(
      (await as(admin).get(`/api/users/${u.id}`)).body.user,
    );
    expect((await q(u, `{ me { ${USER} } }`)).data.me).toEqual((await as(u).get('/api/users/me')).body.user);
    // the graph's user also has department and avatarUrl, which the REST single-user shape leaves out
    expect((await q(admin, `{ user(id: "${u.id}") { department { id name color } avatarUrl } }`)).data.user).toEqual({
      department: { id: dept.id, name: dept.name, color: dept.color },
      avatarUrl: null,
    });
    const missing = await q(admin, '{ user(id: "00000000-0000-4000-8000-000000000000") { id } }');
    expect(codes(missing)).toEqual(['not_found']);
    expect(missing.errors![0].message).toBe('User not found');
  });

  it('create, update and delete follow the REST rules and codes', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const CREATE = `mutation($i: CreateUserInput!) { createUser(input: $i) { ${USER} } }`;
    const base = {
      email: `new-${Date.now()}@example.com`,
      name: 'New',
      password: 'long-enough',
      platformRole: 'none',
      orgPosition: 'member',
    };
    expect(codes(await q(admin, CREATE, { i: { ...base, password: 'short' } }))).toEqual(['validation_failed']);
    expect(codes(await q(admin, CREATE, { i: { ...base, platformRole: 'superadmin' } }))).toEqual(['forbidden_role']);
    const created = await q(admin, CREATE, { i: base });
    expect(created.errors).toBeUndefined();
    expect(created.data.createUser).toEqual((await as(admin).get(`/api/users/${created.data.createUser.id}`)).body.user);
    expect(codes(await q(admin, CREATE, { i: base }))).toEqual(['email_exists']);
    const id = created.data.createUser.id;
    const UPDATE = 'mutation($id: ID!, $i: UpdateUserInput!) { updateUser(id: $id, input: $i) { name status } }';
    expect((await q(admin, UPDATE, { id, i: { name: '  Renamed ', status: 'inactive' } })).data.updateUser).toEqual({
      name: 'Renamed',
      status: 'inactive',
    });
    expect(codes(await q(admin, UPDATE, { id, i: { platformRole: 'engineer' } }))).toEqual(['forbidden_role']);
    const DELETE = 'mutation($id: ID!) { deleteUser(id: $id) { success id } }';
    const self = await q(admin, DELETE, { id: admin.id });
    expect(codes(self)).toEqual(['forbidden']);
    expect(self.errors![0].message).toBe('You cannot delete your own account');
    expect((await q(admin, DELETE, { id })).data.deleteUser).toEqual({ success: true, id });
  });

  it('users { projects { grants { user { email } } } } equals what REST shows the admin', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const dept = await f.makeDepartment();
    const alice = await f.makeUser({ department: dept, name: 'Alice nested' });
    const p1 = await f.makeProject();
    const p2 = await f.makeProject();
    await f.makeGrant({ project: p1, user: alice, tier: 'edit' });
    await f.makeGrant({ project: p2, user: alice, tier: 'use' });
    await f.makeGrant({ project: p2, department: dept, tier: 'use' });
    const r = await q(
      admin,
      `query($d: String) { users(filter: { departmentId: $d }) { items { id projects { id grants { user { email } } } } } }`,
      { d: dept.id },
    );
    expect(r.errors).toBeUndefined();
    const restProjects = (await as(admin).get('/api/projects')).body.projects;
    for (const u of r.data.users.items) {
      const expectedIds = restProjects.filter((p: any) => p.members.some((m: any) => m.userId === u.id)).map((p: any) => p.id);
      expect(u.projects.map((p: any) => p.id)).toEqual(expectedIds);
      for (const p of u.projects) {
        const grants = (await as(admin).get(`/api/projects/${p.id}/grants`)).body.grants;
        expect(p.grants).toEqual(grants.map((g: any) => ({ user: g.user ? { email: g.user.email } : null })));
      }
    }
    expect(r.data.users.items.find((u: any) => u.id === alice.id).projects).toHaveLength(2);
  });

  it('a non-admin reaches users only through what REST shows them', async () => {
    const me = await f.makeUser();
    const colleague = await f.makeUser({ platformRole: 'engineer' });
    const p = await f.makeProject();
    const hidden = await f.makeProject();
    await f.makeGrant({ project: p, user: me, tier: 'use' });
    await f.makeGrant({ project: p, user: colleague, tier: 'use' });
    await f.makeGrant({ project: hidden, user: colleague, tier: 'use' });
    const r = await q(
      me,
      `query($id: ID!) { project(id: $id) { members { user { id platformRole status lastLoginAt projects { id } } } } }`,
      { id: p.id },
    );
    const member = r.data.project.members.find((m: any) => m.user.id === colleague.id).user;
    // the member view has roles, not status or lastLoginAt; their projects are only those the caller can access
    expect(member).toEqual({ id: colleague.id, platformRole: 'engineer', status: null, lastLoginAt: null, projects: [{ id: p.id }] });
    const denied = (r.errors ?? []).filter((e) =>
      e.path!.includes(r.data.project.members.findIndex((m: any) => m.user.id === colleague.id)),
    );
    expect(denied.map((e) => [e.path!.at(-1), e.extensions!.code]).sort()).toEqual([
      ['lastLoginAt', 'forbidden'],
      ['status', 'forbidden'],
    ]);
  });
});

describe('graphql: departments and groups', () => {
  /** The REST department fields (`_count` spelled `counts`); the graph also has createdAt. */
  const DEPT = 'id name color description counts { members groups grants }';

  it('departments equal REST for admin; a manager sees only their own; plain users are refused', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const dept = await f.makeDepartment();
    const other = await f.makeDepartment();
    const manager = await f.makeUser({ department: dept, orgPosition: 'manager' });
    await f.makeGroup({ department: dept, members: [manager] });
    const rest = (await as(admin).get('/api/departments')).body.departments;
    const r = await q(admin, `{ departments(limit: 200) { total items { ${DEPT} } } }`);
    expect(r.errors).toBeUndefined();
    expect(r.data.departments.items).toEqual(rest.map(({ _count, ...d }: any) => ({ ...d, counts: _count })));
    const withCreatedAt = await q(admin, `{ department(id: "${dept.id}") { createdAt } }`);
    expect(withCreatedAt.data.department.createdAt).toBe(dept.createdAt.toISOString());
    const mine = await q(manager, '{ departments { items { id } } }');
    expect(mine.data.departments.items).toEqual([{ id: dept.id }]);
    expect(codes(await q(manager, `{ department(id: "${other.id}") { id } }`))).toEqual(['forbidden']);
    expect(codes(await q(await f.makeUser(), '{ departments { total } }'))).toEqual(['forbidden']);
  });

  it('nested members and groups (with members) equal the REST reads, in a constant number of queries', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const QUERY = `{ departments(limit: 100) { items { id members { ${SUMMARY} } groups { id name memberCount members { id } } } } }`;
    const addDepartment = async () => {
      const d = await f.makeDepartment();
      const u = await f.makeUser({ department: d });
      await f.makeGroup({ department: d, members: [u] });
    };
    await addDepartment();
    const before = await fx.countQueries(() => q(admin, QUERY));
    for (let i = 0; i < 10; i++) await addDepartment();
    const after = await fx.countQueries(() => q(admin, QUERY));
    expect(after.result.errors).toBeUndefined();
    expect(after.queries).toBe(before.queries);
    const restGroups = (await as(admin).get('/api/groups')).body.groups;
    for (const d of after.result.data.departments.items) {
      expect(d.members).toEqual((await as(admin).get(`/api/departments/${d.id}/members`)).body.members);
      const expected = restGroups.filter((g: any) => g.departmentId === d.id);
      expect(d.groups.map((g: any) => ({ id: g.id, name: g.name, memberCount: g.memberCount }))).toEqual(
        expected.map((g: any) => ({ id: g.id, name: g.name, memberCount: g.memberCount })),
      );
      for (const g of d.groups) {
        expect(g.members).toEqual((await as(admin).get(`/api/groups/${g.id}`)).body.group.members.map((m: any) => ({ id: m.id })));
      }
    }
  });

  it('department mutations, member moves and the 409 blockers carry the REST codes', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const name = `GQL Dept ${Date.now()}`;
    const created = await q(admin, `mutation($i: CreateDepartmentInput!) { createDepartment(input: $i) { ${DEPT} } }`, {
      i: { name, color: '#112233', description: 'd' },
    });
    expect(created.errors).toBeUndefined();
    const d = created.data.createDepartment;
    expect(d.counts).toEqual({ members: 0, groups: 0, grants: 0 });
    expect(
      codes(
        await q(admin, 'mutation($i: CreateDepartmentInput!) { createDepartment(input: $i) { id } }', {
          i: { name, color: '#112233', description: '' },
        }),
      ),
    ).toEqual(['department_name_exists']);
    const u = await f.makeUser({ department: await f.makeDepartment() });
    const ADD = 'mutation($id: ID!, $i: AddDepartmentMembersInput!) { addDepartmentMembers(id: $id, input: $i) { id departmentId } }';
    expect(codes(await q(admin, ADD, { id: d.id, i: { userIds: [u.id] } }))).toEqual(['user_in_other_department']);
    expect((await q(admin, ADD, { id: d.id, i: { userIds: [u.id], replace: true } })).data.addDepartmentMembers).toEqual([
      { id: u.id, departmentId: d.id },
    ]);
    expect(codes(await q(admin, `mutation { deleteDepartment(id: "${d.id}") { id } }`))).toEqual(['department_has_members']);
    expect(
      (await q(admin, `mutation { removeDepartmentMember(id: "${d.id}", userId: "${u.id}") { success id } }`)).data.removeDepartmentMember,
    ).toEqual({ success: true, id: u.id });
    expect(
      (await q(admin, `mutation { updateDepartment(id: "${d.id}", input: { color: "#445566" }) { color } }`)).data.updateDepartment,
    ).toEqual({ color: '#445566' });
    expect((await q(admin, `mutation { deleteDepartment(id: "${d.id}") { success id } }`)).data.deleteDepartment).toEqual({
      success: true,
      id: d.id,
    });
  });

  it('group queries and mutations equal REST and follow its gates', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const dept = await f.makeDepartment();
    const manager = await f.makeUser({ department: dept, orgPosition: 'manager' });
    const worker = await f.makeUser({ department: dept });
    const GROUP = `id name description departmentId department { id name color } memberCount members { ${SUMMARY} } createdAt`;
    const created = await q(manager, `mutation($i: CreateGroupInput!) { createGroup(input: $i) { ${GROUP} } }`, {
      i: { name: 'Team', departmentId: dept.id },
    });
    expect(created.errors).toBeUndefined();
    const g = created.data.createGroup;
    expect(codes(await q(worker, `mutation { addGroupMembers(id: "${g.id}", input: { userIds: ["${worker.id}"] }) { id } }`))).toEqual([
      'forbidden',
    ]);
    const added = await q(manager, `mutation { addGroupMembers(id: "${g.id}", input: { userIds: ["${worker.id}"] }) { ${GROUP} } }`);
    expect(added.data.addGroupMembers).toEqual((await as(admin).get(`/api/groups/${g.id}`)).body.group);
    expect((await q(admin, `{ group(id: "${g.id}") { ${GROUP} } }`)).data.group).toEqual(
      (await as(admin).get(`/api/groups/${g.id}`)).body.group,
    );
    const list = await q(manager, `{ groups { total items { id name memberCount } } }`);
    expect(list.data.groups.items).toEqual(
      (await as(manager).get('/api/groups')).body.groups.map((x: any) => ({ id: x.id, name: x.name, memberCount: x.memberCount })),
    );
    expect(codes(await q(worker, '{ groups { total } }'))).toEqual(['forbidden']);
    expect(
      (await q(manager, `mutation { removeGroupMember(id: "${g.id}", userId: "${worker.id}") { success id } }`)).data.removeGroupMember,
    ).toEqual({ success: true, id: worker.id });
    expect(
      (await q(manager, `mutation { updateGroup(id: "${g.id}", input: { description: "x" }) { description } }`)).data.updateGroup,
    ).toEqual({ description: 'x' });
    expect((await q(manager, `mutation { deleteGroup(id: "${g.id}") { success id } }`)).data.deleteGroup).toEqual({
      success: true,
      id: g.id,
    });
  });
});

describe('graphql: providers', () => {
  const KEY = 'sk-graphql-test-key-0123456789';
  const body = (over: Record<string, unknown> = {}) => ({
    name: 'Stub',
    slug: `stub-${Date.now().toString(36)}`,
    type: 'custom',
    baseUrl: stub.url,
    apiKey: KEY,
    models: ['gpt-stub', 'gpt-mini'],
    ...over,
  });
  const ADMIN_FIELDS =
    'id name slug type baseUrl apiKey hasApiKey models embeddingModels rerankModels isDefault isEnabled createdAt updatedAt';

  it('the public listing and models equal REST; secrets are forbidden to non provider admins, the key is masked for admins', async () => {
    const engineer = await f.makeUser({ platformRole: 'engineer' });
    const member = await f.makeUser();
    const admin = await f.makeUser({ platformRole: 'admin' });
    const created = await q(engineer, `mutation($i: CreateProviderInput!) { createProvider(input: $i) { ${ADMIN_FIELDS} } }`, {
      i: body(),
    });
    expect(created.errors).toBeUndefined();
    expect(created.data.createProvider.apiKey).not.toContain(KEY);
    expect(
      (await q(member, '{ providers { id name slug models embeddingModels rerankModels isDefault isEnabled } }')).data.providers,
    ).toEqual((await as(member).get('/api/providers')).body.providers);
    expect((await q(member, '{ providerModels { id model provider providerSlug providerId isDefault } }')).data.providerModels).toEqual(
      (await as(member).get('/api/providers/models')).body.models,
    );
    const leak = await q(member, '{ providers { id apiKey baseUrl } }');
    expect(leak.data.providers.every((p: any) => p.apiKey === null && p.baseUrl === null)).toBe(true);
    expect(new Set(codes(leak))).toEqual(new Set(['forbidden']));
    expect(new Set(codes(await q(admin, '{ providers { apiKey } }')))).toEqual(new Set(['forbidden'])); // an admin does not manage providers
    expect(codes(await q(admin, '{ adminProviders { id } }'))).toEqual(['forbidden']);
    const asEngineer = await q(engineer, `{ adminProviders { ${ADMIN_FIELDS} } providers { id apiKey } }`);
    expect(asEngineer.errors).toBeUndefined();
    expect(asEngineer.data.adminProviders).toEqual((await as(engineer).get('/api/providers/admin')).body.providers);
    expect(JSON.stringify(asEngineer.data)).not.toContain(KEY);
  });

  it('update, test and delete follow the REST rules', async () => {
    const engineer = await f.makeUser({ platformRole: 'engineer' });
    const id = (await q(engineer, 'mutation($i: CreateProviderInput!) { createProvider(input: $i) { id } }', { i: body() })).data
      .createProvider.id;
    expect(codes(await q(engineer, `mutation { updateProvider(id: "${id}", input: { models: [] }) { id } }`))).toEqual([
      'validation_failed',
    ]);
    expect(
      (await q(engineer, `mutation { updateProvider(id: "${id}", input: { name: "Renamed", apiKey: "" }) { name hasApiKey } }`)).data
        .updateProvider,
    ).toEqual({ name: 'Renamed', hasApiKey: true });
    stub.set({ content: 'pong' });
    const tested = await q(
      engineer,
      `mutation { testProvider(id: "${id}", input: { model: "gpt-stub" }) { ok status sample error latencyMs } }`,
    );
    expect(tested.data.testProvider).toMatchObject({ ok: true, status: 200, sample: 'pong', error: null });
    expect(stub.last().authorization).toBe(`Bearer ${KEY}`);
    expect(
      codes(
        await q(await f.makeUser({ platformRole: 'admin' }), `mutation { testProvider(id: "${id}", input: { model: "gpt-stub" }) { ok } }`),
      ),
    ).toEqual(['forbidden']);
    expect((await q(engineer, `mutation { deleteProvider(id: "${id}") { success id } }`)).data.deleteProvider).toEqual({
      success: true,
      id,
    });
    const rest = await as(engineer).delete(`/api/providers/${id}`);
    expect(rest.status).toBe(404);
    expect(codes(await q(engineer, `mutation { deleteProvider(id: "${id}") { id } }`))).toEqual([rest.body.error]);
  });
});
