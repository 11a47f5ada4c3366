import { randomBytes, randomUUID } from 'node:crypto';
import { createTestApp, TestApp } from '../support/test-app';
import { api, client } from '../support/http';
import { DEFAULT_PASSWORD, factories } from '../support/factories';

let t: TestApp;
let f: ReturnType<typeof factories>;
let cast: Awaited<ReturnType<ReturnType<typeof factories>['makeCast']>>;

const sql = <T = any>(query: string, params: unknown[] = []): Promise<T[]> => t.orm.em.fork().getConnection().execute(query, params);
const as = (u: { token: string }) => client(t.baseUrl, u.token);
const login = (email: string, password = DEFAULT_PASSWORD) => api(t.baseUrl, 'POST', '/api/auth/login', { body: { email, password } });
const tag = () => randomBytes(4).toString('hex');
const newUserBody = (over: Record<string, unknown> = {}) => ({
  email: `new-${tag()}@example.com`,
  name: `New ${tag()}`,
  password: 'long-enough-pw',
  platformRole: 'none',
  orgPosition: 'member',
  ...over,
});

beforeAll(async () => {
  t = await createTestApp();
  f = factories(t.orm, t.services);
  cast = await f.makeCast();
});
afterAll(async () => t?.close());

/** Callers refused by the users gate (admin and superadmin only). */
const refused = () =>
  [
    ['member', cast.member],
    ['manager', cast.manager],
    ['manager of another department', cast.otherManager],
    ['engineer', cast.engineer],
    ['CEO', cast.ceo],
  ] as const;

describe('authentication and the admin gate', () => {
  // a fixed id: it is part of the test names, which `jest -t` selects by
  const someId = '00000000-0000-4000-8000-000000000000';
  // every row has three entries: jest would take a missing third as a done callback
  const endpoints: Array<[string, string, unknown]> = [
    ['GET', '/api/users', undefined],
    ['GET', '/api/users/me', undefined],
    ['GET', `/api/users/${someId}`, undefined],
    ['POST', '/api/users', newUserBody()],
    ['PATCH', `/api/users/${someId}`, { name: 'x' }],
    ['DELETE', `/api/users/${someId}`, undefined],
  ];

  it.each(endpoints)('%s %s requires authentication', async (method, path, body) => {
    const res = await api(t.baseUrl, method, path, { body });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });

  it('refuses every non-admin caller on every admin endpoint with 403', async () => {
    const target = await f.makeUser();
    for (const [who, caller] of refused()) {
      const c = as(caller);
      const results = await Promise.all([
        c.get('/api/users'),
        c.get(`/api/users/${target.id}`),
        c.post('/api/users', newUserBody()),
        c.patch(`/api/users/${target.id}`, { name: 'renamed' }),
        c.delete(`/api/users/${target.id}`),
      ]);
      expect({ who, statuses: results.map((r) => r.status) }).toEqual({ who, statuses: [403, 403, 403, 403, 403] });
    }
    // nothing changed
    expect((await as(cast.admin).get(`/api/users/${target.id}`)).body.user.name).toBe(target.name);
  });

  it('admits admin and superadmin', async () => {
    for (const caller of [cast.admin, cast.superadmin]) {
      expect((await as(caller).get('/api/users')).status).toBe(200);
      expect((await as(caller).get(`/api/users/${cast.member.id}`)).status).toBe(200);
    }
  });

  it('GET /users/me answers every authenticated caller with their own user', async () => {
    for (const caller of [cast.member, cast.manager, cast.otherManager, cast.engineer, cast.admin, cast.superadmin, cast.ceo]) {
      const res = await as(caller).get('/api/users/me');
      expect(res.status).toBe(200);
      expect(res.body.user.id).toBe(caller.id);
    }
    const me = (await as(cast.member).get('/api/users/me')).body.user;
    expect(me.departmentId).toBe(cast.dept.id);
    expect(me).not.toHaveProperty('department'); // spec: `department` only in the user list
  });
});

