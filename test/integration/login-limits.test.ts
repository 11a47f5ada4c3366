import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { ConfigError, loadConfig } from '../../src/config';
import { api } from '../support/http';
import { DEFAULT_PASSWORD, factories } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/** Issue 13 item 5: limits in PostgreSQL, the account+address lock-out, TRUST_PROXY, WebSocket addresses. */
const login = (t: TestApp, email: string, password: string, xff?: string) =>
  api(t.baseUrl, 'POST', '/api/auth/login', { body: { email, password }, headers: xff ? { 'x-forwarded-for': xff } : {} });

describe('account+address lock-out with an exponential delay', () => {
  let t: TestApp;
  let f: ReturnType<typeof factories>;
  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_RATE_LIMIT_PER_ACCOUNT: '2', LOGIN_RATE_LIMIT_PER_IP: '0', TRUST_PROXY: '1' } });
    f = factories(t.orm, t.services);
    await f.superadmin();
  });
  afterAll(async () => t?.close());

  it('past the free failures each failure doubles the wait (1 s, 2 s, …), counted in PostgreSQL', async () => {
    const u = await f.makeUser();
    const ip = '203.0.113.10';
    expect((await login(t, u.email, 'wrong-password', ip)).status).toBe(401);
    expect((await login(t, u.email, 'wrong-password', ip)).status).toBe(401);
    const first = await login(t, u.email, DEFAULT_PASSWORD, ip);
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('1');
    await new Promise((r) => setTimeout(r, 1100));
    expect((await login(t, u.email, 'wrong-password', ip)).status).toBe(401);
    const second = await login(t, u.email, DEFAULT_PASSWORD, ip);
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('2');
    // the counters are rows in PostgreSQL (shared by every node), keyed by a hash, not the email
    const rows = await f.em().getConnection().execute(`select key from rate_limits where key like 'login_%'`);
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(u.email);
  });

  it("an attacker elsewhere cannot lock the account's owner out", async () => {
    const u = await f.makeUser();
    for (let i = 0; i < 6; i++) await login(t, u.email, 'wrong-password', '198.51.100.66');
    expect((await login(t, u.email, 'wrong-password', '198.51.100.66')).status).toBe(429);
    expect((await login(t, u.email, DEFAULT_PASSWORD, '192.0.2.1')).status).toBe(200);
  });

  it("a success clears the pair's failures", async () => {
    const u = await f.makeUser();
    const ip = '203.0.113.11';
    expect((await login(t, u.email, 'wrong-password', ip)).status).toBe(401);
    expect((await login(t, u.email, DEFAULT_PASSWORD, ip)).status).toBe(200);
    expect((await login(t, u.email, 'wrong-password', ip)).status).toBe(401);
    expect((await login(t, u.email, DEFAULT_PASSWORD, ip)).status).toBe(200);
  });
});

describe('the per-address limit counts an IPv6 client by its /64 and an IPv4-mapped address as IPv4', () => {
  it('addresses of one /64 share a budget; another /64 has its own', async () => {
    const t = await createTestApp({ env: { LOGIN_RATE_LIMIT_PER_IP: '2', TRUST_PROXY: '1' } });
    try {
      await factories(t.orm, t.services).superadmin();
      const statuses = [];
      for (const xff of ['2001:db8:5:6::1', '2001:db8:5:6:a:b:c:d', '2001:db8:5:6::ffff'])
        statuses.push((await login(t, 'x@example.com', 'wrong-password', xff)).status);
      expect(statuses).toEqual([401, 401, 429]);
      expect((await login(t, 'x@example.com', 'wrong-password', '2001:db8:5:7::1')).status).toBe(401);
      expect((await login(t, 'x@example.com', 'wrong-password', '203.0.113.5')).status).toBe(401);
      expect((await login(t, 'x@example.com', 'wrong-password', '::ffff:203.0.113.5')).status).toBe(401);
      expect((await login(t, 'x@example.com', 'wrong-password', '203.0.113.5')).status).toBe(429);
    } finally {
      await t.close();
    }
  });
});

