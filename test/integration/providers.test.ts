import net from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger';
import { PROVIDER_TEST_TIMEOUT_MS } from '../../src/services/providers.service';
import { factories } from '../support/factories';
import { api, client } from '../support/http';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import { createTestApp, TestApp } from '../support/test-app';
import { expectShape } from '../support/openapi-validator';

let t: TestApp;
let f: ReturnType<typeof factories>;
let stub: OpenAiStub;
let logText = '';
let engineer: Awaited<ReturnType<typeof f.makeUser>>;
let root: Awaited<ReturnType<typeof f.makeUser>>;
let admin: Awaited<ReturnType<typeof f.makeUser>>;
let member: Awaited<ReturnType<typeof f.makeUser>>;

const KEY = 'sk-test-plaintext-key-0123456789';

beforeAll(async () => {
  stub = await startOpenAiStub();
  // every log line at trace level, to prove keys never reach the log
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logText += chunk.toString();
      cb();
    },
  });
  t = await createTestApp({ logger: createLogger('trace', sink) });
  f = factories(t.orm, t.services);
  root = await f.superadmin();
  engineer = await f.makeUser({ platformRole: 'engineer' });
  admin = await f.makeUser({ platformRole: 'admin' });
  member = await f.makeUser();
});
afterAll(async () => {
  await t?.close();
  await stub?.close();
});
beforeEach(() => stub.reset());

let seq = 0;
const body = (over: Record<string, unknown> = {}) => ({
  name: `Provider ${++seq}`,
  slug: `prov-${seq}-${Date.now().toString(36)}`,
  type: 'custom',
  baseUrl: stub.url,
  apiKey: KEY,
  models: ['gpt-stub', 'gpt-stub-mini'],
  ...over,
});

/** Deletes every provider, so each block starts from "no providers". */
async function wipe(): Promise<void> {
  await f.em().getConnection().execute('delete from providers');
}

async function create(over: Record<string, unknown> = {}, token = engineer.token) {
  const res = await client(t.baseUrl, token).post('/api/providers', body(over));
  expect(res.status).toBe(201);
  return res.body.provider;
}

const adminList = async () => (await client(t.baseUrl, engineer.token).get('/api/providers/admin')).body.providers as any[];
const defaults = async () => (await adminList()).filter((p) => p.isDefault);

describe('authentication', () => {
  it.each([
    ['GET', '/api/providers'],
    ['GET', '/api/providers/models'],
    ['GET', '/api/providers/admin'],
    ['POST', '/api/providers'],
    ['PATCH', '/api/providers/00000000-0000-4000-8000-000000000000'],
    ['DELETE', '/api/providers/00000000-0000-4000-8000-000000000000'],
    ['POST', '/api/providers/00000000-0000-4000-8000-000000000000/delete'],
    ['POST', '/api/providers/00000000-0000-4000-8000-000000000000/test'],
    ['POST', '/api/providers/draft/test'],
  ])('%s %s requires authentication', async (method, path) => {
    const res = await api(t.baseUrl, method, path, { body: method === 'GET' ? undefined : {} });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });
});

