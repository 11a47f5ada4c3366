import { uploadFiles, waitForDocument } from '../support/documents';
import { factories } from '../support/factories';
import { wsClient, wsCollect } from '../support/graphql';
import { client } from '../support/http';
import { OpenAiStub, RerankRequest, startOpenAiStub, stubRerankScore } from '../support/openai-stub';
import { postSse } from '../support/sse-client';
import { createTestApp, TestApp } from '../support/test-app';
import { Actor } from '../../src/access/actor';

/**
 * The reranking stage end to end, against the stub's `/rerank` (its relevance: the share of the
 * question's words a passage contains, where BM25 also weighs repetition and rarity): the sources
 * follow the reranker's order when a provider lists a reranker or the environment names one, a
 * failing or slow reranker leaves the fused order without an error, and a project's
 * `settings.rerankModel` must name a known reranker.
 */
let stub: OpenAiStub;
let t: TestApp;
let f: ReturnType<typeof factories>;
let owner: Awaited<ReturnType<ReturnType<typeof factories>['makeUser']>>;
let engineer: Awaited<ReturnType<ReturnType<typeof factories>['makeUser']>>;

const QUESTION = 'quokka habitat diet lifespan';
// BM25 puts the quokka page (a rare word, often) above the wombat page (three common words); the
// stub reranker, counting the question's words covered, puts the wombat page first
const DOCS = [
  { name: 'field-guide.txt', content: 'Quokka habitat, diet and lifespan: dense scrubland, grasses and leaves, about ten years.' },
  { name: 'quokka.txt', content: 'Quokka quokka quokka! Every visitor photographs a quokka; quokka selfies are famous. A quokka smiles.' },
  { name: 'wombat.txt', content: 'The wombat: its habitat, its diet and its lifespan are described on this page.' },
  { name: 'snail.txt', content: 'The habitat of the garden snail is damp soil under stones.' },
  { name: 'pigeon.txt', content: 'The diet of city pigeons is mostly bread and seeds.' },
  { name: 'cat.txt', content: 'The lifespan of house cats has grown to fifteen years.' },
  { name: 'pond.txt', content: 'Pond habitat and pond diet notes for the biology class.' },
  { name: 'coffee.txt', content: 'Coffee beans keep best in an airtight jar.' },
];

interface Hit {
  chunkId: string;
  text: string;
}

/** What the stub reranker makes of `candidates` (fused order): best relevance first, ties in fused order, cut to topK. */
const rerankedOrder = (candidates: Hit[], topK = 6): string[] =>
  candidates
    .map((c, i) => ({ id: c.chunkId, i, score: stubRerankScore(QUESTION, c.text) }))
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, topK)
    .map((c) => c.id);

async function seedProject(app: TestApp, fx: ReturnType<typeof factories>, user: typeof owner) {
  const project = await fx.makeProject({ owner: user });
  const res = await uploadFiles(
    app.baseUrl,
    user.token,
    project.id,
    DOCS.map((d) => ({ ...d, type: 'text/plain' })),
  );
  expect(res.status).toBe(202);
  for (const d of res.body.documents as Array<{ id: string }>)
    expect((await waitForDocument(app.baseUrl, user.token, d.id)).status).toBe('ready');
  return project;
}

const sourcesOf = (events: Array<{ event: string; data: any }>): string[] =>
  events.find((e) => e.event === 'sources')!.data.chunks.map((c: { id: string }) => c.id);
const doneOf = (events: Array<{ event: string; data: any }>) => events.find((e) => e.event === 'done')?.data;

const lastRerank = (): RerankRequest => stub.rerankRequests[stub.rerankRequests.length - 1];

beforeAll(async () => {
  stub = await startOpenAiStub();
  t = await createTestApp({ workers: true, env: { RERANK_TIMEOUT_MS: '1500', JOB_POLLING_SECONDS: '1' } });
  f = factories(t.orm, t.services);
  owner = await f.makeUser({ platformRole: 'admin' });
  engineer = await f.makeUser({ platformRole: 'engineer' });
});
afterAll(async () => {
  await t?.close();
  await stub?.close();
});

