import { createHash } from 'node:crypto';
import { wsClient, wsCollect, gql } from '../support/graphql';
import { api, ApiResponse } from '../support/http';
import { chatFactories, factories } from '../support/factories';
import { startOpenAiStub, OpenAiStub } from '../support/openai-stub';
import { getSse, postSse } from '../support/sse-client';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(120_000);

/** Issue 38 part 1: keys for programs. */
type Env = { t: TestApp; f: ReturnType<typeof factories>; c: ReturnType<typeof chatFactories>; stub: OpenAiStub };
const call = (t: TestApp, method: string, path: string, token: string, body?: unknown): Promise<ApiResponse> =>
  api(t.baseUrl, method, path, { token, body });
const createKey = async (t: TestApp, token: string, body: Record<string, unknown>) => {
  const r = await call(t, 'POST', '/api/keys', token, body);
  expect(r.status).toBe(201);
  return r.body as { key: { id: string }; secret: string };
};

/** A GraphQL result as the REST status its error code stands for. */
async function gqlStatus(t: TestApp, query: string, token: string, variables: Record<string, unknown>): Promise<number> {
  const code = (await gql(t.baseUrl, query, { token, variables })).errors?.[0]?.extensions?.code;
  return code === undefined ? 200 : ({ unauthorized: 401, forbidden: 403, not_found: 404 }[code] ?? 500);
}

/**
 * A member who owns projects A and B (full on both) and has a document in each, and a key limited
 * to A at the `use` tier: one request of each route family, with what the key gets.
 */
async function world({ t, f, c }: Env) {
  const owner = await f.makeUser();
  const a = await f.makeProject({ owner });
  const b = await f.makeProject({ owner });
  const docA = { id: (await c.makeDocumentChunks({ project: a, chunks: ['alpha text'] })).documentId };
  const docB = { id: (await c.makeDocumentChunks({ project: b, chunks: ['beta text'] })).documentId };
  const { key, secret } = await createKey(t, owner.token, { name: 'script', projectIds: [a.id], tier: 'use' });
  const chat = async (token: string, projectId: string) =>
    (await postSse(t.baseUrl, `/api/chat/projects/${projectId}`, { token, body: { message: 'hello?' } })).status;
  // an answer the owner asked in each project, to resume (GET /api/chat/messages/:id/stream)
  const asked = async (projectId: string) => {
    const r = await postSse(t.baseUrl, `/api/chat/projects/${projectId}`, { token: owner.token, body: { message: 'asked by the owner' } });
    return (r.events.find((e) => e.event === 'meta')!.data as { messageId: string }).messageId;
  };
  const [answerA, answerB] = [await asked(a.id), await asked(b.id)];
  const resume = async (k: string, messageId: string) =>
    (await getSse(t.baseUrl, `/api/chat/messages/${messageId}/stream`, { token: k })).status;
  // [family, in scope, out of scope, above the tier]: each a request giving its status
  const families: Array<
    [string, (k: string) => Promise<number>, ((k: string) => Promise<number>) | null, ((k: string) => Promise<number>) | null]
  > = [
    ['auth', async (k) => (await call(t, 'GET', '/api/auth/me', k)).status, null, null],
    ['users', async (k) => (await call(t, 'GET', '/api/users/me', k)).status, null, null],
    [
      'projects',
      async (k) => (await call(t, 'GET', `/api/projects/${a.id}`, k)).status,
      async (k) => (await call(t, 'GET', `/api/projects/${b.id}`, k)).status,
      async (k) => (await call(t, 'PATCH', `/api/projects/${a.id}`, k, { description: 'changed by a key' })).status,
    ],
    [
      'grants',
      async (k) => (await call(t, 'GET', `/api/projects/${a.id}/grants`, k)).status,
      async (k) => (await call(t, 'GET', `/api/projects/${b.id}/grants`, k)).status,
      async (k) =>
        (await call(t, 'POST', `/api/projects/${a.id}/grants`, k, { targetType: 'user', targetId: owner.id, tier: 'use' })).status,
    ],
    [
      'documents',
      async (k) => (await call(t, 'GET', `/api/documents/${docA.id}`, k)).status,
      async (k) => (await call(t, 'GET', `/api/documents/${docB.id}`, k)).status,
      async (k) => (await call(t, 'POST', `/api/documents/${docA.id}/reindex`, k)).status,
    ],
    ['chat', (k) => chat(k, a.id), (k) => chat(k, b.id), async (k) => (await call(t, 'DELETE', `/api/projects/${a.id}`, k)).status],
    ['chat stream resume', (k) => resume(k, answerA), (k) => resume(k, answerB), null],
    [
      'conversations',
      async (k) => (await call(t, 'GET', `/api/chat/projects/${a.id}/conversations`, k)).status,
      async (k) => (await call(t, 'GET', `/api/chat/projects/${b.id}/conversations`, k)).status,
      null,
    ],
    [
      'graphql',
      (k) => gqlStatus(t, `query($id: ID!) { project(id: $id) { id } }`, k, { id: a.id }),
      (k) => gqlStatus(t, `query($id: ID!) { project(id: $id) { id } }`, k, { id: b.id }),
      null,
    ],
  ];
  return { owner, a, b, docA, docB, key, secret, families };
}

