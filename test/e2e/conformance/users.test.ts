/**
 * Spec conformance, black box (users): exact key sets, statuses and error bodies.
 * Each describe works on its own app and organisation (test/support/conformance-world.ts).
 */
import { randomUUID } from 'node:crypto';
import { client } from '../../support/http';
import { keys, expectIso, expectError, expectValidation, expectOneUser, expectListUser } from '../../support/conformance-shapes';
import { useWorld } from '../../support/conformance-world';

jest.setTimeout(120_000);

describe('users: create', () => {
  const w = useWorld('bootstrapped');

  it('POST /users: 201 {user} with exactly the user fields (no department object, no secrets)', async () => {
    const { root, anon, tokenFor } = w;
    expectError(await anon().post('/api/users', {}), 401, 'unauthorized');
    const res = await root.post('/api/users', {
      email: 'Ada.Admin@Example.com',
      name: 'Ada Admin',
      password: 'admin-password',
      platformRole: 'admin',
      orgPosition: 'member',
    });
    expect(res.status).toBe(201);
    expect(keys(res.body)).toEqual(['user']);
    expectOneUser(res.body.user);
    expect(res.body.user).toEqual(
      expect.objectContaining({
        email: 'ada.admin@example.com',
        platformRole: 'admin',
        departmentId: null,
        status: 'active',
        lastLoginAt: null,
      }),
    );
    expect(res.text).not.toMatch(/password|\$2[aby]\$/i);
    // login is case-insensitive on the email as stored
    await tokenFor('ADA.ADMIN@example.COM', 'admin-password');
  });
});

describe('users: department members', () => {
  const w = useWorld('department');

  it('creates department members (Unicode names round-trip)', async () => {
    const { admin, sales, login } = w;
    const m = await admin.post('/api/users', {
      email: 'mgr@example.com',
      name: 'Mária Ødegård-山田',
      password: 'manager-password',
      platformRole: 'none',
      orgPosition: 'manager',
      departmentId: sales.id,
    });
    expect(m.status).toBe(201);
    expectOneUser(m.body.user);
    expect(m.body.user).toEqual(expect.objectContaining({ name: 'Mária Ødegård-山田', departmentId: sales.id, orgPosition: 'manager' }));
    const u = await admin.post('/api/users', {
      email: 'member@example.com',
      name: 'Zoë 🚀',
      password: 'member-password',
      platformRole: 'none',
      orgPosition: 'member',
      departmentId: sales.id,
    });
    expect(u.status).toBe(201);
    expect((await login('member@example.com', 'member-password')).body.user.name).toBe('Zoë 🚀');
  });
});

