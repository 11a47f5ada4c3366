/**
 * Spec conformance, black box (auth and transport): exact key sets, statuses and the error body
 * `{error, message?, details?}` (DESIGN §3). Shapes: test/support/conformance-shapes.ts; the
 * organisation each describe works on: test/support/conformance-world.ts.
 */
import { randomUUID } from 'node:crypto';
import { api } from '../../support/http';
import { ME_USER, keys, expectIso, expectError, expectValidation, expectLoginUser } from '../../support/conformance-shapes';
import { ROOT, CEO, useWorld, useUnbootstrappedApp } from '../../support/conformance-world';

jest.setTimeout(120_000);

describe('auth: before bootstrap', () => {
  const a = useUnbootstrappedApp();

  it('login before bootstrap: 503 not_bootstrapped', async () => {
    const { login } = a;
    expectError(await login(ROOT.email, ROOT.password), 503, 'not_bootstrapped');
  });
});

describe('auth', () => {
  const w = useWorld('bootstrapped');

  it('after bootstrap, login (email case-insensitive) answers {user, accessToken, refreshToken}', async () => {
    const { login } = w;
    // the world bootstrapped this app (ROOT, CEO)
    const res = await login(ROOT.email.toUpperCase(), ROOT.password);
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['accessToken', 'refreshToken', 'user']);
    expectLoginUser(res.body.user);
    expect(res.body.user).toEqual(
      expect.objectContaining({
        email: ROOT.email.toLowerCase(),
        name: ROOT.name,
        platformRole: 'superadmin',
        orgPosition: 'member',
        departmentId: null,
      }),
    );
  });

  it('wrong password, unknown email and an empty body', async () => {
    const { t, login } = w;
    const wrong = await login(ROOT.email, 'not-the-password');
    expectError(wrong, 401, 'Invalid email or password');
    expect(wrong.body).toEqual({ error: 'Invalid email or password' });
    expect((await login('nobody@example.com', 'whatever-pw')).body).toEqual(wrong.body);
    expectValidation(await api(t.baseUrl, 'POST', '/api/auth/login', { body: {} }), 'email');
  });

  it('GET /auth/me: {user} with exactly the spec fields; 401 without a token', async () => {
    const { root, rootId, anon } = w;
    expectError(await anon().get('/api/auth/me'), 401, 'unauthorized');
    const res = await root.get('/api/auth/me');
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['user']);
    expect(keys(res.body.user)).toEqual(ME_USER);
    expectIso(res.body.user.lastLoginAt);
    expectIso(res.body.user.createdAt);
    expect(res.body.user).toEqual(expect.objectContaining({ id: rootId, status: 'active', platformRole: 'superadmin' }));
  });

  it('refresh rotates ({accessToken, refreshToken} only); logout is 204 with no body; 401s', async () => {
    const { t, anon, login } = w;
    const first = (await login(CEO.email, CEO.password)).body;
    const r = await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } });
    expect(r.status).toBe(200);
    expect(keys(r.body)).toEqual(['accessToken', 'refreshToken']);
    expect(r.body.refreshToken).not.toBe(first.refreshToken);
    expectError(await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: first.refreshToken } }), 401, 'unauthorized');
    expectError(await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: 'garbage' } }), 401, 'unauthorized');
    expectError(await anon().post('/api/auth/logout'), 401, 'unauthorized');
    const out = await api(t.baseUrl, 'POST', '/api/auth/logout', {
      token: r.body.accessToken,
      body: { refreshToken: r.body.refreshToken },
    });
    expect(out.status).toBe(204);
    expect(out.text).toBe('');
    expectError(await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: r.body.refreshToken } }), 401);
  });
});

describe('transport edges', () => {
  const w = useWorld('department');

  it('a known path with a method it does not serve answers JSON 404/405, never HTML', async () => {
    const { t, sales, login } = w;
    for (const [method, path] of [
      ['PUT', '/api/projects'],
      ['PATCH', '/api/projects'],
      ['DELETE', '/api/users'],
      ['PUT', '/api/users/me'],
      ['POST', '/api/auth/me'],
      ['GET', '/api/auth/login'],
      ['PUT', `/api/departments/${sales.id}`],
      ['POST', '/api/audit-log'],
      ['GET', '/api/no-such-thing'],
    ]) {
      const res = await api(t.baseUrl, method, path, {
        token: undefined,
        headers: { authorization: `Bearer ${(await login(ROOT.email, ROOT.password)).body.accessToken}` },
        body: method === 'GET' ? undefined : {},
      });
      expect([404, 405]).toContain(res.status);
      expectError(res, res.status);
      expect(res.text).not.toMatch(/<html|<!DOCTYPE/i);
    }
  });

  it('malformed path parameters answer JSON 4xx, never 500', async () => {
    const { t, login } = w;
    const token = (await login(ROOT.email, ROOT.password)).body.accessToken;
    for (const path of [
      '/api/users/%E0%A4%A',
      `/api/users/${'f'.repeat(5000)}`,
      '/api/projects/%00',
      `/api/departments/${randomUUID()}x/members`,
      '/api/grants/by-user/..%2F..%2Fetc',
    ]) {
      const res = await api(t.baseUrl, 'GET', path, { token });
      expect({ path, status: res.status }).toEqual({ path, status: expect.any(Number) });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expectError(res, res.status);
    }
  });

  it('malformed JSON and a non-object body are 400 validation_failed', async () => {
    const { t } = w;
    expectValidation(
      await api(t.baseUrl, 'POST', '/api/auth/login', { rawBody: '{"email":', headers: { 'content-type': 'application/json' } }),
    );
    expectValidation(
      await api(t.baseUrl, 'POST', '/api/auth/login', { rawBody: '[1,2]', headers: { 'content-type': 'application/json' } }),
    );
    expectValidation(await api(t.baseUrl, 'POST', '/api/auth/login', { body: { email: ['a@b.c'], password: { $gt: '' } } }));
  });
});

describe('prototype keys', () => {
  const w = useWorld('department');

  it('__proto__, constructor and prototype keys are refused like any unknown field (body and query)', async () => {
    const { t, admin, login } = w;
    for (const raw of [
      '{"name":"P1","__proto__":{"a":1}}',
      '{"name":"P2","constructor":{"prototype":{"a":1}}}',
      '{"name":"P3","settings":{"__proto__":{"topK":1}}}',
    ]) {
      expectValidation(
        await api(t.baseUrl, 'POST', '/api/departments', {
          rawBody: raw,
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${(await login(ROOT.email, ROOT.password)).body.accessToken}`,
          },
        }),
      );
    }
    expect((await admin.get('/api/departments')).body.departments.some((d: any) => /^P\d$/.test(d.name))).toBe(false);
  });
});