describe('keys for programs', () => {
  const env = {} as Env;
  beforeAll(async () => {
    env.stub = await startOpenAiStub();
    env.t = await createTestApp({ env: { KEY_RATE_LIMIT_PER_MINUTE: '0' } });
    env.f = factories(env.t.orm, env.t.services);
    env.c = chatFactories(env.t.orm, env.t.services);
    await env.f.superadmin();
    await env.c.makeProvider({ baseUrl: env.stub.url, isDefault: true });
  });
  afterAll(async () => {
    await env.t?.close();
    await env.stub?.close();
  });

  it('requires authentication', async () => {
    expect((await api(env.t.baseUrl, 'GET', '/api/keys')).status).toBe(401);
    expect((await api(env.t.baseUrl, 'POST', '/api/keys', { body: { name: 'x' } })).status).toBe(401);
    expect((await api(env.t.baseUrl, 'GET', '/api/auth/me', { token: 'dq_not-a-key' })).status).toBe(401);
  });

  it('creates a key shown once (dq_…), stores only its hash, lists it without secrets, and audits creation and revocation', async () => {
    const { t, f } = env;
    const u = await f.makeUser();
    const p = await f.makeProject({ owner: u });
    const r = await call(t, 'POST', '/api/keys', u.token, {
      name: 'ci',
      projectIds: [p.id],
      tier: 'edit',
      expiresAt: '2099-01-01T00:00:00Z',
    });
    expect(r.status).toBe(201);
    expect(r.body.secret).toMatch(/^dq_[A-Za-z0-9_-]{40,}$/);
    expect(r.body.key).toEqual({
      id: expect.any(String),
      name: 'ci',
      prefix: r.body.secret.slice(0, 11),
      projectIds: [p.id],
      tier: 'edit',
      expiresAt: '2099-01-01T00:00:00.000Z',
      lastUsedAt: null,
      createdAt: expect.any(String),
    });
    const [row] = await f.em().getConnection().execute(`select * from api_keys where id = ?`, [r.body.key.id]);
    expect(JSON.stringify(row)).not.toContain(r.body.secret);
    expect(row.secret_hash).toBe(createHash('sha256').update(r.body.secret).digest('hex'));
    const listed = await call(t, 'GET', '/api/keys', u.token);
    expect(listed.body.keys.map((k: { id: string }) => k.id)).toEqual([r.body.key.id]);
    expect(listed.text).not.toContain(r.body.secret);
    // the key is a bearer token; its use stamps lastUsedAt and is audited from a new address once
    expect((await call(t, 'GET', '/api/auth/me', r.body.secret)).body.user.id).toBe(u.id);
    expect((await call(t, 'GET', '/api/auth/me', r.body.secret)).status).toBe(200);
    expect((await call(t, 'GET', '/api/keys', u.token)).body.keys[0].lastUsedAt).not.toBeNull();
    expect((await call(t, 'DELETE', `/api/keys/${r.body.key.id}`, u.token)).body).toEqual({ success: true, id: r.body.key.id });
    expect((await call(t, 'GET', '/api/keys', u.token)).body.keys).toEqual([]);
    const root = await f.superadmin();
    const audit = await call(t, 'GET', `/api/audit-log?actorId=${u.id}`, root.token);
    const actions = audit.body.entries
      .filter((e: { targetId: string }) => e.targetId === r.body.key.id)
      .map((e: { action: string }) => e.action);
    expect(actions.sort()).toEqual(['key_created', 'key_revoked', 'key_used_from_new_address']);
  });

  it('refuses bad input with the documented 400, never a 500', async () => {
    const { t, f } = env;
    const u = await f.makeUser();
    for (const body of [
      {},
      { name: '' },
      { name: 'x', tier: 'owner' },
      { name: 'x', projectIds: ['nope'] },
      { name: 'x', expiresAt: '2001-01-01T00:00:00Z' },
      { name: 'x', expiresAt: 'soon' },
    ]) {
      const r = await call(t, 'POST', '/api/keys', u.token, body);
      expect([r.status, r.body.error]).toEqual([400, 'validation_failed']);
    }
    expect((await call(t, 'DELETE', '/api/keys/not-a-uuid', u.token)).status).toBe(404);
  });

  it('keys are managed by people: a key cannot create, list or revoke keys, nor log its owner out; platform keys are for admins', async () => {
    const { t, f } = env;
    const u = await f.makeUser();
    const { key, secret } = await createKey(t, u.token, { name: 'k' });
    expect((await call(t, 'POST', '/api/keys', secret, { name: 'wider' })).status).toBe(403);
    expect((await call(t, 'GET', '/api/keys', secret)).status).toBe(403);
    expect((await call(t, 'DELETE', `/api/keys/${key.id}`, secret)).status).toBe(403);
    expect((await call(t, 'POST', '/api/auth/logout', secret, {})).status).toBe(403);
    expect((await call(t, 'POST', '/api/keys', u.token, { name: 'p', platform: true })).status).toBe(403);
    // another member can neither list nor revoke it; an admin can do both
    const other = await f.makeUser();
    expect((await call(t, 'GET', `/api/keys?userId=${u.id}`, other.token)).status).toBe(403);
    expect((await call(t, 'DELETE', `/api/keys/${key.id}`, other.token)).status).toBe(404);
    const admin = await f.makeUser({ platformRole: 'admin' });
    expect((await call(t, 'GET', `/api/keys?userId=${u.id}`, admin.token)).body.keys.map((k: { id: string }) => k.id)).toEqual([key.id]);
    expect((await call(t, 'DELETE', `/api/keys/${key.id}`, admin.token)).status).toBe(200);
    expect((await call(t, 'GET', '/api/auth/me', secret)).status).toBe(401);
  });

  it('every route family with a scoped key: in scope, out of scope, above its tier', async () => {
    const w = await world(env);
    for (const [family, inScope, outOfScope, aboveTier] of w.families) {
      expect([family, 'in scope', await inScope(w.secret)]).toEqual([family, 'in scope', 200]);
      if (outOfScope) expect([family, 'out of scope', await outOfScope(w.secret)]).toEqual([family, 'out of scope', 403]);
      if (aboveTier) expect([family, 'above tier', await aboveTier(w.secret)]).toEqual([family, 'above tier', 403]);
      // the owner's own token reaches all of it
      if (outOfScope) expect([family, 'owner', await outOfScope(w.owner.token)]).toEqual([family, 'owner', 200]);
    }
    // the project list holds only the key's projects, at the key's tier
    const list = await call(env.t, 'GET', '/api/projects', w.secret);
    expect(list.body.projects.map((p: { id: string; accessTier: string }) => [p.id, p.accessTier])).toEqual([[w.a.id, 'use']]);
  });

  it('every route family refuses the key after its owner is deactivated, after revocation, and once it has expired', async () => {
    const { t, f } = env;
    const root = await f.superadmin();
    const cases: Array<[string, (w: Awaited<ReturnType<typeof world>>) => Promise<void>]> = [
      [
        'owner deactivated',
        async (w) => void expect((await call(t, 'PATCH', `/api/users/${w.owner.id}`, root.token, { status: 'inactive' })).status).toBe(200),
      ],
      ['revoked', async (w) => void expect((await call(t, 'DELETE', `/api/keys/${w.key.id}`, w.owner.token)).status).toBe(200)],
      [
        'expired',
        async (w) =>
          void (await f
            .em()
            .getConnection()
            .execute(`update api_keys set expires_at = now() - interval '1 second' where id = ?`, [w.key.id])),
      ],
    ];
    for (const [why, change] of cases) {
      const w = await world(env);
      expect(await w.families[0][1](w.secret)).toBe(200);
      await change(w);
      for (const [family, inScope] of w.families) expect([why, family, await inScope(w.secret)]).toEqual([why, family, 401]);
    }
  });

  it('a key passes no platform-role gate above none unless an admin created it with platform: true', async () => {
    const { t, f } = env;
    const admin = await f.makeUser({ platformRole: 'admin' });
    const plain = await createKey(t, admin.token, { name: 'plain' });
    const platform = await createKey(t, admin.token, { name: 'platform', platform: true });
    const other = await f.makeProject();
    for (const [path, method] of [
      ['/api/users', 'GET'],
      ['/api/audit-log', 'GET'],
      ['/api/departments', 'GET'],
      ['/api/groups', 'GET'],
      [`/api/projects/${other.id}`, 'GET'],
    ] as const) {
      expect([path, await call(t, method, path, admin.token).then((r) => r.status)]).toEqual([path, 200]);
      expect([path, await call(t, method, path, plain.secret).then((r) => r.status)]).toEqual([path, 403]);
      expect([path, await call(t, method, path, platform.secret).then((r) => r.status)]).toEqual([path, 200]);
    }
    expect((await call(t, 'POST', '/api/projects', plain.secret, { name: 'by a key' })).status).toBe(403);
  });

  it('graphql-ws with a key: queries and subscriptions run with the key, limited like REST', async () => {
    const w = await world(env);
    const ws = wsClient(env.t.baseUrl, w.secret);
    try {
      const [me] = await wsCollect(ws, '{ me { id } }');
      expect(me.data?.me.id).toBe(w.owner.id);
      const [inScope] = await wsCollect(ws, `query($id: ID!) { project(id: $id) { id } }`, { id: w.a.id });
      expect(inScope.data?.project.id).toBe(w.a.id);
      const [outOfScope] = await wsCollect(ws, `query($id: ID!) { project(id: $id) { id } }`, { id: w.b.id });
      expect(outOfScope.errors?.[0]?.extensions?.code).toBe('forbidden');
      const progress = 'subscription($d: ID!) { documentProgress(documentId: $d) { __typename status } }';
      expect((await wsCollect(ws, progress, { d: w.docA.id }))[0].data?.documentProgress.status).toBe('ready');
      const denied = await wsCollect(ws, progress, { d: w.docB.id });
      expect(denied[denied.length - 1].errors?.[0]?.extensions?.code).toBe('forbidden');
      const [keys] = await wsCollect(ws, '{ keys { id } }');
      expect(keys.errors?.[0]?.extensions?.code).toBe('forbidden');
    } finally {
      await ws.dispose();
    }
    // a revoked key cannot open a connection
    await call(env.t, 'DELETE', `/api/keys/${w.key.id}`, w.owner.token);
    const closed = wsClient(env.t.baseUrl, w.secret);
    await expect(wsCollect(closed, '{ me { id } }')).rejects.toBeDefined();
    await closed.dispose();
  });

  it('GraphQL mirrors create, list and revoke', async () => {
    const u = await env.f.makeUser();
    const created = await gql(env.t.baseUrl, 'mutation { createKey(input: {name: "g", tier: "use"}) { secret key { id tier } } }', {
      token: u.token,
    });
    const { secret, key } = created.data.createKey;
    expect([secret.startsWith('dq_'), key.tier]).toEqual([true, 'use']);
    expect((await gql(env.t.baseUrl, '{ keys { id } }', { token: u.token })).data.keys).toEqual([{ id: key.id }]);
    expect(
      (await gql(env.t.baseUrl, `mutation { revokeKey(id: "${key.id}") { success } }`, { token: u.token })).data.revokeKey.success,
    ).toBe(true);
    expect((await call(env.t, 'GET', '/api/auth/me', secret)).status).toBe(401);
  });

  it('an open chat stream on a revoked key ends with unauthorized', async () => {
    const { t, f, stub } = env;
    const owner = await f.makeUser();
    const p = await f.makeProject({ owner });
    const { key, secret } = await createKey(t, owner.token, { name: 'stream' });
    stub.set({ deltas: Array.from({ length: 300 }, (_, i) => `w${i} `), deltaDelayMs: 50 });
    let revoked = false;
    const r = await postSse(t.baseUrl, `/api/chat/projects/${p.id}`, {
      token: secret,
      body: { message: 'a long answer' },
      stopWhen: (e) => {
        if (e.event === 'text' && !revoked) {
          revoked = true;
          void call(t, 'DELETE', `/api/keys/${key.id}`, owner.token);
        }
        return false;
      },
    });
    stub.set({});
    expect(revoked).toBe(true);
    const last = r.events[r.events.length - 1];
    expect([last.event, last.data.message]).toEqual(['error', 'unauthorized']);
    expect(r.events.filter((e) => e.event === 'text').length).toBeLessThan(300);
  });

  it('keys are rate-limited per key, with Retry-After', async () => {
    const t = await createTestApp({ env: { KEY_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const f = factories(t.orm, t.services);
      const u = await f.makeUser();
      const one = await createKey(t, u.token, { name: 'one' });
      const two = await createKey(t, u.token, { name: 'two' });
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await call(t, 'GET', '/api/auth/me', one.secret)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const limited = await call(t, 'GET', '/api/auth/me', one.secret);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // another key of the same owner has its own budget, and so has the owner's token
      expect((await call(t, 'GET', '/api/auth/me', two.secret)).status).toBe(200);
      expect((await call(t, 'GET', '/api/auth/me', u.token)).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