describe('without a reranker', () => {
  // a server of its own: the other blocks' server has a provider listing rerankers
  let tn: TestApp;
  let project: Awaited<ReturnType<typeof seedProject>>;
  beforeAll(async () => {
    tn = await createTestApp({ workers: true, env: { RERANK_TIMEOUT_MS: '1500', JOB_POLLING_SECONDS: '1' } });
    const fn = factories(tn.orm, tn.services);
    project = await seedProject(tn, fn, await fn.makeUser({ platformRole: 'admin' }));
  });
  afterAll(async () => {
    await tn?.close();
  });

  it('without a reranker, retrieval keeps the fused order and never calls /rerank', async () => {
    stub.rerankRequests.length = 0;
    // every candidate, in fused order: what a reranker would be given
    const fused = await tn.services.search.search(Actor.system(), project.id, QUESTION, { topK: 30 });
    expect(fused.length).toBeGreaterThan(6);
    const timings: { rerankMs?: number } = {};
    const hits = await tn.services.search.search(Actor.system(), project.id, QUESTION, { timings });
    expect(hits.map((h) => h.chunkId)).toEqual(fused.slice(0, 6).map((h) => h.chunkId));
    expect(timings.rerankMs).toBeUndefined();
    expect(stub.rerankRequests).toHaveLength(0);
    // the construction holds: the reranker's order differs from the fused one
    expect(rerankedOrder(fused)).not.toEqual(fused.slice(0, 6).map((h) => h.chunkId));
  });
});