describe('gates: provider administration is engineer or superadmin; an admin is refused', () => {
  let id: string;
  beforeAll(async () => {
    await wipe();
    id = (await create()).id;
  });

  const denied = () =>
    [
      ['admin', admin],
      ['member', member],
    ] as const;
  it.each([
    ['GET /providers/admin', 'GET', () => '/api/providers/admin', undefined],
    ['POST /providers', 'POST', () => '/api/providers', () => body()],
    ['PATCH /providers/:id', 'PATCH', () => `/api/providers/${id}`, () => ({ name: 'x' })],
    ['DELETE /providers/:id', 'DELETE', () => `/api/providers/${id}`, undefined],
    ['POST /providers/:id/delete', 'POST', () => `/api/providers/${id}/delete`, undefined],
    ['POST /providers/:id/test', 'POST', () => `/api/providers/${id}/test`, () => ({ model: 'gpt-stub' })],
    ['POST /providers/draft/test', 'POST', () => '/api/providers/draft/test', () => ({ baseUrl: stub.url, model: 'gpt-stub' })],
  ])('%s → 403 for admin and for a plain user', async (_label, method, path, b) => {
    for (const [, user] of denied()) {
      const res = await api(t.baseUrl, method, path(), { token: user.token, body: b?.() });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('forbidden');
    }
    expect(stub.requests).toHaveLength(0);
  });

  it('engineer and superadmin pass every administration gate', async () => {
    for (const user of [engineer, root]) {
      expect((await client(t.baseUrl, user.token).get('/api/providers/admin')).status).toBe(200);
      const p = await create({}, user.token);
      expect((await client(t.baseUrl, user.token).patch(`/api/providers/${p.id}`, { name: 'renamed' })).status).toBe(200);
      expect((await client(t.baseUrl, user.token).post(`/api/providers/${p.id}/test`, { model: 'gpt-stub' })).body.ok).toBe(true);
      expect(
        (await client(t.baseUrl, user.token).post('/api/providers/draft/test', { baseUrl: stub.url, model: 'gpt-stub' })).body.ok,
      ).toBe(true);
      expect((await client(t.baseUrl, user.token).delete(`/api/providers/${p.id}`)).status).toBe(200);
    }
  });

  it('any authenticated user reads the public listing and the models', async () => {
    for (const user of [member, admin]) {
      expect((await client(t.baseUrl, user.token).get('/api/providers')).status).toBe(200);
      expect((await client(t.baseUrl, user.token).get('/api/providers/models')).status).toBe(200);
    }
  });
});

