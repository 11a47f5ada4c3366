import jwt from 'jsonwebtoken';
import { createTestApp, TestApp } from '../support/test-app';
import { api, client } from '../support/http';
import { DEFAULT_PASSWORD, factories } from '../support/factories';
import { expectShape } from '../support/openapi-validator';

let t: TestApp;
let f: ReturnType<typeof factories>;

beforeAll(async () => {
  t = await createTestApp();
  f = factories(t.orm, t.services);
});
afterAll(async () => t?.close());

const login = (email: string, password = DEFAULT_PASSWORD) => api(t.baseUrl, 'POST', '/api/auth/login', { body: { email, password } });

describe('before bootstrap', () => {
  // a server of its own: the file's server is bootstrapped by the blocks below, in whatever order they run
  let fresh: TestApp;
  beforeAll(async () => {
    fresh = await createTestApp();
  });
  afterAll(async () => fresh?.close());

  it('login answers 503 not_bootstrapped', async () => {
    const res = await api(fresh.baseUrl, 'POST', '/api/auth/login', { body: { email: 'nobody@example.com', password: DEFAULT_PASSWORD } });
    expect(res.status).toBe(503);
    expect(res.body).toEqual(expect.objectContaining({ error: 'not_bootstrapped' }));
  });
});

describe('auth', () => {
  beforeAll(async () => {
    await t.services.bootstrap.bootstrap({ email: 'root@example.com', password: 'rootpassword', name: 'Root' });
  });

  it('bootstrap is idempotent', async () => {
    const again = await t.services.bootstrap.bootstrap({ email: 'other@example.com', password: 'rootpassword', name: 'Other' });
    expect(again.superadmin).toBe('exists');
  });

  it('logs in and returns the documented user shape with HS256 tokens', async () => {
    const u = await f.makeUser({ email: 'Alice@Example.com'.toLowerCase() });
    const res = await login('ALICE@example.com');
    expect(res.status).toBe(200);
    expectShape(res.body.user, 'LoginUser');
    expect(res.body.user.id).toBe(u.id);
    const decoded = jwt.decode(res.body.accessToken, { complete: true }) as jwt.Jwt;
    expect(decoded.header.alg).toBe('HS256');
    const p = decoded.payload as jwt.JwtPayload;
    expect(p.sub).toBe(u.id);
    expect(p.exp! - p.iat!).toBe(15 * 60);
    const r = jwt.decode(res.body.refreshToken) as jwt.JwtPayload;
    expect(r.exp! - r.iat!).toBe(7 * 24 * 3600);
  });

  it('rejects a wrong password and an unknown email with the same 401 body', async () => {
    const u = await f.makeUser();
    const wrong = await login(u.email, 'wrong-password');
    const unknown = await login('ghost@example.com', 'wrong-password');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Invalid email or password' });
    expect(unknown.body).toEqual(wrong.body);
  });

  it('rejects an inactive user at login and on authenticated requests', async () => {
    const u = await f.makeUser({ status: 'inactive' });
    expect((await login(u.email)).status).toBe(401);
    expect((await client(t.baseUrl, u.token).get('/api/auth/me')).status).toBe(401);
  });

  it('me requires authentication and re-reads the user', async () => {
    expect((await api(t.baseUrl, 'GET', '/api/auth/me')).status).toBe(401);
    const u = await f.makeUser();
    const c = client(t.baseUrl, u.token);
    const before = await c.get('/api/auth/me');
    expect(before.status).toBe(200);
    expectShape(before.body.user, 'Me');
    await t.orm.em.fork().getConnection().execute(`update users set platform_role = 'admin' where id = ?`, [u.id]);
    expect((await c.get('/api/auth/me')).body.user.platformRole).toBe('admin');
  });

  it('requests that arrive together share user reads, yet each gets its own user, and a deactivation is seen by the next burst', async () => {
    const users = await Promise.all(Array.from({ length: 6 }, () => f.makeUser()));
    // many at once, more than the reads in flight: some wait and are read together
    const burst = () => Promise.all(users.flatMap((u) => Array.from({ length: 5 }, () => client(t.baseUrl, u.token).get('/api/auth/me'))));
    const first = await burst();
    expect(first.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(first.map((r) => r.body.user.id)).toEqual(users.flatMap((u) => Array(5).fill(u.id)));
    await t.orm.em.fork().getConnection().execute(`update users set status = 'inactive' where id = ?`, [users[2].id]);
    const second = await burst();
    expect(second.map((r) => r.status)).toEqual(users.flatMap((u, i) => Array(5).fill(i === 2 ? 401 : 200)));
  });

  it('refresh rotates; the used token stops working; reuse revokes the family', async () => {
    const u = await f.makeUser();
    const first = (await login(u.email)).body;
    const r1 = await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } });
    expect(r1.status).toBe(200);
    expectShape(r1.body, 'TokenPair');
    const reused = await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } });
    expect(reused.status).toBe(401);
    // the family is revoked: the token issued by the rotation no longer works either
    const r2 = await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: r1.body.refreshToken } });
    expect(r2.status).toBe(401);
  });

  it('two concurrent refreshes with one token: exactly one succeeds', async () => {
    const u = await f.makeUser();
    const { refreshToken } = (await login(u.email)).body;
    const results = await Promise.all([1, 2].map(() => api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken } })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 401]);
  });

  it('logout invalidates the refresh token server-side; the access token stays valid', async () => {
    const u = await f.makeUser();
    const s = (await login(u.email)).body;
    const out = await api(t.baseUrl, 'POST', '/api/auth/logout', { token: s.accessToken, body: { refreshToken: s.refreshToken } });
    expect(out.status).toBe(204);
    expect(out.text).toBe('');
    expect((await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: s.refreshToken } })).status).toBe(401);
    expect((await client(t.baseUrl, s.accessToken).get('/api/auth/me')).status).toBe(200);
  });

  it("logout without a body revokes all of the caller's refresh tokens", async () => {
    const u = await f.makeUser();
    const a = (await login(u.email)).body;
    const b = (await login(u.email)).body;
    expect((await api(t.baseUrl, 'POST', '/api/auth/logout', { token: a.accessToken })).status).toBe(204);
    for (const s of [a, b])
      expect((await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: s.refreshToken } })).status).toBe(401);
  });

  it('never accepts a refresh token as an access token, nor alg none, a foreign secret or an expired token', async () => {
    const u = await f.makeUser();
    const s = (await login(u.email)).body;
    const me = (token: string) => client(t.baseUrl, token).get('/api/auth/me');
    expect((await me(s.refreshToken)).status).toBe(401);
    const none = jwt.sign({ typ: 'access' }, '', { algorithm: 'none', subject: u.id });
    expect((await me(none)).status).toBe(401);
    const foreign = jwt.sign({ typ: 'access' }, 'another-secret-another-secret', { algorithm: 'HS256', subject: u.id });
    expect((await me(foreign)).status).toBe(401);
    const expired = jwt.sign({ typ: 'access', exp: Math.floor(Date.now() / 1000) - 10 }, t.services.secrets.jwtSecret, {
      algorithm: 'HS256',
      subject: u.id,
    });
    expect((await me(expired)).status).toBe(401);
    const badSub = jwt.sign({ typ: 'access' }, t.services.secrets.jwtSecret, { algorithm: 'HS256', subject: 'not-a-uuid' });
    expect((await me(badSub)).status).toBe(401);
    // an access token is not a refresh token
    expect((await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: s.accessToken } })).status).toBe(401);
  });

  it('validates bodies: malformed JSON, wrong types and unknown fields are 400', async () => {
    const raw = await api(t.baseUrl, 'POST', '/api/auth/login', { rawBody: '{"email":', headers: { 'content-type': 'application/json' } });
    expect(raw.status).toBe(400);
    expect(raw.body.error).toBe('validation_failed');
    const wrongType = await api(t.baseUrl, 'POST', '/api/auth/login', { body: { email: 5, password: 'x' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.details[0].field).toBe('email');
    const unknown = await api(t.baseUrl, 'POST', '/api/auth/login', { body: { email: 'a@b.c', password: 'x', admin: true } });
    expect(unknown.status).toBe(400);
    const big = await api(t.baseUrl, 'POST', '/api/auth/login', {
      rawBody: JSON.stringify({ email: 'x'.repeat(2_000_000), password: 'x' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(big.status).toBe(413);
    expect(big.body.error).toBe('payload_too_large');
  });
});

describe('health', () => {
  it('healthz and readyz answer', async () => {
    expect((await api(t.baseUrl, 'GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await api(t.baseUrl, 'GET', '/readyz')).status).toBe(200);
  });
});