describe('with a provider listing rerankModels', () => {
  let project: Awaited<ReturnType<typeof seedProject>>;
  let fused: Hit[];
  let provider: any;
  const ask = (message = QUESTION) => postSse(t.baseUrl, `/api/chat/projects/${project.id}`, { token: owner.token, body: { message } });

  beforeAll(async () => {
    project = await seedProject(t, f, owner);
    // every candidate, in fused order (before any reranker exists): what a reranker is given
    fused = await t.services.search.search(Actor.system(), project.id, QUESTION, { topK: 30 });
    expect(fused.length).toBeGreaterThan(6);
    const res = await client(t.baseUrl, engineer.token).post('/api/providers', {
      name: 'Stub',
      slug: 'stub',
      baseUrl: stub.url,
      apiKey: 'sk-rerank',
      models: ['chat-model'],
      rerankModels: ['rr-small', 'rr-other'],
      isDefault: true,
    });
    expect(res.status).toBe(201);
    provider = res.body.provider;
  });

  it("the sources follow the reranker's scores, and done.timings.rerankMs reports it (SSE)", async () => {
    expect(provider.rerankModels).toEqual(['rr-small', 'rr-other']);
    stub.rerankRequests.length = 0;
    const chat = await ask();
    expect(chat.events.map((e) => e.event)).not.toContain('error');
    expect(sourcesOf(chat.events)).toEqual(rerankedOrder(fused));
    const done = doneOf(chat.events);
    expect(done.timings.rerankMs).toEqual(expect.any(Number));
    expect(done.timings.rerankMs).toBeLessThanOrEqual(done.timings.retrievalMs);
    // one call: the default provider's first reranker, its key, the fused candidates' texts in fused order
    expect(stub.rerankRequests).toHaveLength(1);
    expect(lastRerank()).toEqual({
      model: 'rr-small',
      query: QUESTION,
      documents: fused.map((h) => h.text),
      topN: 6,
      authorization: 'Bearer sk-rerank',
      status: 200,
    });
  });

  it('GraphQL: the chat subscription shows the same order and timings.rerankMs', async () => {
    const ws = wsClient(t.baseUrl, owner.token);
    try {
      const results = await wsCollect(
        ws,
        `subscription($p: ID!, $i: AskInput!) { chat(projectId: $p, input: $i) {
          __typename
          ... on ChatSources { chunks { id } }
          ... on ChatDone { timings { retrievalMs rerankMs } }
          ... on ChatError { message detail }
        } }`,
        { p: project.id, i: { message: QUESTION } },
      );
      const events = results.map((r) => r.data.chat);
      expect(events.map((e: any) => e.__typename)).not.toContain('ChatError');
      expect(events.find((e: any) => e.__typename === 'ChatSources').chunks.map((c: any) => c.id)).toEqual(rerankedOrder(fused));
      expect(events.find((e: any) => e.__typename === 'ChatDone').timings.rerankMs).toEqual(expect.any(Number));
    } finally {
      await ws.dispose();
    }
  });

  it('a failing reranker (500) leaves the fused order without an error, and is skipped for a while', async () => {
    stub.onceRerank({ status: 500 });
    const chat = await ask();
    expect(chat.events.map((e) => e.event)).toEqual(expect.arrayContaining(['sources', 'done']));
    expect(chat.events.map((e) => e.event)).not.toContain('error');
    expect(sourcesOf(chat.events)).toEqual(fused.slice(0, 6).map((h) => h.chunkId));
    expect(lastRerank().status).toBe(500);
    // the back-off: the next question does not call it
    const calls = stub.rerankRequests.length;
    const hits = await t.services.search.search(Actor.system(), project.id, QUESTION);
    expect(hits.map((h) => h.chunkId)).toEqual(fused.slice(0, 6).map((h) => h.chunkId));
    expect(stub.rerankRequests).toHaveLength(calls);
    (t.services.search.parts.retrieval as any).reranker.failingUntil.clear();
    expect((await t.services.search.search(Actor.system(), project.id, QUESTION)).map((h) => h.chunkId)).toEqual(rerankedOrder(fused));
  });

  it('a slow reranker (beyond RERANK_TIMEOUT_MS) leaves the fused order without an error', async () => {
    stub.onceRerank({ delayMs: 5000 });
    const started = Date.now();
    const chat = await ask();
    expect(Date.now() - started).toBeLessThan(4500);
    expect(chat.events.map((e) => e.event)).not.toContain('error');
    expect(sourcesOf(chat.events)).toEqual(fused.slice(0, 6).map((h) => h.chunkId));
    // the time spent waiting is still reported
    expect(doneOf(chat.events).timings.rerankMs).toBeGreaterThanOrEqual(1400);
    (t.services.search.parts.retrieval as any).reranker.failingUntil.clear();
  });

  it('a project pins its reranker in settings.rerankModel (slug/model or a listed bare name)', async () => {
    const patch = (settings: Record<string, unknown>) => client(t.baseUrl, owner.token).patch(`/api/projects/${project.id}`, { settings });
    let res = await patch({ rerankModel: 'stub/rr-other' });
    expect(res.status).toBe(200);
    expect(res.body.project.settings.rerankModel).toBe('stub/rr-other');
    await t.services.search.search(Actor.system(), project.id, QUESTION);
    expect(lastRerank().model).toBe('rr-other');
    res = await patch({ rerankModel: 'rr-small' });
    expect(res.status).toBe(200);
    await t.services.search.search(Actor.system(), project.id, QUESTION);
    expect(lastRerank().model).toBe('rr-small');
    res = await patch({ rerankModel: null });
    expect(res.status).toBe(200);
    expect(res.body.project.settings.rerankModel).toBeUndefined();
  });

  it.each([['no-such-reranker'], ['stub/no-such-reranker'], ['other/rr-small'], ['chat-model']])(
    'an unknown settings.rerankModel (%s) is 400 validation_failed',
    async (rerankModel) => {
      const res = await client(t.baseUrl, owner.token).patch(`/api/projects/${project.id}`, { settings: { rerankModel } });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain('settings.rerankModel');
    },
  );

  it('creating a project validates settings.rerankModel too', async () => {
    const bad = await client(t.baseUrl, owner.token).post('/api/projects', { name: 'Pinned', settings: { rerankModel: 'nope' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_failed');
    const good = await client(t.baseUrl, owner.token).post('/api/projects', { name: 'Pinned', settings: { rerankModel: 'rr-other' } });
    expect(good.status).toBe(201);
    expect(good.body.project.settings.rerankModel).toBe('rr-other');
  });

  it('GraphQL: providers show rerankModels; updateProject validates settings.rerankModel', async () => {
    // a project of its own: the pin set here stays
    const project = await f.makeProject({ owner });
    const q = async (token: string, query: string, variables: Record<string, unknown> = {}) =>
      (await client(t.baseUrl, token).post('/graphql', { query, variables })).body;
    const listed = await q(owner.token, '{ providers { slug rerankModels } }');
    expect(listed.data.providers.find((p: any) => p.slug === 'stub').rerankModels).toEqual(['rr-small', 'rr-other']);
    const updated = await q(
      engineer.token,
      'mutation($id: String!, $i: UpdateProviderInput!) { updateProvider(id: $id, input: $i) { rerankModels } }',
      {
        id: provider.id,
        i: { rerankModels: ['rr-small', 'rr-other', 'rr-new'] },
      },
    );
    expect(updated.data.updateProvider.rerankModels).toEqual(['rr-small', 'rr-other', 'rr-new']);
    const bad = await q(owner.token, 'mutation($id: ID!, $i: UpdateProjectInput!) { updateProject(id: $id, input: $i) { id } }', {
      id: project.id,
      i: { settings: { rerankModel: 'nope' } },
    });
    expect(bad.errors[0].extensions.code).toBe('validation_failed');
    const ok = await q(
      owner.token,
      'mutation($id: ID!, $i: UpdateProjectInput!) { updateProject(id: $id, input: $i) { settings { rerankModel } } }',
      {
        id: project.id,
        i: { settings: { rerankModel: 'rr-new' } },
      },
    );
    expect(ok.data.updateProject.settings.rerankModel).toBe('rr-new');
  });
});

describe('the environment fallback (RERANK_BASE_URL / RERANK_API_KEY / RERANK_MODEL)', () => {
  let te: TestApp;
  beforeAll(async () => {
    te = await createTestApp({
      workers: true,
      env: { RERANK_BASE_URL: stub.url, RERANK_API_KEY: 'sk-env', RERANK_MODEL: 'env-reranker', JOB_POLLING_SECONDS: '1' },
    });
  });
  afterAll(async () => {
    await te?.close();
  });

  it('reranks with RERANK_MODEL when no provider lists a reranker', async () => {
    const fe = factories(te.orm, te.services);
    const admin = await fe.makeUser({ platformRole: 'admin' });
    const project = await seedProject(te, fe, admin);
    stub.rerankRequests.length = 0;
    const timings: { rerankMs?: number } = {};
    const hits = await te.services.search.search(Actor.system(), project.id, QUESTION, { timings });
    expect(stub.rerankRequests).toHaveLength(1);
    const call = lastRerank();
    expect(call).toMatchObject({ model: 'env-reranker', query: QUESTION, topN: 6, authorization: 'Bearer sk-env', status: 200 });
    // the documents went in fused order; the hits come in the reranker's
    const candidates = call.documents.map((text, i) => ({ chunkId: String(i), text }));
    const byText = (ids: string[]) => ids.map((i) => call.documents[Number(i)]);
    expect(hits.map((h) => h.text)).toEqual(byText(rerankedOrder(candidates)));
    expect(hits.map((h) => h.text)).not.toEqual(call.documents.slice(0, 6));
    expect(timings.rerankMs).toEqual(expect.any(Number));
  });
});
