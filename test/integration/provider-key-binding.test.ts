import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { factories } from '../support/factories';
import { gql } from '../support/graphql';
import { client } from '../support/http';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import { postSse } from '../support/sse-client';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Issue 13 item 1: a stored provider key is only ever sent to the origin it was stored with —
 * neither a PATCH nor a database edit of base_url can re-point it.
 */
let t: TestApp;
let f: ReturnType<typeof factories>;
let stub: OpenAiStub;
let attacker: OpenAiStub;
let engineer: Awaited<ReturnType<typeof f.makeUser>>;
const KEY = 'sk-bound-to-its-origin-0123456789';
let seq = 0;

beforeAll(async () => {
  stub = await startOpenAiStub();
  attacker = await startOpenAiStub();
  t = await createTestApp();
  f = factories(t.orm, t.services);
  await f.superadmin();
  engineer = await f.makeUser({ platformRole: 'engineer' });
});
afterAll(async () => {
  await t?.close();
  await stub?.close();
  await attacker?.close();
});
beforeEach(() => {
  stub.reset();
  attacker.reset();
});

async function create(): Promise<{ id: string; slug: string }> {
  const slug = `bound-${++seq}`;
  const res = await client(t.baseUrl, engineer.token).post('/api/providers', {
    name: slug,
    slug,
    baseUrl: stub.url,
    apiKey: KEY,
    models: ['gpt-stub'],
    isDefault: true,
  });
  expect(res.status).toBe(201);
  return res.body.provider;
}

/** What the provider now sends to its baseUrl: a test call, and the Authorization it carried. */
async function sentAuthorization(p: { id: string }, to: OpenAiStub): Promise<string | null> {
  await client(t.baseUrl, engineer.token).post(`/api/providers/${p.id}/test`, { model: 'gpt-stub' });
  return to.last().authorization;
}

describe('issue 25 item 6: PATCH baseUrl to another origin or path without a new apiKey drops the stored key', () => {
  const elsewhere = () => {
    const u = new URL(stub.url);
    // another host, port or scheme; and, since some gateways separate tenants by path, another path on the same origin
    return [
      attacker.url,
      `http://localhost:${u.port}/v1`,
      `https://127.0.0.1:${u.port}/v1`,
      `${u.origin}/tenant-b/v1`,
      `${u.origin}/v2`,
      `${u.origin}/v1/deeper`,
      `${u.origin}/v1?tenant=b`,
    ];
  };

  it('REST: 200, the provider moves and has no key; the old key is never sent to the new place', async () => {
    for (const baseUrl of elsewhere()) {
      for (const body of [{ baseUrl }, { baseUrl, apiKey: '' }]) {
        const p = await create();
        const res = await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, body);
        expect([baseUrl, res.status]).toEqual([baseUrl, 200]);
        expect(res.body.provider).toMatchObject({ baseUrl, hasApiKey: false, apiKey: '' });
        // moving it back does not bring the key back either
        const back = await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, { baseUrl: stub.url });
        expect(back.body.provider).toMatchObject({ baseUrl: stub.url, hasApiKey: false });
        expect(await sentAuthorization(p, stub)).toBeNull();
      }
    }
    expect(JSON.stringify(attacker.requests)).not.toContain(KEY);
  });

  it('GraphQL updateProvider: the same rule (same service); with its own apiKey the new place gets that key', async () => {
    const M = `mutation($id: String!, $input: UpdateProviderInput!) { updateProvider(id: $id, input: $input) { id baseUrl hasApiKey } }`;
    const p = await create();
    const moved = await gql(t.baseUrl, M, { token: engineer.token, variables: { id: p.id, input: { baseUrl: attacker.url } } });
    expect(moved.errors).toBeUndefined();
    expect(moved.data.updateProvider).toMatchObject({ baseUrl: attacker.url, hasApiKey: false });
    expect(await sentAuthorization(p, attacker)).toBeNull();
    const q = await create();
    const [tenantB] = elsewhere().slice(3);
    const rekeyed = await gql(t.baseUrl, M, {
      token: engineer.token,
      variables: { id: q.id, input: { baseUrl: tenantB, apiKey: 'sk-tenant-b-key-000000' } },
    });
    expect(rekeyed.errors).toBeUndefined();
    expect(rekeyed.data.updateProvider).toMatchObject({ baseUrl: tenantB, hasApiKey: true });
    expect(await sentAuthorization(q, stub)).toBe('Bearer sk-tenant-b-key-000000');
    expect(stub.last().path).toBe('/tenant-b/v1/chat/completions');
  });

  it('a trailing slash (the same baseUrl) keeps the key', async () => {
    const p = await create();
    const samePlace = stub.url.replace(/\/v1$/, '/v1/');
    const res = await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, { baseUrl: samePlace });
    expect(res.status).toBe(200);
    expect(res.body.provider.hasApiKey).toBe(true);
    expect(await sentAuthorization(p, stub)).toBe(`Bearer ${KEY}`);
  });
});

describe("a database edit of base_url cannot re-point the key (origin in the ciphertext's associated data)", () => {
  it('the test endpoint answers the failure shape and sends nothing', async () => {
    const p = await create();
    await f.em().getConnection().execute('update providers set base_url = ? where id = ?', [attacker.url, p.id]);
    const res = await client(t.baseUrl, engineer.token).post(`/api/providers/${p.id}/test`, { model: 'gpt-stub' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: false, latencyMs: expect.any(Number), status: 0, error: expect.stringMatching(/another origin/) });
    expect(attacker.requests).toHaveLength(0);
    expect(stub.requests).toHaveLength(0);
  });

  it('chat ends with an LLM_API_ERROR error event naming the cause, and sends nothing', async () => {
    const p = await create();
    await f.em().getConnection().execute('update providers set base_url = ? where id = ?', [attacker.url, p.id]);
    const owner = await f.makeUser({ platformRole: 'admin' });
    const project = await f.makeProject({ owner });
    const r = await postSse(t.baseUrl, `/api/chat/projects/${project.id}`, {
      token: owner.token,
      body: { message: 'hello?', modelId: `${p.slug}/gpt-stub` },
    });
    const error = r.events.find((e) => e.event === 'error');
    expect(error?.data).toEqual(expect.objectContaining({ message: 'LLM_API_ERROR', detail: expect.stringMatching(/another origin/) }));
    expect(attacker.requests).toHaveLength(0);
  });
});

describe('keys stored by the previous version (v1: key from JWT_SECRET, no associated data)', () => {
  it('are re-encrypted origin-bound at start and keep working', async () => {
    const p = await create();
    // exactly what the previous version wrote
    const key = Buffer.from(hkdfSync('sha256', t.services.secrets.jwtSecret, 'docqa/provider-api-key', 'aes-256-gcm v1', 32));
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', key, iv);
    const ct = Buffer.concat([c.update('sk-stored-by-v1-0000000', 'utf8'), c.final()]);
    const v1 = ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
    const conn = f.em().getConnection();
    await conn.execute('update providers set api_key_enc = ? where id = ?', [v1, p.id]);
    await t.services.secrets.load(); // what every start does
    const [row] = await conn.execute('select api_key_enc from providers where id = ?', [p.id]);
    expect(row.api_key_enc).toMatch(/^v2\./);
    const res = await client(t.baseUrl, engineer.token).post(`/api/providers/${p.id}/test`, { model: 'gpt-stub' });
    expect(res.body.ok).toBe(true);
    expect(stub.last().authorization).toBe('Bearer sk-stored-by-v1-0000000');
  });
});
