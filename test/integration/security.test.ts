import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger';
import { api, client } from '../support/http';
import { DEFAULT_PASSWORD, factories } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

describe('login rate limits', () => {
  let t: TestApp;
  let f: ReturnType<typeof factories>;
  // a server of its own for each test: the counts start from nothing
  beforeEach(async () => {
    t = await createTestApp({ env: { LOGIN_RATE_LIMIT_PER_ACCOUNT: '3', LOGIN_RATE_LIMIT_PER_IP: '8' } });
    f = factories(t.orm, t.services);
    await f.superadmin();
  });
  afterEach(async () => t?.close());

  const login = (email: string, password: string) => api(t.baseUrl, 'POST', '/api/auth/login', { body: { email, password } });

  /** Three wrong passwords on one account, then its fourth attempt (the right password) refused: 4 counted from this IP. */
  async function exhaustAccount() {
    const u = await f.makeUser();
    for (let i = 0; i < 3; i++) expect((await login(u.email, 'wrong-password')).status).toBe(401);
    const limited = await login(u.email, DEFAULT_PASSWORD);
    expect(limited.status).toBe(429);
    return limited;
  }

  it('limits attempts per account with 429 rate_limited and Retry-After', async () => {
    const limited = await exhaustAccount();
    expect(limited.body.error).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('limits attempts per IP across accounts', async () => {
    // 4 attempts counted from this IP (the refused one too); 4 more fit, the next is refused
    await exhaustAccount();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await login(`nobody-${i}@example.com`, 'wrong-password')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
  });
});

describe('headers, CORS and logs', () => {
  let t: TestApp;
  let f: ReturnType<typeof factories>;
  const lines: string[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    t = await createTestApp({ env: { CORS_ORIGINS: 'https://app.example.com', LOG_LEVEL: 'trace' }, logger: createLogger('trace', sink) });
    f = factories(t.orm, t.services);
    await f.superadmin();
  });
  afterAll(async () => t?.close());

  it('sets security headers and a request id', async () => {
    const res = await api(t.baseUrl, 'GET', '/healthz');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBeTruthy();
    expect(res.headers.get('content-security-policy')).toBeTruthy();
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('x-request-id')).toMatch(/[0-9a-f-]{36}/);
  });

  it('answers CORS for a configured origin only', async () => {
    const ok = await api(t.baseUrl, 'GET', '/healthz', { headers: { origin: 'https://app.example.com' } });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const other = await api(t.baseUrl, 'GET', '/healthz', { headers: { origin: 'https://evil.example.com' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('unknown routes are 404 with the documented body', async () => {
    const res = await api(t.baseUrl, 'GET', '/api/nope');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });

  it('writes no password, token or key to any log line', async () => {
    const u = await f.makeUser({ password: 'super-secret-password-1' });
    const s = await api(t.baseUrl, 'POST', '/api/auth/login', { body: { email: u.email, password: 'super-secret-password-1' } });
    expect(s.status).toBe(200);
    await client(t.baseUrl, s.body.accessToken).get('/api/auth/me');
    await api(t.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: s.body.refreshToken } });
    await api(t.baseUrl, 'POST', '/api/auth/login', { body: { email: u.email, password: 'wrong-secret-password-2' } });
    const all = lines.join('');
    expect(lines.length).toBeGreaterThan(3);
    for (const secret of [
      'super-secret-password-1',
      'wrong-secret-password-2',
      s.body.accessToken,
      s.body.refreshToken,
      t.config.jwtSecret,
    ]) {
      expect(all).not.toContain(secret);
    }
  });
});