describe('GET /users', () => {
  it('answers {users, total} with the documented fields, the department, and no password hash', async () => {
    const res = await as(cast.admin).get(`/api/users?departmentId=${cast.dept.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ users: expect.any(Array), total: expect.any(Number) });
    const member = res.body.users.find((u: any) => u.id === cast.member.id);
    expect(member).toEqual({
      id: cast.member.id,
      email: cast.member.email,
      name: cast.member.name,
      platformRole: 'none',
      orgPosition: 'member',
      departmentId: cast.dept.id,
      department: { id: cast.dept.id, name: cast.dept.name, color: cast.dept.color },
      avatarColor: expect.stringMatching(/^#[0-9a-f]{6}$/i),
      status: 'active',
      lastLoginAt: null,
      createdAt: expect.any(String),
    });
    expect(res.text).not.toMatch(/password|\$2[aby]\$/i);
  });

  it('users without a department have department null', async () => {
    const res = await as(cast.admin).get('/api/users?platformRole=engineer');
    const eng = res.body.users.find((u: any) => u.id === cast.engineer.id);
    expect(eng.departmentId).toBeNull();
    expect(eng.department).toBeNull();
  });

  it('search is case-insensitive on name or email', async () => {
    const k = tag();
    const byName = await f.makeUser({ name: `Zebra ${k} Person` });
    const byEmail = await f.makeUser({ email: `zeb-${k}@example.org` });
    const res = await as(cast.admin).get(`/api/users?search=${encodeURIComponent(k.toUpperCase())}`);
    expect(res.body.users.map((u: any) => u.id).sort()).toEqual([byName.id, byEmail.id].sort());
    expect(res.body.total).toBe(2);
  });

  it('search matches % and _ literally, not as wildcards', async () => {
    const k = tag();
    const percent = await f.makeUser({ name: `${k} 100% sure` });
    await f.makeUser({ name: `${k} 100x sure` });
    const underscore = await f.makeUser({ name: `${k} a_b` });
    await f.makeUser({ name: `${k} axb` });
    const backslash = await f.makeUser({ name: `${k} c\\d` });
    const q = (s: string) => as(cast.admin).get(`/api/users?search=${encodeURIComponent(s)}`);
    expect((await q(`${k} 100%`)).body.users.map((u: any) => u.id)).toEqual([percent.id]);
    expect((await q(`${k} a_b`)).body.users.map((u: any) => u.id)).toEqual([underscore.id]);
    expect((await q(`${k} c\\d`)).body.users.map((u: any) => u.id)).toEqual([backslash.id]);
    expect((await q(`${k}%sure`)).body.total).toBe(0);
    expect((await q('%%%')).body.total).toBe(0);
  });

  it('filters by platformRole, orgPosition and departmentId (combined with AND)', async () => {
    const dept = await f.makeDepartment();
    const m1 = await f.makeUser({ department: dept, orgPosition: 'manager' });
    const m2 = await f.makeUser({ department: dept });
    const ids = async (qs: string) => (await as(cast.admin).get(`/api/users?${qs}`)).body.users.map((u: any) => u.id).sort();
    expect(await ids(`departmentId=${dept.id}`)).toEqual([m1.id, m2.id].sort());
    expect(await ids(`departmentId=${dept.id}&orgPosition=manager`)).toEqual([m1.id]);
    expect(await ids(`departmentId=${dept.id}&platformRole=admin`)).toEqual([]);
    expect(await ids('orgPosition=ceo')).toEqual([cast.ceo.id]);
    expect(await ids('platformRole=superadmin')).toEqual([cast.superadmin.id]);
  });

  it('filters by status', async () => {
    const dept = await f.makeDepartment();
    const active = await f.makeUser({ department: dept });
    const gone = await f.makeUser({ department: dept, status: 'inactive' });
    const ids = async (qs: string) => (await as(cast.admin).get(`/api/users?${qs}`)).body.users.map((u: any) => u.id).sort();
    expect(await ids(`departmentId=${dept.id}&status=inactive`)).toEqual([gone.id]);
    expect(await ids(`departmentId=${dept.id}&status=active`)).toEqual([active.id]);
  });

  it('pages with limit and offset; total counts every match; limit defaults to 50 and is capped at 200', async () => {
    const k = tag();
    await sql(
      `insert into users (email, name, password_hash, avatar_color)
       select 'bulk-' || i || '-${k}@example.com', 'Bulk ${k} ' || lpad(i::text, 3, '0'), 'x', '#000000' from generate_series(1, 230) i`,
    );
    const get = (qs: string) => as(cast.admin).get(`/api/users?search=bulk-&${qs}`);
    const all = await get('limit=200');
    expect(all.body.total).toBe(230);
    expect(all.body.users).toHaveLength(200);
    expect((await get('')).body.users).toHaveLength(50);
    expect((await get('limit=1000')).body.users).toHaveLength(200);
    const page1 = await get('limit=100&offset=0');
    const page3 = await get('limit=100&offset=200');
    expect(page3.body.users).toHaveLength(30);
    expect(page3.body.total).toBe(230);
    const seen = new Set(
      [...page1.body.users, ...(await get('limit=100&offset=100')).body.users, ...page3.body.users].map((u: any) => u.id),
    );
    expect(seen.size).toBe(230); // stable order: pages neither overlap nor skip
    const past = await get('offset=5000');
    expect(past.body).toEqual({ users: [], total: 230 });
  });

  it.each([
    ['limit=0'],
    ['limit=-1'],
    ['limit=abc'],
    ['limit=1.5'],
    ['offset=-1'],
    ['offset=x'],
    ['platformRole=root'],
    ['orgPosition=boss'],
    ['status=gone'],
    ['departmentId=not-a-uuid'],
    ['unknown=1'],
    ['limit=1&limit=2'],
  ])('rejects the query %s with 400 validation_failed', async (qs) => {
    const res = await as(cast.admin).get(`/api/users?${qs}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
  });
});

describe('POST /users', () => {
  it('creates a user: 201 {user}, email lower-cased, password stored as a bcrypt cost-10 hash, login works', async () => {
    const body = newUserBody({ email: `Mixed.${tag()}@Example.COM`, departmentId: cast.dept.id });
    const res = await as(cast.admin).post('/api/users', body);
    expect(res.status).toBe(201);
    expect(res.body.user).toEqual(
      expect.objectContaining({
        email: body.email.toLowerCase(),
        name: body.name,
        platformRole: 'none',
        orgPosition: 'member',
        departmentId: cast.dept.id,
        status: 'active',
      }),
    );
    expect(res.body.user).not.toHaveProperty('department');
    expect(res.text).not.toMatch(/password|\$2[aby]\$/i);
    const [row] = await sql(`select password_hash from users where id = ?`, [res.body.user.id]);
    expect(row.password_hash).toMatch(/^\$2[aby]\$10\$/);
    expect((await login(body.email.toUpperCase(), 'long-enough-pw')).status).toBe(200);
  });

  it('lets the superadmin create platform staff without a department', async () => {
    const res = await as(cast.superadmin).post('/api/users', newUserBody({ platformRole: 'engineer' }));
    expect(res.status).toBe(201);
    expect(res.body.user).toEqual(expect.objectContaining({ platformRole: 'engineer', departmentId: null }));
  });

  it('spec rule 1: never creates a superadmin (403 forbidden_role), whoever asks', async () => {
    for (const caller of [cast.admin, cast.superadmin]) {
      const res = await as(caller).post('/api/users', newUserBody({ platformRole: 'superadmin' }));
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('forbidden_role');
    }
    expect(await sql(`select id from users where platform_role = 'superadmin'`)).toHaveLength(1);
  });

  it('409 email_exists for a used email, whatever its case', async () => {
    const res = await as(cast.admin).post('/api/users', newUserBody({ email: cast.member.email.toUpperCase() }));
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('email_exists');
  });

  it('400 department_not_found for an unknown departmentId', async () => {
    const res = await as(cast.admin).post('/api/users', newUserBody({ departmentId: randomUUID() }));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('department_not_found');
  });

  it('400 validation_failed (field departmentId) when platform staff or the CEO is given a department', async () => {
    const admin = await as(cast.superadmin).post('/api/users', newUserBody({ platformRole: 'admin', departmentId: cast.dept.id }));
    expect(admin.status).toBe(400);
    expect(admin.body.error).toBe('validation_failed');
    expect(admin.body.details).toEqual([{ field: 'departmentId', message: expect.stringMatching(/do not belong to a department/) }]);
    const ceo = await as(cast.admin).post('/api/users', newUserBody({ orgPosition: 'ceo', departmentId: cast.dept.id }));
    expect(ceo.status).toBe(400);
    expect(ceo.body.error).toBe('validation_failed');
    expect(ceo.body.details).toEqual([{ field: 'departmentId', message: expect.stringMatching(/do not belong to a department/) }]);
  });

  it('spec rule 4: 409 ceo_exists while a CEO exists', async () => {
    const res = await as(cast.admin).post('/api/users', newUserBody({ orgPosition: 'ceo' }));
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('ceo_exists');
  });

  const invalid: Array<[string, Record<string, unknown>]> = [
    ['a 7-character password', newUserBody({ password: 'short12' })],
    ['a missing email', (({ email: _e, ...rest }) => rest)(newUserBody())],
    ['a missing name', (({ name: _n, ...rest }) => rest)(newUserBody())],
    ['a missing password', (({ password: _p, ...rest }) => rest)(newUserBody())],
    ['a missing platformRole', (({ platformRole: _r, ...rest }) => rest)(newUserBody())],
    ['a missing orgPosition', (({ orgPosition: _o, ...rest }) => rest)(newUserBody())],
    ['an unknown field', newUserBody({ isAdmin: true })],
    ['a numeric name', newUserBody({ name: 42 })],
    ['a blank name', newUserBody({ name: '   ' })],
    ['a non-string password', newUserBody({ password: 12345678 })],
    ['an invalid email', newUserBody({ email: 'not-an-email' })],
    ['an unknown platformRole', newUserBody({ platformRole: 'root' })],
    ['an unknown orgPosition', newUserBody({ orgPosition: 'boss' })],
    ['a malformed departmentId', newUserBody({ departmentId: 'dept-1' })],
    ['an object whose constructor key is a string', newUserBody({ email: { constructor: 'x' } })],
  ];
  it.each(invalid)('400 validation_failed for %s', async (_label, body) => {
    const res = await as(cast.admin).post('/api/users', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
    expect(res.body.details?.length).toBeGreaterThan(0);
  });

  it('an 8-character password is enough', async () => {
    expect((await as(cast.admin).post('/api/users', newUserBody({ password: '12345678' }))).status).toBe(201);
  });

  it('400 (not 500) for a malformed JSON body and for a JSON array', async () => {
    const bad = await api(t.baseUrl, 'POST', '/api/users', {
      token: cast.admin.token,
      rawBody: '{"email":',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect((await as(cast.admin).post('/api/users', [newUserBody()])).status).toBe(400);
  });
});

describe('GET /users/:id', () => {
  it('answers {user}', async () => {
    const res = await as(cast.admin).get(`/api/users/${cast.manager.id}`);
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual(expect.objectContaining({ id: cast.manager.id, orgPosition: 'manager', departmentId: cast.dept.id }));
    expect(res.body.user).not.toHaveProperty('department'); // spec: only in the user list
    expect(res.text).not.toMatch(/password/i);
  });

  it('404 for an unknown id and for a malformed one (never 500)', async () => {
    for (const id of [randomUUID(), 'not-a-uuid', '1', "'; drop table users; --"]) {
      const res = await as(cast.admin).get(`/api/users/${encodeURIComponent(id)}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not_found', message: 'User not found' });
    }
  });
});

describe('PATCH /users/:id', () => {
  it('updates name, email (lower-cased) and answers {user}', async () => {
    const u = await f.makeUser();
    const email = `Renamed-${tag()}@Example.com`;
    const res = await as(cast.admin).patch(`/api/users/${u.id}`, { name: 'Renamed', email });
    expect(res.status).toBe(200);
    expect(res.body.user).toEqual(expect.objectContaining({ id: u.id, name: 'Renamed', email: email.toLowerCase() }));
    expect(res.text).not.toMatch(/password/i);
  });

  it('re-hashes a new password (cost 10): the new one logs in, the old one no longer does', async () => {
    const u = await f.makeUser();
    const res = await as(cast.admin).patch(`/api/users/${u.id}`, { password: 'brand-new-password' });
    expect(res.status).toBe(200);
    const [row] = await sql(`select password_hash from users where id = ?`, [u.id]);
    expect(row.password_hash).toMatch(/^\$2[aby]\$10\$/);
    expect((await login(u.email, 'brand-new-password')).status).toBe(200);
    expect((await login(u.email)).status).toBe(401);
  });

  it('refuses a password shorter than 8 characters', async () => {
    const u = await f.makeUser();
    const res = await as(cast.admin).patch(`/api/users/${u.id}`, { password: '1234567' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
    expect((await login(u.email)).status).toBe(200);
  });

  it.each([
    ['an unknown field', { nickname: 'x' }],
    ['a null name', { name: null }],
    ['a numeric name', { name: 1 }],
    ['a boolean status', { status: true }],
    ['an unknown status', { status: 'deleted' }],
    ['an invalid email', { email: 'nope' }],
    ['a malformed departmentId', { departmentId: 'x' }],
    ['a null password', { password: null }],
  ])('400 validation_failed for %s', async (_label, body) => {
    const u = await f.makeUser();
    const res = await as(cast.admin).patch(`/api/users/${u.id}`, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
  });

  it("409 email_exists when taking another user's email", async () => {
    const u = await f.makeUser();
    const res = await as(cast.admin).patch(`/api/users/${u.id}`, { email: cast.member.email.toUpperCase() });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('email_exists');
  });

  it("keeping one's own email is not a conflict", async () => {
    const u = await f.makeUser();
    expect((await as(cast.admin).patch(`/api/users/${u.id}`, { email: u.email })).status).toBe(200);
  });

  it('status inactive blocks login and the existing token; active restores both', async () => {
    const u = await f.makeUser();
    expect((await as(cast.admin).patch(`/api/users/${u.id}`, { status: 'inactive' })).body.user.status).toBe('inactive');
    expect((await login(u.email)).status).toBe(401);
    expect((await as(u).get('/api/users/me')).status).toBe(401);
    expect((await as(cast.admin).patch(`/api/users/${u.id}`, { status: 'active' })).status).toBe(200);
    expect((await login(u.email)).status).toBe(200);
  });

  describe('spec rule 2: only the superadmin changes a platformRole to or from admin/engineer', () => {
    it.each([
      ['none', 'admin'],
      ['none', 'engineer'],
      ['admin', 'none'],
      ['engineer', 'none'],
      ['admin', 'engineer'],
      ['engineer', 'admin'],
    ] as const)('an admin cannot change %s → %s (403 forbidden_role); the superadmin can', async (from, to) => {
      const u = await f.makeUser({ platformRole: from });
      const denied = await as(cast.admin).patch(`/api/users/${u.id}`, { platformRole: to });
      expect(denied.status).toBe(403);
      expect(denied.body.error).toBe('forbidden_role');
      expect((await as(cast.admin).get(`/api/users/${u.id}`)).body.user.platformRole).toBe(from);
      const ok = await as(cast.superadmin).patch(`/api/users/${u.id}`, { platformRole: to });
      expect(ok.status).toBe(200);
      expect(ok.body.user.platformRole).toBe(to);
    });

    it('an admin cannot change their own platformRole either', async () => {
      const admin = await f.makeUser({ platformRole: 'admin' });
      const res = await as(admin).patch(`/api/users/${admin.id}`, { platformRole: 'engineer' });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('forbidden_role');
    });

    it('an admin may send the unchanged platformRole with other fields', async () => {
      const u = await f.makeUser();
      const res = await as(cast.admin).patch(`/api/users/${u.id}`, { platformRole: 'none', name: 'Same role' });
      expect(res.status).toBe(200);
      expect(res.body.user.name).toBe('Same role');
    });

    it('a role change applies to the next request at once', async () => {
      const u = await f.makeUser();
      expect((await as(u).get('/api/users')).status).toBe(403);
      await as(cast.superadmin).patch(`/api/users/${u.id}`, { platformRole: 'admin' });
      expect((await as(u).get('/api/users')).status).toBe(200);
    });
  });

  it('spec rule 3: nobody sets platformRole superadmin through PATCH (403 forbidden_role)', async () => {
    const u = await f.makeUser({ platformRole: 'admin' });
    for (const caller of [cast.admin, cast.superadmin]) {
      const res = await as(caller).patch(`/api/users/${u.id}`, { platformRole: 'superadmin' });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('forbidden_role');
    }
    expect(await sql(`select id from users where platform_role = 'superadmin'`)).toHaveLength(1);
  });

  it('spec rule 4: 409 ceo_exists when setting orgPosition ceo while a CEO exists', async () => {
    const u = await f.makeUser();
    const res = await as(cast.admin).patch(`/api/users/${u.id}`, { orgPosition: 'ceo' });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('ceo_exists');
  });

  it('409 singleton_immutable when moving the CEO off orgPosition ceo', async () => {
    for (const orgPosition of ['member', 'manager']) {
      const res = await as(cast.admin).patch(`/api/users/${cast.ceo.id}`, { orgPosition });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('singleton_immutable');
    }
  });

  it("409 singleton_immutable when the superadmin's platformRole would change", async () => {
    for (const platformRole of ['admin', 'engineer', 'none']) {
      const res = await as(cast.superadmin).patch(`/api/users/${cast.superadmin.id}`, { platformRole });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe('singleton_immutable');
    }
  });

  it('the singletons can be renamed', async () => {
    expect((await as(cast.admin).patch(`/api/users/${cast.ceo.id}`, { name: 'The Chief' })).body.user.name).toBe('The Chief');
    expect((await as(cast.superadmin).patch(`/api/users/${cast.superadmin.id}`, { name: 'Root' })).body.user.name).toBe('Root');
  });

  it('only the superadmin changes the superadmin account (403 forbidden for an admin)', async () => {
    for (const body of [
      { name: 'pwned' },
      { password: 'takeover-password' },
      { email: `x-${tag()}@example.com` },
      { status: 'inactive' },
    ]) {
      const res = await as(cast.admin).patch(`/api/users/${cast.superadmin.id}`, body);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'forbidden', message: 'Only the superadmin can change the superadmin account' });
    }
    expect((await as(cast.superadmin).get('/api/users/me')).status).toBe(200);
  });

  it('the superadmin cannot be deactivated, not even by themselves', async () => {
    const res = await as(cast.superadmin).patch(`/api/users/${cast.superadmin.id}`, { status: 'inactive' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'forbidden', message: 'The superadmin cannot be deactivated' });
  });

  describe('departmentId', () => {
    it('moves a member into a department, and null takes them out', async () => {
      const u = await f.makeUser();
      const set = await as(cast.admin).patch(`/api/users/${u.id}`, { departmentId: cast.dept.id });
      expect(set.status).toBe(200);
      expect(set.body.user.departmentId).toBe(cast.dept.id);
      const cleared = await as(cast.admin).patch(`/api/users/${u.id}`, { departmentId: null });
      expect(cleared.body.user.departmentId).toBeNull();
    });

    it('400 department_not_found for an unknown department', async () => {
      const u = await f.makeUser();
      const res = await as(cast.admin).patch(`/api/users/${u.id}`, { departmentId: randomUUID() });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('department_not_found');
    });

    it('400 validation_failed (field departmentId) for platform staff and the CEO', async () => {
      const eng = await f.makeUser({ platformRole: 'engineer' });
      for (const id of [eng.id, cast.ceo.id]) {
        const res = await as(cast.superadmin).patch(`/api/users/${id}`, { departmentId: cast.dept.id });
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('validation_failed');
        expect(res.body.details).toEqual([{ field: 'departmentId', message: expect.stringMatching(/do not belong to a department/) }]);
      }
    });

    it('promoting a member to platform staff takes them out of their department and its groups', async () => {
      const dept = await f.makeDepartment();
      const u = await f.makeUser({ department: dept });
      const g = await f.makeGroup({ department: dept, members: [u] });
      const res = await as(cast.superadmin).patch(`/api/users/${u.id}`, { platformRole: 'admin' });
      expect(res.status).toBe(200);
      expect(res.body.user.departmentId).toBeNull();
      expect(await sql(`select 1 from group_members where group_id = ? and user_id = ?`, [g.id, u.id])).toHaveLength(0);
    });

    it('changing department drops group memberships of the old department only', async () => {
      const from = await f.makeDepartment();
      const to = await f.makeDepartment();
      const u = await f.makeUser({ department: from });
      const g = await f.makeGroup({ department: from, members: [u] });
      await as(cast.admin).patch(`/api/users/${u.id}`, { departmentId: to.id });
      expect(await sql(`select 1 from group_members where group_id = ? and user_id = ?`, [g.id, u.id])).toHaveLength(0);
      // an unrelated PATCH keeps memberships in the current department
      const g2 = await f.makeGroup({ department: to, members: [u] });
      await as(cast.admin).patch(`/api/users/${u.id}`, { name: 'Still here' });
      expect(await sql(`select 1 from group_members where group_id = ? and user_id = ?`, [g2.id, u.id])).toHaveLength(1);
    });
  });

  it('404 for an unknown or malformed id', async () => {
    expect((await as(cast.admin).patch(`/api/users/${randomUUID()}`, { name: 'x' })).status).toBe(404);
    expect((await as(cast.admin).patch('/api/users/zzz', { name: 'x' })).status).toBe(404);
  });
});

describe('DELETE /users/:id', () => {
  it('deletes the user with their grants, group and project memberships; conversations and messages stay with user null', async () => {
    const dept = await f.makeDepartment();
    const u = await f.makeUser({ department: dept });
    const group = await f.makeGroup({ department: dept, members: [u] });
    const project = await f.makeProject();
    const grant = await f.makeGrant({ project, user: u, tier: 'edit' });
    const [conv] = await sql(`insert into conversations (project_id, user_id, title) values (?, ?, 'hello') returning id`, [
      project.id,
      u.id,
    ]);
    await sql(`insert into messages (conversation_id, user_id, role, content) values (?, ?, 'user', 'hi')`, [conv.id, u.id]);

    const res = await as(cast.admin).delete(`/api/users/${u.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: u.id });
    expect((await as(cast.admin).get(`/api/users/${u.id}`)).status).toBe(404);
    expect(await sql(`select 1 from project_grants where id = ?`, [grant.id])).toHaveLength(0);
    expect(await sql(`select 1 from group_members where group_id = ? and user_id = ?`, [group.id, u.id])).toHaveLength(0);
    expect(await sql(`select 1 from project_members where project_id = ? and user_id = ?`, [project.id, u.id])).toHaveLength(0);
    expect(await sql(`select user_id from conversations where id = ?`, [conv.id])).toEqual([{ user_id: null }]);
    expect(await sql(`select user_id, content from messages where conversation_id = ?`, [conv.id])).toEqual([
      { user_id: null, content: 'hi' },
    ]);
    // the deleted user's token no longer works
    expect((await as(u).get('/api/users/me')).status).toBe(401);
  });

  it('spec rule 5: the superadmin cannot be deleted (403 forbidden)', async () => {
    for (const caller of [cast.admin, cast.superadmin]) {
      const res = await as(caller).delete(`/api/users/${cast.superadmin.id}`);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'forbidden', message: 'The superadmin cannot be deleted' });
    }
    expect((await as(cast.superadmin).get('/api/users/me')).status).toBe(200);
  });

  it('spec rule 5: nobody deletes themselves (403 forbidden)', async () => {
    const admin = await f.makeUser({ platformRole: 'admin' });
    const res = await as(admin).delete(`/api/users/${admin.id}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'forbidden', message: 'You cannot delete your own account' });
    expect((await as(admin).get('/api/users/me')).status).toBe(200);
  });

  it('404 for an unknown or malformed id', async () => {
    expect((await as(cast.admin).delete(`/api/users/${randomUUID()}`)).status).toBe(404);
    expect((await as(cast.admin).delete('/api/users/not-a-uuid')).status).toBe(404);
  });
});

describe('singleton rules under concurrency', () => {
  /** Removes the CEO (a plain member again) so a race for the position can start. */
  async function vacateCeo(): Promise<void> {
    await sql(`update users set org_position = 'member' where org_position = 'ceo'`);
  }
  // after each race the cast's CEO is the CEO again: the other blocks expect it
  afterEach(async () => {
    await vacateCeo();
    await sql(`update users set org_position = 'ceo' where id = ?`, [cast.ceo.id]);
  });

  it('concurrent POSTs of a CEO: exactly one succeeds, the others get 409 ceo_exists', async () => {
    await vacateCeo();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => as(cast.admin).post('/api/users', newUserBody({ orgPosition: 'ceo' }))),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error).toBe('ceo_exists');
    expect(await sql(`select id from users where org_position = 'ceo'`)).toHaveLength(1);
  });

  it('concurrent PATCHes making different users CEO: exactly one succeeds', async () => {
    await vacateCeo();
    const candidates = await Promise.all(Array.from({ length: 6 }, () => f.makeUser()));
    const results = await Promise.all(candidates.map((u) => as(cast.admin).patch(`/api/users/${u.id}`, { orgPosition: 'ceo' })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error).toBe('ceo_exists');
    const ceos = await sql(`select id from users where org_position = 'ceo'`);
    expect(ceos).toHaveLength(1);
    expect(ceos[0].id).toBe(candidates[results.findIndex((r) => r.status === 200)].id);
  });

  it('the database itself refuses a second CEO or superadmin (partial unique indexes)', async () => {
    const u = await f.makeUser();
    await expect(sql(`update users set org_position = 'ceo' where id = ?`, [u.id])).rejects.toThrow(/users_single_ceo/);
    await expect(sql(`update users set platform_role = 'superadmin' where id = ?`, [u.id])).rejects.toThrow(/users_single_superadmin/);
  });
});