describe('TRUST_PROXY: the client is the right-most untrusted address', () => {
  it('accepts true/false, a hop count, or addresses/CIDRs; refuses anything else with one line', () => {
    const base = { NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(20) };
    expect(loadConfig({ ...base }).trustProxy).toBe(0);
    expect(loadConfig({ ...base, TRUST_PROXY: 'false' }).trustProxy).toBe(0);
    expect(loadConfig({ ...base, TRUST_PROXY: 'true' }).trustProxy).toBe(1);
    expect(loadConfig({ ...base, TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,loopback' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      'loopback',
    ]);
    expect(() => loadConfig({ ...base, TRUST_PROXY: 'proxy.example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/99' })).toThrow(/TRUST_PROXY/);
  });

  for (const trust of ['1', '127.0.0.1/8']) {
    it(`TRUST_PROXY=${trust}: a client-written X-Forwarded-For entry does not escape the per-IP limit`, async () => {
      const t = await createTestApp({ env: { LOGIN_RATE_LIMIT_PER_IP: '3', LOGIN_RATE_LIMIT_PER_ACCOUNT: '0', TRUST_PROXY: trust } });
      try {
        await factories(t.orm, t.services).superadmin();
        const statuses: number[] = [];
        // the proxy (us, on 127.0.0.1) appends the real client; the client forges the rest
        for (let i = 0; i < 4; i++)
          statuses.push((await login(t, `n${i}@example.com`, 'wrong-password', `10.9.${i}.${i}, 203.0.113.77`)).status);
        expect(statuses).toEqual([401, 401, 401, 429]);
        // another real client has its own budget
        expect((await login(t, 'n@example.com', 'wrong-password', '203.0.113.78')).status).toBe(401);
      } finally {
        await t.close();
      }
    });
  }

  it('WebSocket operations count against the same address as REST', async () => {
    const t = await createTestApp({ env: { LOGIN_RATE_LIMIT_PER_IP: '2', LOGIN_RATE_LIMIT_PER_ACCOUNT: '0', TRUST_PROXY: '1' } });
    const f = factories(t.orm, t.services);
    const root = await f.superadmin();
    class Forwarded extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers: { 'x-forwarded-for': '10.1.1.1, 203.0.113.99' } });
      }
    }
    const ws = createClient({
      url: t.baseUrl.replace(/^http/, 'ws') + '/graphql',
      webSocketImpl: Forwarded,
      connectionParams: { authorization: `Bearer ${root.token}` },
      retryAttempts: 0,
      lazy: true,
    });
    try {
      expect((await login(t, 'a@example.com', 'wrong-password', '203.0.113.99')).status).toBe(401);
      expect((await login(t, 'b@example.com', 'wrong-password', '10.2.2.2, 203.0.113.99')).status).toBe(401);
      const result = await new Promise<any>((resolve, reject) => {
        let last: unknown;
        ws.subscribe(
          { query: 'mutation { login(input: {email: "c@example.com", password: "wrong-password"}) { accessToken } }' },
          {
            next: (v) => (last = v),
            error: reject,
            complete: () => resolve(last),
          },
        );
      });
      expect(result.errors?.[0]?.extensions?.code).toBe('rate_limited');
    } finally {
      await ws.dispose();
      await t.close();
    }
  });
});

describe('an attempt counts before its password is compared (issue 38)', () => {
  it('300 simultaneous wrong passwords for one account from 40 /64s: at most LOGIN_RATE_LIMIT_ACCOUNT_TOTAL + 2 reach the password check, the rest 429 with Retry-After', async () => {
    const total = 20;
    const t = await createTestApp({
      env: {
        LOGIN_RATE_LIMIT_ACCOUNT_TOTAL: String(total),
        LOGIN_RATE_LIMIT_PER_ACCOUNT: '10',
        LOGIN_RATE_LIMIT_PER_IP: '30',
        TRUST_PROXY: '1',
      },
    });
    try {
      const f = factories(t.orm, t.services);
      await f.superadmin();
      const u = await f.makeUser();
      // through the trusted proxy (us, on loopback): the client is the X-Forwarded-For entry
      const responses = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          login(t, u.email, 'wrong-password', `2001:db8:38:${(i % 40).toString(16)}::${(i + 1).toString(16)}`),
        ),
      );
      const compared = responses.filter((r) => r.status === 401);
      const refused = responses.filter((r) => r.status === 429);
      expect(compared.length + refused.length).toBe(300);
      expect(compared.length).toBeLessThanOrEqual(total + 2);
      expect(compared.length).toBeGreaterThanOrEqual(total);
      for (const r of refused) expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    } finally {
      await t.close();
    }
  });

  it('a success gives its place back: the owner signs in again and again from one address', async () => {
    const t = await createTestApp({ env: { LOGIN_RATE_LIMIT_PER_ACCOUNT: '1', LOGIN_RATE_LIMIT_ACCOUNT_TOTAL: '1', TRUST_PROXY: '1' } });
    try {
      const f = factories(t.orm, t.services);
      await f.superadmin();
      const u = await f.makeUser();
      for (let i = 0; i < 4; i++) expect((await login(t, u.email, DEFAULT_PASSWORD, '203.0.113.40')).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