describe('users', () => {
  const w = useWorld('people');

  it('POST /users errors: email_exists (any case), forbidden_role, ceo_exists, department_not_found, validation', async () => {
    const { t, admin, sales, tokenFor } = w;
    const base = { name: 'N', password: 'long-enough', platformRole: 'none', orgPosition: 'member' };
    expectError(await admin.post('/api/users', { ...base, email: 'MEMBER@Example.COM', departmentId: sales.id }), 409, 'email_exists');
    expectError(await admin.post('/api/users', { ...base, email: 'Ceo@Example.com' }), 409, 'email_exists');
    expectError(await admin.post('/api/users', { ...base, email: 'su@example.com', platformRole: 'superadmin' }), 403, 'forbidden_role');
    expectError(await admin.post('/api/users', { ...base, email: 'ceo2@example.com', orgPosition: 'ceo' }), 409, 'ceo_exists');
    expectError(
      await admin.post('/api/users', { ...base, email: 'nodept@example.com', departmentId: randomUUID() }),
      400,
      'department_not_found',
    );
    expectValidation(await admin.post('/api/users', { ...base, email: 'short@example.com', password: 'short' }), 'password');
    expectValidation(await admin.post('/api/users', { name: 'N', email: 'x@example.com' }), 'password');
    expectValidation(await admin.post('/api/users', { ...base, email: 'not-an-email' }), 'email');
    expectValidation(await admin.post('/api/users', { ...base, email: 'bad@example.com', platformRole: 'root' }), 'platformRole');
    expectValidation(await admin.post('/api/users', { ...base, email: 'extra@example.com', isAdmin: true }), 'isAdmin');
    // very long strings are refused, not stored and not a 500
    expectValidation(await admin.post('/api/users', { ...base, email: 'long@example.com', name: 'N'.repeat(10_000) }), 'name');
    expectValidation(await admin.post('/api/users', { ...base, email: `${'a'.repeat(400)}@example.com` }), 'email');
    expectValidation(await admin.post('/api/users', { ...base, email: `a@${'b'.repeat(400)}.com` }), 'email');
    expectValidation(await admin.post('/api/users', { ...base, email: 'pw@example.com', password: 'p'.repeat(100_000) }), 'password');
    // a plain member is refused
    const memberToken = await tokenFor('member@example.com', 'member-password');
    expectError(await client(t.baseUrl, memberToken).post('/api/users', { ...base, email: 'm2@example.com' }), 403);
  });

  it('GET /users: {users, total}; entries carry department {id, name, color}', async () => {
    const { admin, sales, memberUser, anon } = w;
    expectError(await anon().get('/api/users'), 401, 'unauthorized');
    const res = await admin.get('/api/users');
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['total', 'users']);
    expect(res.body.total).toBe(5); // root, CEO, admin, manager, member
    for (const u of res.body.users) expectListUser(u);
    const m = res.body.users.find((u: any) => u.id === memberUser.id);
    expect(m.department).toEqual({ id: sales.id, name: sales.name, color: sales.color });
    const filtered = await admin.get(
      `/api/users?search=${encodeURIComponent('ZOË')}&departmentId=${sales.id}&orgPosition=member&platformRole=none&limit=10&offset=0`,
    );
    expect(filtered.body).toEqual({ users: [expect.objectContaining({ id: memberUser.id })], total: 1 });
  });

  it('GET /users/:id and GET /users/me: {user}', async () => {
    const { t, admin, memberUser, tokenFor } = w;
    const one = await admin.get(`/api/users/${memberUser.id}`);
    expect(one.status).toBe(200);
    expect(keys(one.body)).toEqual(['user']);
    expectOneUser(one.body.user);
    expectIso(one.body.user.lastLoginAt); // the member logged in above
    expectError(await admin.get(`/api/users/${randomUUID()}`), 404);
    expectError(await admin.get('/api/users/not-a-uuid'), 404);
    const memberToken = await tokenFor('member@example.com', 'member-password');
    const me = await client(t.baseUrl, memberToken).get('/api/users/me');
    expect(me.status).toBe(200);
    expect(keys(me.body)).toEqual(['user']);
    expectOneUser(me.body.user);
    expect(me.body.user.id).toBe(memberUser.id);
    expectError(await client(t.baseUrl, memberToken).get(`/api/users/${memberUser.id}`), 403);
  });

  it('PATCH /users/:id: {user}; a duplicate email in another case is 409 email_exists', async () => {
    const { admin, memberUser } = w;
    const res = await admin.patch(`/api/users/${memberUser.id}`, { name: 'Zoë Renamed 🎉' });
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['user']);
    expectOneUser(res.body.user);
    expect(res.body.user.name).toBe('Zoë Renamed 🎉');
    expectError(await admin.patch(`/api/users/${memberUser.id}`, { email: 'MGR@example.com' }), 409, 'email_exists');
    expectError(await admin.patch(`/api/users/${memberUser.id}`, { orgPosition: 'ceo' }), 409, 'ceo_exists');
    expectError(await admin.patch(`/api/users/${memberUser.id}`, { platformRole: 'superadmin' }), 403, 'forbidden_role');
    expectValidation(await admin.patch(`/api/users/${memberUser.id}`, { password: 'short' }), 'password');
    expectValidation(await admin.patch(`/api/users/${memberUser.id}`, { name: 'x'.repeat(5000) }), 'name');
    expectValidation(await admin.patch(`/api/users/${memberUser.id}`, { status: 'banned' }), 'status');
    expectError(await admin.patch(`/api/users/${randomUUID()}`, { name: 'x' }), 404);
    // an email changed only in case is the same email: no conflict with itself
    const same = await admin.patch(`/api/users/${memberUser.id}`, { email: 'Member@Example.com' });
    expect(same.status).toBe(200);
    expect(same.body.user.email).toBe('member@example.com');
  });

  it('GET /users query-string abuse answers 400, never 500', async () => {
    const { admin } = w;
    for (const qs of [
      'limit=1&limit=2',
      'search=a&search=b',
      'search[]=a',
      'search[a]=b',
      'platformRole[]=admin',
      'departmentId[$ne]=x',
      'limit=abc',
      'limit=-1',
      'limit=0',
      'offset=1e3',
      'offset=-5',
      'limit=99999999999999999999',
      `search=${'s'.repeat(5000)}`,
      'platformRole=root',
      'departmentId=not-a-uuid',
      'unknown=1',
      '__proto__=x',
      'constructor[prototype]=x',
    ]) {
      const res = await admin.get(`/api/users?${qs}`);
      expect({ qs, status: res.status }).toEqual({ qs, status: 400 });
      expectValidation(res);
    }
    // above the cap is capped (DESIGN: limit ≤ 200), not refused
    expect((await admin.get('/api/users?limit=1000')).status).toBe(200);
  });
});
