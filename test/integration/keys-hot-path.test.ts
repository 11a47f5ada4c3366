import { api, ApiResponse } from '../support/http';
import { factories } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

/**
 * Issue 38's key hot path (src/auth/api-keys.ts): the requests that arrive together share one
 * statement, counted on connections that do not wait for the WAL flush. Two nodes on one database:
 * what each node promises must hold across both, burst by burst.
 */
const LIMIT = 20;
const me = (t: TestApp, token: string, headers: Record<string, string> = {}): Promise<ApiResponse> =>
  api(t.baseUrl, 'GET', '/api/auth/me', { token, headers });

/** Two nodes on one database with `env` (b joins a's), and factories on a. */
async function twoNodes(env: Record<string, string>) {
  const a = await createTestApp({ env });
  const b = await createTestApp({ env, sameDatabaseAs: a });
  return { a, b, f: factories(a.orm, a.services) };
}

/** A key of the caller's, made through node `t`. */
async function newKeyOn(t: TestApp, token: string, name: string) {
  const r = await api(t.baseUrl, 'POST', '/api/keys', { token, body: { name } });
  expect(r.status).toBe(201);
  return r.body as { key: { id: string }; secret: string };
}

describe('keys on the hot path, two nodes on one database', () => {
  let a: TestApp;
  let b: TestApp;
  let f: ReturnType<typeof factories>;
  // both nodes trust the loopback proxy, so X-Forwarded-For names the client's address
  beforeAll(async () => ({ a, b, f } = await twoNodes({ KEY_RATE_LIMIT_PER_MINUTE: String(LIMIT), TRUST_PROXY: 'loopback' })));
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const newKey = (token: string) => newKeyOn(a, token, 'hot path');

  it('a burst on both nodes at once is counted request by request: exactly the limit passes, the rest get 429 with Retry-After', async () => {
    const u = await f.makeUser();
    const { secret } = await newKey(u.token);
    const burst = await Promise.all(Array.from({ length: 3 * LIMIT }, (_, i) => me(i % 2 ? a : b, secret)));
    const statuses = burst.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2 * LIMIT);
    for (const r of burst.filter((x) => x.status === 429)) {
      expect(r.body.error).toBe('rate_limited');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // refused requests count too: the next one on either node is refused as well
    expect((await me(a, secret)).status).toBe(429);
    expect((await me(b, secret)).status).toBe(429);
    // another key of the same owner in the same bursts keeps its own budget
    const other = await newKey(u.token);
    const mixed = await Promise.all(Array.from({ length: 10 }, (_, i) => me(i % 2 ? a : b, i < 5 ? secret : other.secret)));
    expect(mixed.map((r) => r.status)).toEqual([429, 429, 429, 429, 429, 200, 200, 200, 200, 200]);
  });

  it('a key revoked on one node is refused on the other by the next request, even one already in a burst', async () => {
    const u = await f.makeUser();
    const { key, secret } = await newKey(u.token);
    expect((await me(b, secret)).status).toBe(200);
    expect((await api(a.baseUrl, 'DELETE', `/api/keys/${key.id}`, { token: u.token })).status).toBe(200);
    const after = await Promise.all(Array.from({ length: 8 }, (_, i) => me(i % 2 ? a : b, secret)));
    expect(after.map((r) => r.status)).toEqual(Array(8).fill(401));
  });

  it("a key's owner deactivated on one node disables the key on the other at once", async () => {
    const root = await f.superadmin();
    const u = await f.makeUser();
    const { secret } = await newKey(u.token);
    expect((await me(b, secret)).status).toBe(200);
    const off = await api(a.baseUrl, 'PATCH', `/api/users/${u.id}`, { token: root.token, body: { status: 'inactive' } });
    expect(off.status).toBe(200);
    const after = await Promise.all(Array.from({ length: 6 }, (_, i) => me(i % 2 ? a : b, secret)));
    expect(after.map((r) => r.status)).toEqual(Array(6).fill(401));
  });

  it('the first use from an address is recorded and audited once, before the answer, however many requests bring it together', async () => {
    const u = await f.makeUser();
    const { key, secret } = await newKey(u.token);
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    // two new addresses, each arriving in a burst on both nodes
    const burst = await Promise.all(
      Array.from({ length: 12 }, (_, i) => me(i % 2 ? a : b, secret, from(i % 3 ? '203.0.113.7' : '198.51.100.9'))),
    );
    expect(burst.map((r) => r.status)).toEqual(Array(12).fill(200));
    const audited = async () =>
      (
        await a.orm.em
          .fork()
          .getConnection()
          .execute<Array<{ address: string; actor_id: string }>>(
            `select metadata->>'address' as address, actor_id from audit_entries
              where action = 'key_used_from_new_address' and target_id = ? order by address`,
            [key.id],
          )
      ).map((r) => [r.address, r.actor_id]);
    expect(await audited()).toEqual([
      ['198.51.100.9', u.id],
      ['203.0.113.7', u.id],
    ]);
    // a known address is not audited again; a third one is
    await me(b, secret, from('203.0.113.7'));
    await me(a, secret, from('192.0.2.1'));
    expect((await audited()).map((r) => r[0])).toEqual(['192.0.2.1', '198.51.100.9', '203.0.113.7']);
    // and every use stamps lastUsedAt, visible from either node
    const listed = await api(b.baseUrl, 'GET', '/api/keys', { token: u.token });
    const lastUsed = new Date(listed.body.keys.find((k: { id: string }) => k.id === key.id).lastUsedAt).getTime();
    expect(Date.now() - lastUsed).toBeLessThan(60_000);
  });
});

