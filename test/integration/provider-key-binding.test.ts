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

describe('PATCH baseUrl to another origin needs a new apiKey', () => {
  it('REST: another host, port or scheme without apiKey → 400 validation_failed on apiKey; nothing changes or is sent', async () => {
    const p = await create();
    const u = new URL(stub.url);
    for (const baseUrl of [attacker.url, `http://localhost:${u.port}/v1`, `https://127.0.0.1:${u.port}/v1`]) {
      const res = await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, { baseUrl });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details).toEqual([expect.objectContaining({ field: 'apiKey' })]);
      // an empty apiKey is "keep the stored key": refused the same way
      expect((await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, { baseUrl, apiKey: '' })).status).toBe(400);
    }
    const test = await client(t.baseUrl, engineer.token).post(`/api/providers/${p.id}/test`, { model: 'gpt-stub' });
    expect(test.body.ok).toBe(true);
    expect(stub.last().authorization).toBe(`Bearer ${KEY}`);
    expect(attacker.requests).toHaveLength(0);
  });

  it('GraphQL updateProvider: the same rule (same service)', async () => {
    const p = await create();
    const r = await gql(
      t.baseUrl,
      `mutation($id: String!, $input: UpdateProviderInput!) { updateProvider(id: $id, input: $input) { id baseUrl } }`,
      {
        token: engineer.token,
        variables: { id: p.id, input: { baseUrl: attacker.url } },
      },
    );
    expect(r.errors?.[0].extensions?.code).toBe('validation_failed');
    expect(JSON.stringify(r.errors?.[0].extensions)).toContain('apiKey');
    const ok = await gql(
      t.baseUrl,
      `mutation($id: String!, $input: UpdateProviderInput!) { updateProvider(id: $id, input: $input) { id baseUrl } }`,
      {
        token: engineer.token,
        variables: { id: p.id, input: { baseUrl: attacker.url, apiKey: 'sk-the-attacker-own-key-0000' } },
      },
    );
    expect(ok.errors).toBeUndefined();
    expect(ok.data.updateProvider.baseUrl).toBe(attacker.url);
  });

  it('a trailing slash (the same baseUrl) keeps the key; a new origin with its own key stores that key for it', async () => {
    const p = await create();
    const samePlace = stub.url.replace(/\/v1$/, '/v1/');
    expect((await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, { baseUrl: samePlace })).status).toBe(200);
    const moved = await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, {
      baseUrl: attacker.url,
      apiKey: 'sk-new-origin-key-000000',
    });
    expect(moved.status).toBe(200);
    await client(t.baseUrl, engineer.token).post(`/api/providers/${p.id}/test`, { model: 'gpt-stub' });
    expect(attacker.last().authorization).toBe('Bearer sk-new-origin-key-000000');
    expect(stub.requests).toHaveLength(0);
  });
});

describe('issue 25 item 6: PATCH baseUrl to another path on the same origin needs a new apiKey too', () => {
  // some gateways separate tenants by path: the key of /tenant-a must not follow the provider to /tenant-b
  const otherPaths = () => {
    const u = new URL(stub.url);
    return [`${u.origin}/tenant-b/v1`, `${u.origin}/v2`, `${u.origin}/v1/deeper`, `${u.origin}/v1?tenant=b`];
  };

  it('REST: 400 validation_failed on apiKey; the provider keeps its baseUrl and key', async () => {
    const p = await create();
    for (const baseUrl of otherPaths()) {
      for (const body of [{ baseUrl }, { baseUrl, apiKey: '' }]) {
        const res = await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, body);
        expect([baseUrl, res.status, res.body.error]).toEqual([baseUrl, 400, 'validation_failed']);
        expect(res.body.details).toEqual([expect.objectContaining({ field: 'apiKey', message: expect.stringMatching(/origin or path/) })]);
      }
    }
    const test = await client(t.baseUrl, engineer.token).post(`/api/providers/${p.id}/test`, { model: 'gpt-stub' });
    expect(test.body.ok).toBe(true);
    expect(stub.last().authorization).toBe(`Bearer ${KEY}`);
    expect(stub.last().path).toBe('/v1/chat/completions');
  });

  it('GraphQL updateProvider: the same rule; with its own apiKey the new path is accepted and gets that key', async () => {
    const p = await create();
    const [baseUrl] = otherPaths();
    const M = `mutation($id: String!, $input: UpdateProviderInput!) { updateProvider(id: $id, input: $input) { id baseUrl } }`;
    const refused = await gql(t.baseUrl, M, { token: engineer.token, variables: { id: p.id, input: { baseUrl } } });
    expect(refused.errors?.[0].extensions?.code).toBe('validation_failed');
    expect(JSON.stringify(refused.errors?.[0].extensions)).toContain('apiKey');
    const ok = await gql(t.baseUrl, M, {
      token: engineer.token,
      variables: { id: p.id, input: { baseUrl, apiKey: 'sk-tenant-b-key-000000' } },
    });
    expect(ok.errors).toBeUndefined();
    expect(ok.data.updateProvider.baseUrl).toBe(baseUrl);
    await client(t.baseUrl, engineer.token).post(`/api/providers/${p.id}/test`, { model: 'gpt-stub' });
    expect(stub.last().authorization).toBe('Bearer sk-tenant-b-key-000000');
    expect(stub.last().path).toBe('/tenant-b/v1/chat/completions');
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