describe('create and list', () => {
  beforeEach(wipe);

  it('creates a provider: 201 {provider}, enabled by default, key masked, the first one becomes default', async () => {
    const res = await client(t.baseUrl, engineer.token).post('/api/providers', body({ slug: 'openai-main' }));
    expect(res.status).toBe(201);
    const p = res.body.provider;
    expect(p).toEqual({
      id: expect.any(String),
      name: expect.any(String),
      slug: 'openai-main',
      type: 'custom',
      baseUrl: stub.url,
      apiKey: 'sk-t…6789',
      hasApiKey: true,
      models: ['gpt-stub', 'gpt-stub-mini'],
      embeddingModels: [],
      rerankModels: [],
      isDefault: true,
      isEnabled: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toContain(KEY);
  });

  it('stores the API key encrypted (AES-256-GCM): the column never holds the plaintext', async () => {
    const p = await create();
    const [row] = await f.em().getConnection().execute('select api_key_enc, api_key_mask from providers where id = ?', [p.id]);
    expect(row.api_key_enc).not.toContain(KEY);
    expect(row.api_key_enc).toMatch(/^v2\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(row.api_key_mask).toBe('sk-t…6789');
    // and it decrypts to the key: the test call sends exactly the plaintext
    const res = await client(t.baseUrl, engineer.token).post(`/api/providers/${p.id}/test`, { model: 'gpt-stub' });
    expect(res.body.ok).toBe(true);
    expect(stub.last().authorization).toBe(`Bearer ${KEY}`);
  });

  it('the public listing shows enabled providers only, without any secret or URL', async () => {
    const on = await create();
    const off = await create({ isEnabled: false });
    const res = await client(t.baseUrl, member.token).get('/api/providers');
    expect(res.status).toBe(200);
    expect(res.body.providers.map((p: any) => p.id)).toEqual([on.id]);
    expectShape(res.body.providers[0], 'PublicProvider');
    expect(res.text).not.toContain('…');
    expect(res.text).not.toContain(KEY);
    const adminIds = (await adminList()).map((p) => p.id);
    expect(adminIds).toEqual([on.id, off.id]);
  });

  it('GET /providers/models lists one entry per model of the enabled providers with slug/model ids', async () => {
    const a = await create({ slug: 'alpha', name: 'Alpha', models: ['m1', 'm2'] });
    const b = await create({ slug: 'beta', name: 'Beta', models: ['m3'] });
    await create({ slug: 'gamma', isEnabled: false, models: ['hidden'] });
    const res = await client(t.baseUrl, member.token).get('/api/providers/models');
    expect(res.status).toBe(200);
    expect(res.body.models).toEqual([
      { id: 'alpha/m1', model: 'm1', provider: 'Alpha', providerSlug: 'alpha', providerId: a.id, isDefault: true },
      { id: 'alpha/m2', model: 'm2', provider: 'Alpha', providerSlug: 'alpha', providerId: a.id, isDefault: false },
      { id: 'beta/m3', model: 'm3', provider: 'Beta', providerSlug: 'beta', providerId: b.id, isDefault: false },
    ]);
  });

  it('masks short keys without revealing most of them, and shows "" for no key', async () => {
    expect((await create({ apiKey: 'abcdefghij' })).apiKey).toBe('ab…ij');
    expect((await create({ apiKey: 'abc' })).apiKey).toBe('…');
    const none = await create({ apiKey: undefined });
    expect(none.apiKey).toBe('');
    expect(none.hasApiKey).toBe(false);
  });

  it.each([
    ['an uppercase slug', { slug: 'OpenAI' }, 'slug'],
    ['a slug with spaces', { slug: 'open ai' }, 'slug'],
    ['a slug with a double hyphen', { slug: 'open--ai' }, 'slug'],
    ['a slug ending in a hyphen', { slug: 'openai-' }, 'slug'],
    ['no models', { models: [] }, 'models'],
    ['a blank model', { models: ['  '] }, 'models'],
    ['duplicate models', { models: ['a', 'a'] }, 'models'],
    ['missing models', { models: undefined }, 'models'],
    ['a non-URL baseUrl', { baseUrl: 'not a url' }, 'baseUrl'],
    ['an ftp baseUrl', { baseUrl: 'ftp://example.com/v1' }, 'baseUrl'],
    ['a baseUrl with credentials', { baseUrl: 'https://user:pw@example.com/v1' }, 'baseUrl'],
    ['an unknown type', { type: 'premium' }, 'type'],
    ['a missing name', { name: undefined }, 'name'],
    ['a numeric apiKey', { apiKey: 42 }, 'apiKey'],
    ['an unknown field', { colour: 'red' }, 'colour'],
    ['embeddingModels that is not a list', { embeddingModels: 'e5' }, 'embeddingModels'],
    ['a blank embedding model', { embeddingModels: ['e5', ' '] }, 'embeddingModels'],
    ['duplicate embedding models', { embeddingModels: ['e5', 'e5'] }, 'embeddingModels'],
    ['a non-string embedding model', { embeddingModels: [7] }, 'embeddingModels'],
    ['rerankModels that is not a list', { rerankModels: 'bge' }, 'rerankModels'],
    ['duplicate rerank models', { rerankModels: ['bge', 'bge'] }, 'rerankModels'],
  ])('refuses %s with 400', async (_what, over, field) => {
    const res = await client(t.baseUrl, engineer.token).post('/api/providers', body(over));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('validation_failed');
    expect(res.body.details.map((d: any) => d.field)).toContain(field);
  });

  it('refuses a duplicate slug with 409 slug_exists', async () => {
    await create({ slug: 'dupe' });
    const res = await client(t.baseUrl, engineer.token).post('/api/providers', body({ slug: 'dupe' }));
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('slug_exists');
  });

  it('drops a trailing slash from baseUrl', async () => {
    expect((await create({ baseUrl: `${stub.url}/` })).baseUrl).toBe(stub.url);
  });
});

describe('exactly one default', () => {
  beforeEach(wipe);

  it('isDefault:true on create unsets the previous default', async () => {
    const a = await create();
    const b = await create({ isDefault: true });
    expect(b.isDefault).toBe(true);
    expect((await defaults()).map((p) => p.id)).toEqual([b.id]);
    expect((await adminList()).find((p) => p.id === a.id).isDefault).toBe(false);
  });

  it('a later provider without isDefault does not take the default', async () => {
    const a = await create();
    await create();
    expect((await defaults()).map((p) => p.id)).toEqual([a.id]);
  });

  it('the first provider becomes the default even when created with isDefault:false', async () => {
    const a = await create({ isDefault: false });
    expect(a.isDefault).toBe(true);
  });

  it('PATCH isDefault:true moves the default in one step', async () => {
    const a = await create();
    const b = await create();
    const res = await client(t.baseUrl, engineer.token).patch(`/api/providers/${b.id}`, { isDefault: true });
    expect(res.status).toBe(200);
    expect(res.body.provider.isDefault).toBe(true);
    expect((await defaults()).map((p) => p.id)).toEqual([b.id]);
    expect((await adminList()).find((p) => p.id === a.id).isDefault).toBe(false);
  });

  it('concurrent "make me default" requests still leave exactly one default', async () => {
    const ps = [await create(), await create(), await create(), await create()];
    const results = await Promise.all(
      ps.map((p) => client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, { isDefault: true })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await defaults()).toHaveLength(1);
  });

  it('deleting the default hands it to the oldest enabled provider', async () => {
    const a = await create();
    await create({ isEnabled: false });
    const c = await create();
    const d = await create();
    const res = await client(t.baseUrl, engineer.token).delete(`/api/providers/${a.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: a.id });
    expect((await defaults()).map((p) => p.id)).toEqual([c.id]);
    expect((await adminList()).map((p) => p.id)).toContain(d.id);
  });

  it('deleting the default when only disabled providers remain hands it to the oldest of them', async () => {
    const a = await create();
    const b = await create({ isEnabled: false });
    await client(t.baseUrl, engineer.token).delete(`/api/providers/${a.id}`);
    expect((await defaults()).map((p) => p.id)).toEqual([b.id]);
  });

  it('disabling the default hands it to the oldest enabled provider', async () => {
    const a = await create();
    const b = await create();
    const res = await client(t.baseUrl, engineer.token).patch(`/api/providers/${a.id}`, { isEnabled: false });
    expect(res.body.provider).toEqual(expect.objectContaining({ isEnabled: false, isDefault: false }));
    expect((await defaults()).map((p) => p.id)).toEqual([b.id]);
  });

  it('isDefault:false on the default moves it to the oldest other enabled provider', async () => {
    const a = await create();
    const b = await create();
    await client(t.baseUrl, engineer.token).patch(`/api/providers/${a.id}`, { isDefault: false });
    expect((await defaults()).map((p) => p.id)).toEqual([b.id]);
  });

  it('isDefault:false on the only provider → 409 default_required', async () => {
    const a = await create();
    const res = await client(t.baseUrl, engineer.token).patch(`/api/providers/${a.id}`, { isDefault: false });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('default_required');
    expect((await defaults()).map((p) => p.id)).toEqual([a.id]);
  });

  it('a disabled provider cannot be made the default (400)', async () => {
    await create();
    const off = await create({ isEnabled: false });
    const res = await client(t.baseUrl, engineer.token).patch(`/api/providers/${off.id}`, { isDefault: true });
    expect(res.status).toBe(400);
    const res2 = await client(t.baseUrl, engineer.token).post('/api/providers', body({ isDefault: true, isEnabled: false }));
    expect(res2.status).toBe(400);
  });
});

describe('update and delete', () => {
  beforeEach(wipe);

  it('PATCH with an empty apiKey keeps the stored key; a new apiKey replaces it', async () => {
    const p = await create();
    const kept = await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, { apiKey: '', name: 'Renamed' });
    expect(kept.status).toBe(200);
    expect(kept.body.provider).toEqual(expect.objectContaining({ name: 'Renamed', apiKey: 'sk-t…6789' }));
    await client(t.baseUrl, engineer.token).post(`/api/providers/${p.id}/test`, { model: 'gpt-stub' });
    expect(stub.last().authorization).toBe(`Bearer ${KEY}`);

    const replaced = await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, { apiKey: 'sk-new-key-abcdefghijkl' });
    expect(replaced.body.provider.apiKey).toBe('sk-n…ijkl');
    await client(t.baseUrl, engineer.token).post(`/api/providers/${p.id}/test`, { model: 'gpt-stub' });
    expect(stub.last().authorization).toBe('Bearer sk-new-key-abcdefghijkl');
  });

  it('PATCH updates the other fields and validates them like create', async () => {
    const p = await create();
    const res = await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, {
      models: ['x'],
      type: 'official',
      slug: 'new-slug',
      baseUrl: 'https://api.example.com/v1/',
      apiKey: 'sk-for-example-com',
    });
    expect(res.body.provider).toEqual(
      expect.objectContaining({ models: ['x'], type: 'official', slug: 'new-slug', baseUrl: 'https://api.example.com/v1' }),
    );
    for (const bad of [{ models: [] }, { slug: 'Bad Slug' }, { baseUrl: 'nope' }, { isEnabled: 'yes' }, { name: null }]) {
      const r = await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, bad);
      expect(r.status).toBe(400);
    }
  });

  it('PATCH to a slug that another provider has → 409 slug_exists', async () => {
    await create({ slug: 'taken' });
    const p = await create();
    const res = await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, { slug: 'taken' });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('slug_exists');
  });

  it('POST /:id/delete is the same as DELETE', async () => {
    const p = await create();
    const res = await client(t.baseUrl, engineer.token).post(`/api/providers/${p.id}/delete`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, id: p.id });
    expect(await adminList()).toEqual([]);
  });

  it('unknown or malformed ids → 404', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      expect((await client(t.baseUrl, engineer.token).patch(`/api/providers/${id}`, { name: 'x' })).status).toBe(404);
      expect((await client(t.baseUrl, engineer.token).delete(`/api/providers/${id}`)).status).toBe(404);
      expect((await client(t.baseUrl, engineer.token).post(`/api/providers/${id}/test`, { model: 'm' })).status).toBe(404);
    }
  });
});

describe('POST /providers/:id/test', () => {
  let p: any;
  beforeAll(async () => {
    await wipe();
    p = await create({ models: ['gpt-stub'] });
  });
  afterEach(() => {
    t.services.providers.testTimeoutMs = PROVIDER_TEST_TIMEOUT_MS;
  });
  const test = (id: string, b: Record<string, unknown>) => client(t.baseUrl, engineer.token).post(`/api/providers/${id}/test`, b);

  it('success: {ok, latencyMs, status, sample} with the first ~120 characters, from a non-streaming call', async () => {
    const long = 'The quick brown fox jumps over the lazy dog. '.repeat(10);
    stub.once({ content: long });
    const res = await test(p.id, { model: 'gpt-stub' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, latencyMs: expect.any(Number), status: 200, sample: long.slice(0, 120) });
    expect(Number.isInteger(res.body.latencyMs)).toBe(true);
    expect(stub.last().body).toEqual(expect.objectContaining({ model: 'gpt-stub', stream: false }));
    expect(stub.last().path).toBe('/v1/chat/completions');
  });

  it('the body model and apiKey override the stored ones', async () => {
    await test(p.id, { model: 'another-model', apiKey: 'sk-body-key' });
    expect(stub.last().body.model).toBe('another-model');
    expect(stub.last().authorization).toBe('Bearer sk-body-key');
  });

  it('model is required', async () => {
    const res = await test(p.id, {});
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: any) => d.field)).toContain('model');
  });

  it('a wrong key: failure shape with status 401 and an error naming the key', async () => {
    stub.once({ requireKey: 'the-right-key' });
    const res = await test(p.id, { model: 'gpt-stub' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: false,
      latencyMs: expect.any(Number),
      status: 401,
      error: expect.stringMatching(/API key.*Incorrect API key provided/),
    });
  });

  it('an unknown model: status 404 and an error naming the model', async () => {
    stub.once({ models: ['gpt-stub'] });
    const res = await test(p.id, { model: 'no-such-model' });
    expect(res.body).toEqual(expect.objectContaining({ ok: false, status: 404 }));
    expect(res.body.error).toMatch(/no-such-model/);
  });

  it('an upstream 500 is reported with its status and message', async () => {
    stub.once({ status: 500, errorBody: { error: { message: 'overloaded' } } });
    const res = await test(p.id, { model: 'gpt-stub' });
    expect(res.body).toEqual(expect.objectContaining({ ok: false, status: 500, error: expect.stringContaining('overloaded') }));
  });

  it('connection refused: status 0 and an error saying so', async () => {
    const port = await closedPort();
    const res = await client(t.baseUrl, engineer.token).post('/api/providers/draft/test', {
      baseUrl: `http://127.0.0.1:${port}/v1`,
      model: 'm',
    });
    expect(res.body).toEqual({ ok: false, latencyMs: expect.any(Number), status: 0, error: expect.stringMatching(/refused/i) });
  });

  it('DNS failure: status 0 and an error naming DNS', async () => {
    const res = await client(t.baseUrl, engineer.token).post('/api/providers/draft/test', {
      baseUrl: 'http://no-such-host.invalid/v1',
      model: 'm',
    });
    expect(res.body).toEqual(expect.objectContaining({ ok: false, status: 0, error: expect.stringMatching(/DNS/) }));
  });

  it('TLS failure: status 0 and an error naming TLS', async () => {
    const port = new URL(stub.url).port;
    const res = await client(t.baseUrl, engineer.token).post('/api/providers/draft/test', {
      baseUrl: `https://127.0.0.1:${port}/v1`,
      model: 'm',
    });
    expect(res.body).toEqual(expect.objectContaining({ ok: false, status: 0, error: expect.stringMatching(/TLS/) }));
  });

  it('times out after 30 s by default, reported in the failure shape (shortened here)', async () => {
    expect(PROVIDER_TEST_TIMEOUT_MS).toBe(30_000);
    t.services.providers.testTimeoutMs = 300;
    stub.once({ hang: 'headers' });
    const res = await test(p.id, { model: 'gpt-stub' });
    expect(res.body).toEqual({
      ok: false,
      latencyMs: expect.any(Number),
      status: 0,
      error: expect.stringMatching(/timed out after 300 ms/),
    });
    expect(res.body.latencyMs).toBeGreaterThanOrEqual(290);
    // the hung upstream sees the connection go
    await stub.waitFor(() => stub.last().aborted);
  });

  it('security: a body that changes baseUrl without its own apiKey → 400, and nothing is sent anywhere', async () => {
    const other = await startOpenAiStub();
    try {
      for (const b of [
        { baseUrl: other.url, model: 'gpt-stub' },
        { baseUrl: other.url, model: 'gpt-stub', apiKey: '' },
      ]) {
        const res = await test(p.id, b);
        expect(res.status).toBe(400);
        expect(res.body.error).toBe('validation_failed');
        expect(res.body.details[0].field).toBe('apiKey');
      }
      expect(other.requests).toHaveLength(0);
      expect(stub.requests).toHaveLength(0);
      // with its own key the other endpoint is tested, and only that key is sent
      const ok = await test(p.id, { baseUrl: other.url, model: 'gpt-stub', apiKey: 'sk-own-key' });
      expect(ok.body.ok).toBe(true);
      expect(other.last().authorization).toBe('Bearer sk-own-key');
    } finally {
      await other.close();
    }
  });

  it('the same baseUrl (trailing slash aside) may reuse the stored key', async () => {
    const res = await test(p.id, { baseUrl: `${stub.url}/`, model: 'gpt-stub' });
    expect(res.body.ok).toBe(true);
    expect(stub.last().authorization).toBe(`Bearer ${KEY}`);
  });

  it('draft: tests a configuration before it is saved; baseUrl is required', async () => {
    const res = await client(t.baseUrl, engineer.token).post('/api/providers/draft/test', {
      baseUrl: stub.url,
      apiKey: 'sk-draft',
      model: 'gpt-stub',
    });
    expect(res.body).toEqual(expect.objectContaining({ ok: true, status: 200, sample: 'Hello world.' }));
    expect(stub.last().authorization).toBe('Bearer sk-draft');
    const missing = await client(t.baseUrl, engineer.token).post('/api/providers/draft/test', { model: 'gpt-stub' });
    expect(missing.status).toBe(400);
  });

  it('never writes an API key to the log', async () => {
    await create({ apiKey: 'sk-log-canary-9f8e7d6c5b4a' });
    await client(t.baseUrl, engineer.token).post('/api/providers/draft/test', {
      baseUrl: stub.url,
      apiKey: 'sk-log-canary-2',
      model: 'gpt-stub',
    });
    expect(logText.length).toBeGreaterThan(0);
    expect(logText).not.toContain('sk-log-canary');
    expect(logText).not.toContain(KEY);
  });
});

describe('SSRF guard on provider tests', () => {
  let strict: TestApp;
  let allow: TestApp;
  beforeAll(async () => {
    strict = await createTestApp({ env: { ALLOW_PRIVATE_NETWORK: 'false' } });
    allow = await createTestApp({ env: { ALLOW_PRIVATE_NETWORK: 'false', PRIVATE_HOST_ALLOWLIST: '127.0.0.0/8' } });
  });
  afterAll(async () => {
    await strict?.close();
    await allow?.close();
  });

  it('refuses loopback and private targets when private networks are not allowed', async () => {
    const u = await factories(strict.orm, strict.services).makeUser({ platformRole: 'engineer' });
    for (const baseUrl of [
      stub.url,
      stub.url.replace('127.0.0.1', 'localhost'),
      'http://169.254.169.254/latest',
      'http://[::1]:9/v1',
      'http://10.1.2.3/v1',
    ]) {
      const res = await client(strict.baseUrl, u.token).post('/api/providers/draft/test', { baseUrl, model: 'm' });
      expect(res.body).toEqual(
        expect.objectContaining({ ok: false, status: 0, error: expect.stringMatching(/private, loopback and link-local/) }),
      );
    }
    expect(stub.requests).toHaveLength(0);
  });

  it('an allow-listed CIDR is reachable', async () => {
    const u = await factories(allow.orm, allow.services).makeUser({ platformRole: 'engineer' });
    const res = await client(allow.baseUrl, u.token).post('/api/providers/draft/test', { baseUrl: stub.url, model: 'm' });
    expect(res.body.ok).toBe(true);
  });
});

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

describe('embedding models (managed like models)', () => {
  beforeAll(wipe);
  it('REST: create, list, PATCH and clear embeddingModels', async () => {
    const p = await create({ embeddingModels: [' text-embedding-3-small ', 'BAAI/bge-m3'] });
    expect(p.embeddingModels).toEqual(['text-embedding-3-small', 'BAAI/bge-m3']);
    expect((await adminList()).find((x) => x.id === p.id).embeddingModels).toEqual(['text-embedding-3-small', 'BAAI/bge-m3']);
    const pub = (await client(t.baseUrl, member.token).get('/api/providers')).body.providers.find((x: any) => x.id === p.id);
    expect(pub.embeddingModels).toEqual(['text-embedding-3-small', 'BAAI/bge-m3']);
    // chat's model listing is unchanged: embedding models are not chat models
    const models = (await client(t.baseUrl, member.token).get('/api/providers/models')).body.models.filter(
      (m: any) => m.providerId === p.id,
    );
    expect(models.map((m: any) => m.model)).toEqual(['gpt-stub', 'gpt-stub-mini']);
    const patched = await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, { embeddingModels: ['nomic-embed-text'] });
    expect(patched.status).toBe(200);
    expect(patched.body.provider.embeddingModels).toEqual(['nomic-embed-text']);
    // other fields leave them alone; an empty list clears them
    expect(
      (await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, { name: 'Renamed' })).body.provider.embeddingModels,
    ).toEqual(['nomic-embed-text']);
    expect(
      (await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, { embeddingModels: [] })).body.provider.embeddingModels,
    ).toEqual([]);
    const bad = await client(t.baseUrl, engineer.token).patch(`/api/providers/${p.id}`, { embeddingModels: [''] });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((d: any) => d.field)).toContain('embeddingModels');
  });

  it('a provider created without embeddingModels has an empty list', async () => {
    expect((await create()).embeddingModels).toEqual([]);
  });

  it('GraphQL: createProvider / updateProvider take embeddingModels and Provider shows them', async () => {
    const gql = (query: string, variables: Record<string, unknown>, token = engineer.token) =>
      client(t.baseUrl, token).post('/graphql', { query, variables });
    const created = await gql(`mutation($input: CreateProviderInput!) { createProvider(input: $input) { id embeddingModels } }`, {
      input: {
        name: 'GQL embeddings',
        slug: `gql-emb-${Date.now().toString(36)}`,
        baseUrl: stub.url,
        apiKey: KEY,
        models: ['gpt-stub'],
        embeddingModels: ['e5-small'],
      },
    });
    expect(created.body.errors).toBeUndefined();
    const id = created.body.data.createProvider.id;
    expect(created.body.data.createProvider.embeddingModels).toEqual(['e5-small']);
    const updated = await gql(
      `mutation($id: String!, $input: UpdateProviderInput!) { updateProvider(id: $id, input: $input) { embeddingModels } }`,
      { id, input: { embeddingModels: ['e5-large', 'e5-small'] } },
    );
    expect(updated.body.data.updateProvider.embeddingModels).toEqual(['e5-large', 'e5-small']);
    const listed = await gql(`{ providers { id embeddingModels } }`, {}, member.token);
    expect(listed.body.data.providers.find((x: any) => x.id === id).embeddingModels).toEqual(['e5-large', 'e5-small']);
    const refused = await gql(`mutation($id: String!, $input: UpdateProviderInput!) { updateProvider(id: $id, input: $input) { id } }`, {
      id,
      input: { embeddingModels: ['x', 'x'] },
    });
    expect(refused.body.errors[0].extensions.code).toBe('validation_failed');
  });
});