describe('keys on the hot path far from their limit: leases', () => {
  const BIG = 1000;
  let a: TestApp;
  let b: TestApp;
  let f: ReturnType<typeof factories>;
  beforeAll(async () => ({ a, b, f } = await twoNodes({ KEY_RATE_LIMIT_PER_MINUTE: String(BIG) })));
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const newKey = (token: string) => newKeyOn(a, token, 'leased');
  const windowCount = async (keyId: string) =>
    (
      await a.orm.em
        .fork()
        .getConnection()
        .execute<Array<{ window_count: number }>>('select window_count from api_keys where id = ?', [keyId])
    )[0].window_count;

  it('a node counts a lease once and admits the next requests against it without writing; a revocation still ends them at once', async () => {
    const u = await f.makeUser();
    const { key, secret } = await newKey(u.token);
    expect((await me(a, secret)).status).toBe(200);
    // the request and a sixteenth of what was left: (1000 - 1) / 16
    expect(await windowCount(key.id)).toBe(1 + Math.floor((BIG - 1) / 16));
    for (let i = 0; i < 20; i++) expect((await me(a, secret)).status).toBe(200);
    expect(await windowCount(key.id)).toBe(1 + Math.floor((BIG - 1) / 16));
    // the other node counts its own lease
    expect((await me(b, secret)).status).toBe(200);
    const both = await windowCount(key.id);
    expect(both).toBeGreaterThan(1 + Math.floor((BIG - 1) / 16));
    // revoked on one node: refused by the next request on both, lease or not
    expect((await api(b.baseUrl, 'DELETE', `/api/keys/${key.id}`, { token: u.token })).status).toBe(200);
    const after = await Promise.all(Array.from({ length: 6 }, (_, i) => me(i % 2 ? a : b, secret)));
    expect(after.map((r) => r.status)).toEqual(Array(6).fill(401));
  });

  it('an owner deactivated on one node disables a leased key on the other at once', async () => {
    const root = await f.superadmin();
    const u = await f.makeUser();
    const { secret } = await newKey(u.token);
    expect((await me(a, secret)).status).toBe(200);
    expect((await me(a, secret)).status).toBe(200);
    expect((await api(b.baseUrl, 'PATCH', `/api/users/${u.id}`, { token: root.token, body: { status: 'inactive' } })).status).toBe(200);
    expect((await me(a, secret)).status).toBe(401);
  });

  it('bursts on both nodes never pass more than the limit in a window, and leases leave little of it unused', async () => {
    const u = await f.makeUser();
    const { secret } = await newKey(u.token);
    let passed = 0;
    let refused = 0;
    for (let round = 0; round < 8; round++) {
      const burst = await Promise.all(Array.from({ length: 150 }, (_, i) => me(i % 2 ? a : b, secret)));
      passed += burst.filter((r) => r.status === 200).length;
      refused += burst.filter((r) => r.status === 429).length;
    }
    expect(passed + refused).toBe(1200);
    expect(passed).toBeLessThanOrEqual(BIG);
    // each node may hold at most two leases' worth unused (a sixteenth of what was left, each)
    expect(passed).toBeGreaterThanOrEqual(BIG - 4 * Math.ceil(BIG / 16));
  });
});
