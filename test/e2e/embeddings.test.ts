import { threadId } from 'node:worker_threads';
import type { SearchStages } from '../../src/search/stages';
import { ingestFiles } from '../support/documents';
import { factories } from '../support/factories';
import { api, client } from '../support/http';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import { postSse } from '../support/sse-client';
import { createTestApp, TestApp } from '../support/test-app';
import { Actor } from '../../src/access/actor';

/**
 * The embedding stage end to end, against the OpenAI-compatible stub's `/embeddings`: ingestion
 * embeds after the text is searchable, an outage leaves documents `ready` and is backfilled, a
 * model change re-embeds without mixing models, fusion ranks in a passage that shares no word
 * with the question, and without an embedding source everything stays lexical.
 */
let stub: OpenAiStub;
let t: TestApp;
let f: ReturnType<typeof factories>;
let owner: Awaited<ReturnType<ReturnType<typeof factories>['makeUser']>>;
let engineer: Awaited<ReturnType<ReturnType<typeof factories>['makeUser']>>;

// the stub's "semantics": words of one group embed alike (the question shares no word with the answer)
const SYNONYMS = [
  ['handlelidswitch', 'folding'],
  ['logind', 'dozing'],
  ['ignore', 'prevent'],
  ['conf', 'notebook'],
];
const ANSWER = 'Set HandleLidSwitch=ignore in logind.conf and restart the service.';
const QUESTION = 'prevent my notebook dozing after folding';
// three share words with the question (BM25 finds them), four share none
const DISTRACTORS = [
  'My notebook battery lasts six hours. Charging takes two hours.',
  'Folding chairs are stored in the basement.',
  'Prevent paper jams: keep the printer tray half full.',
  'Coffee beans keep best in an airtight jar.',
  'The keyboard has a backlight that turns off after a minute.',
  'Office plants need water twice a week.',
  'Parking permits are renewed every January.',
];

const sql = async <T = any>(text: string, params: unknown[] = []): Promise<T[]> =>
  await t.orm.em.fork().getConnection().execute<T[]>(text, params);

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const upload = (projectId: string, files: Array<{ name: string; content: string }>): Promise<any[]> =>
  ingestFiles(
    t.baseUrl,
    owner.token,
    projectId,
    files.map((x) => ({ ...x, type: 'text/plain' })),
  );

const getDoc = async (id: string) => (await api(t.baseUrl, 'GET', `/api/documents/${id}`, { token: owner.token })).body.document;

/** Waits until every chunk of the document has a vector of `model`. */
const fullyEmbedded = (id: string, model: string) =>
  until(`${id} embedded with ${model}`, async () => {
    const d = await getDoc(id);
    return d.embeddings?.model === model && d.embeddings.chunksTotal > 0 && d.embeddings.chunksEmbedded === d.embeddings.chunksTotal && d;
  });

const search = (projectId: string, q: string, topK?: number) =>
  t.services.search.search(Actor.system(), projectId, q, topK ? { topK } : {});

async function makeEmbeddingProvider(embeddingModels: string[], slug = `emb-${Math.random().toString(36).slice(2, 8)}`) {
  const res = await client(t.baseUrl, engineer.token).post('/api/providers', {
    name: `Embeddings ${slug}`,
    slug,
    baseUrl: stub.url,
    apiKey: 'sk-embed',
    models: ['chat-model'],
    embeddingModels,
    isDefault: true,
  });
  expect(res.status).toBe(201);
  return res.body.provider;
}

/** Each describe runs on a server, database and stub of its own: no test sees another block's providers or vectors. */
function useApp(): void {
  beforeAll(async () => {
    stub = await startOpenAiStub();
    stub.setEmbeddings({ dims: 64, synonyms: SYNONYMS });
    t = await createTestApp({
      workers: true,
      env: {
        EMBEDDING_BATCH_SIZE: '3',
        EMBEDDING_SWEEP_SECONDS: '1',
        EMBEDDING_RETRY_LIMIT: '2',
        EMBEDDING_RETRY_DELAY_SECONDS: '1',
        // generous: a loaded test machine must not turn a slow stub answer into a lexical fallback
        EMBEDDING_QUERY_TIMEOUT_MS: '10000',
        JOB_POLLING_SECONDS: '1',
      },
    });
    f = factories(t.orm, t.services);
    owner = await f.makeUser({ platformRole: 'admin' });
    engineer = await f.makeUser({ platformRole: 'engineer' });
  });
  afterAll(async () => {
    await t?.close();
    await stub?.close();
  });
}

/** A default provider serving `embed-small`, a project, and the answer among its distractors, fully embedded. */
async function embeddedCorpus() {
  const provider = await makeEmbeddingProvider(['embed-small']);
  const model = `${provider.slug}/embed-small`;
  const project = await f.makeProject({ owner });
  const docs = await upload(project.id, [
    { name: 'answer.txt', content: ANSWER },
    ...DISTRACTORS.map((d, i) => ({ name: `d${i}.txt`, content: d })),
  ]);
  for (const d of docs) await fullyEmbedded(d.id, model);
  return { provider, model, project, answerDoc: docs[0] };
}

describe('no embedding source configured', () => {
  useApp();

  it('ingests and answers lexically, shows embeddings: null, and never calls /embeddings', async () => {
    const project = await f.makeProject({ owner });
    const [doc] = await upload(project.id, [{ name: 'lid.txt', content: ANSWER }]);
    expect(doc.status).toBe('ready');
    expect(doc.embeddings).toBeNull();
    const list = await api(t.baseUrl, 'GET', `/api/projects/${project.id}/documents`, { token: owner.token });
    expect(list.body.documents[0].embeddings).toBeNull();
    const hits = await search(project.id, 'HandleLidSwitch logind');
    expect(hits.map((h) => h.documentId)).toEqual([doc.id]);
    // the paraphrase shares no word: lexical retrieval finds nothing, and nothing errors
    expect(await search(project.id, QUESTION)).toEqual([]);
    await t.services.search.sweep();
    expect(stub.embeddingRequests).toHaveLength(0);
    expect(await sql('select count(*)::int as n from chunk_embeddings')).toEqual([{ n: 0 }]);
  });
});

describe('with an embedding provider', () => {
  useApp();
  let project: Awaited<ReturnType<ReturnType<typeof factories>['makeProject']>>;
  let answerDoc: any;
  let model: string;

  beforeAll(async () => {
    ({ model, project, answerDoc } = await embeddedCorpus());
  });
  // every test starts with an answering embedder and no query-time back-off (the outage tests leave one)
  beforeEach(() => {
    stub.setEmbeddings({ dims: 64, synonyms: SYNONYMS });
    (t.services.search.parts.embeddings as any).failingUntil.clear();
  });

  it('embeds chunks in batches as a stage after the text is indexed, with the provider key', async () => {
    // a project of its own: the calls counted are this upload's
    const project = await f.makeProject({ owner });
    stub.embeddingRequests.length = 0;
    const long = Array.from(
      { length: 40 },
      (_, i) => `Paragraph ${i} of the kitchen guide explains topic number ${i} in plain words.\n\n`,
    ).join('');
    const docs = await upload(project.id, [
      { name: 'answer.txt', content: ANSWER },
      ...DISTRACTORS.map((d, i) => ({ name: `d${i}.txt`, content: d })),
      { name: 'long.txt', content: long },
    ]);
    const answerDoc = docs[0];
    // ready (searchable lexically) without waiting for vectors
    for (const d of docs) expect(d.status).toBe('ready');
    for (const d of docs) await fullyEmbedded(d.id, model);
    const longDoc = await getDoc(docs[docs.length - 1].id);
    expect(longDoc.chunkCount).toBeGreaterThan(1);
    expect(longDoc.embeddings).toEqual({ model, chunksEmbedded: longDoc.chunkCount, chunksTotal: longDoc.chunkCount });
    const calls = stub.embeddingRequests.filter((r) => r.status === 200);
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) {
      expect(c.model).toBe('embed-small');
      expect(c.authorization).toBe('Bearer sk-embed');
      expect(c.input.length).toBeGreaterThanOrEqual(1);
      expect(c.input.length).toBeLessThanOrEqual(3); // EMBEDDING_BATCH_SIZE
    }
    const rows = await sql(`select distinct e.model, e.dims from chunk_embeddings e where e.project_id = ?`, [project.id]);
    expect(rows).toEqual([{ model, dims: 64 }]);
    // vectors are stored normalised and placed by the answer's index (the stub lists them in reverse)
    const [one] = await sql<{ vec: Buffer; text: string }>(
      `select e.vec, c.text from chunk_embeddings e join chunks c on c.id = e.chunk_id where c.document_id = ? limit 1`,
      [answerDoc.id],
    );
    const stored = Array.from({ length: 64 }, (_, i) => one.vec.readFloatLE(i * 4));
    const expected = stub.embed(one.text, 'embed-small');
    const norm = Math.hypot(...expected);
    stored.forEach((x, i) => expect(x).toBeCloseTo(expected[i] / norm, 5));
  });

  it('fuses vector neighbours with BM25: a passage sharing no word with the question is ranked in', async () => {
    // BM25 alone cannot see the answer (no shared word with the question)
    const [lexRow] = await sql(`select count(*)::int as n from chunks where document_id = ? and tsv @@ plainto_tsquery('english', ?)`, [
      answerDoc.id,
      QUESTION,
    ]);
    expect(lexRow.n).toBe(0);
    const lexicalDocs = new Set(
      (
        await sql(
          `select distinct document_id from chunks where project_id = ? and tsv @@ to_tsquery('english', 'notebook | prevent | folding | dozing')`,
          [project.id],
        )
      ).map((r: any) => r.document_id),
    );
    expect(lexicalDocs.size).toBe(3);
    const fused = await t.services.search.search(Actor.system(), project.id, QUESTION);
    const ids = fused.map((h) => h.documentId);
    // the measured fusion (DEFAULT_FUSION): the lexical leader keeps its place when it clearly
    // leads, and the nearest vector-only chunk — the answer — is ranked in among the lexical ones
    const trace: { lexical?: Array<{ id: string; score: number }>; vector?: Array<{ id: string; score: number }> } = {};
    const stages: SearchStages = {};
    await t.services.search.search(Actor.system(), project.id, QUESTION, { trace, stages });
    expect(fused[0].chunkId).toBe(trace.lexical![0].id);
    // the benches' per-stage breakdown: both sides of the search are timed
    for (const stage of ['begin', 'analyze', 'lexical', 'embedSource', 'embed', 'scan', 'fusion', 'hydrate', 'commit', 'total'] as const)
      expect(stages[stage]).toEqual(expect.any(Number));
    expect(stages.rerankSource).toBeGreaterThanOrEqual(0);
    expect(ids).toContain(answerDoc.id);
    expect(ids.filter((id) => lexicalDocs.has(id)).length).toBeGreaterThanOrEqual(3);
    expect(fused).toHaveLength(6); // the project's default topK
    // the vectors were searched in the index thread (thread 0 is the main thread), not on the event loop
    const scoring = t.services.search.parts.embeddings.store.stats();
    expect(scoring.indexRequests).toBeGreaterThan(0);
    expect(scoring.indexThreadId).toBeGreaterThan(0);
    expect(scoring.indexThreadId).not.toBe(threadId);
    // topK still applies
    expect(await search(project.id, QUESTION, 2)).toHaveLength(2);
    // nothing relevant: a question sharing no content word with any passage gets no source at all,
    // though its vector has neighbours (issue 35); the chat's sources are empty too
    const offTopic = 'Zebras, xylophones and quantum?';
    expect(await search(project.id, offTopic)).toEqual([]);
    const empty = await postSse(t.baseUrl, `/api/chat/projects/${project.id}`, { token: owner.token, body: { message: offTopic } });
    expect(empty.events.find((e) => e.event === 'sources')?.data.chunks).toEqual([]);
    // and chat's sources carry it, through the same retrieval
    const chat = await postSse(t.baseUrl, `/api/chat/projects/${project.id}`, { token: owner.token, body: { message: QUESTION } });
    const sources = chat.events.find((e) => e.event === 'sources');
    expect(sources?.data.chunks.map((c: { documentId: string }) => c.documentId)).toContain(answerDoc.id);
    const done = chat.events.find((e) => e.event === 'done');
    expect(done?.data.timings.embeddingMs).toEqual(expect.any(Number));
  });

  it('an embedder failing at query time leaves retrieval lexical, without an error', async () => {
    stub.onceEmbeddings({ status: 500 });
    const hits = await search(project.id, 'HandleLidSwitch logind restart');
    expect(hits[0].documentId).toBe(answerDoc.id);
    // the failure opens a short backoff: the next question does not wait for the embedder either
    const before = stub.embeddingRequests.length;
    expect((await search(project.id, QUESTION)).map((h) => h.documentId)).not.toContain(answerDoc.id);
    expect(stub.embeddingRequests.length).toBe(before);
    (t.services.search.parts.embeddings as any).failingUntil.clear();
  });

  it('an embedder outage never fails a document: it stays ready, shows what lacks vectors, and is backfilled', async () => {
    stub.setEmbeddings({ dims: 64, synonyms: SYNONYMS, status: 503 });
    const [doc] = await upload(project.id, [
      { name: 'outage.txt', content: 'Backups run nightly at two o clock and keep thirty days of history.' },
    ]);
    expect(doc.status).toBe('ready');
    await until('failed embedding attempts', () => Promise.resolve(stub.embeddingRequests.filter((r) => r.status === 503).length >= 3));
    const during = await getDoc(doc.id);
    expect(during.status).toBe('ready');
    expect(during.error).toBeNull();
    expect(during.embeddings).toEqual({ model, chunksEmbedded: 0, chunksTotal: during.chunkCount });
    // searchable lexically meanwhile
    expect((await search(project.id, 'nightly backups history')).map((h) => h.documentId)).toContain(doc.id);
    // the embedder recovers: a retry or the sweep fills the vectors in
    stub.setEmbeddings({ dims: 64, synonyms: SYNONYMS });
    await fullyEmbedded(doc.id, model);
    expect((await getDoc(doc.id)).status).toBe('ready');
  });

  it('a network failure (connection dropped) is retried the same way', async () => {
    stub.onceEmbeddings({ drop: true });
    const [doc] = await upload(project.id, [{ name: 'net.txt', content: 'The coffee machine descaling cycle takes twenty minutes.' }]);
    await fullyEmbedded(doc.id, model);
  });
});

describe('a model change', () => {
  useApp();
  let provider: any;
  let project: Awaited<ReturnType<ReturnType<typeof factories>['makeProject']>>;
  let answerDoc: any;

  beforeAll(async () => {
    ({ provider, project, answerDoc } = await embeddedCorpus());
  });

  it('changing the model re-embeds in the background and never mixes two models', async () => {
    const patched = await client(t.baseUrl, engineer.token).patch(`/api/providers/${provider.id}`, {
      embeddingModels: ['embed-large', 'embed-small'],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.provider.embeddingModels).toEqual(['embed-large', 'embed-small']);
    const newModel = `${provider.slug}/embed-large`;
    // until re-embedded, documents show the new model's (partial) progress; queries use only the new model
    stub.embeddingRequests.length = 0;
    await search(project.id, QUESTION);
    // the question's own embedding (a background job of the old model may still be finishing a batch)
    expect(stub.embeddingRequests.filter((r) => r.input.includes(QUESTION)).map((r) => r.model)).toEqual(['embed-large']);
    await fullyEmbedded(answerDoc.id, newModel);
    const docs = (await api(t.baseUrl, 'GET', `/api/projects/${project.id}/documents`, { token: owner.token })).body.documents;
    for (const d of docs) await fullyEmbedded(d.id, newModel);
    // once complete, the old model's vectors are dropped: one model per project
    await until('old vectors dropped', async () => {
      const models = await sql(`select distinct model from chunk_embeddings where project_id = ?`, [project.id]);
      return models.length === 1 && models[0].model === newModel;
    });
    expect((await search(project.id, QUESTION)).map((h) => h.documentId)).toContain(answerDoc.id);
  });
});

describe('after a model change', () => {
  useApp();
  let provider: any;
  let project: Awaited<ReturnType<ReturnType<typeof factories>['makeProject']>>;
  let answerDoc: any;

  // the default provider now lists embed-large first, and every document is re-embedded with it
  beforeAll(async () => {
    ({ provider, project, answerDoc } = await embeddedCorpus());
    const patched = await client(t.baseUrl, engineer.token).patch(`/api/providers/${provider.id}`, {
      embeddingModels: ['embed-large', 'embed-small'],
    });
    expect(patched.status).toBe(200);
    const docs = (await api(t.baseUrl, 'GET', `/api/projects/${project.id}/documents`, { token: owner.token })).body.documents;
    for (const d of docs) await fullyEmbedded(d.id, `${provider.slug}/embed-large`);
  });

  it('a project pins its own model in settings.embeddingModel (slug/model or bare name)', async () => {
    const other = await f.makeProject({ owner });
    const res = await client(t.baseUrl, owner.token).patch(`/api/projects/${other.id}`, { settings: { embeddingModel: 'embed-small' } });
    expect(res.status).toBe(200);
    expect(res.body.project.settings.embeddingModel).toBe('embed-small');
    const [doc] = await upload(other.id, [{ name: 'pinned.txt', content: ANSWER }]);
    await fullyEmbedded(doc.id, `${provider.slug}/embed-small`);
    // the other project keeps the default's model
    expect((await getDoc(answerDoc.id)).embeddings.model).toBe(`${provider.slug}/embed-large`);
    await client(t.baseUrl, owner.token).patch(`/api/projects/${other.id}`, {
      settings: { embeddingModel: `${provider.slug}/embed-large` },
    });
    await fullyEmbedded(doc.id, `${provider.slug}/embed-large`);
  });

  it('deleting a document removes its vectors', async () => {
    const [doc] = await upload(project.id, [{ name: 'gone.txt', content: 'A short note about the parking garage opening hours.' }]);
    await fullyEmbedded(doc.id, `${provider.slug}/embed-large`);
    const del = await api(t.baseUrl, 'DELETE', `/api/documents/${doc.id}`, { token: owner.token });
    expect(del.status).toBe(200);
    const [n] = await sql(`select count(*)::int as n from chunk_embeddings e join chunks c on c.id = e.chunk_id where c.document_id = ?`, [
      doc.id,
    ]);
    expect(n.n).toBe(0);
    const hits = await search(project.id, 'parking garage opening hours');
    expect(hits.map((h) => h.documentId)).not.toContain(doc.id);
  });

  it('GraphQL shows the document embedding progress', async () => {
    const res = await api(t.baseUrl, 'POST', '/graphql', {
      token: owner.token,
      body: {
        query: `query($id: ID!) { document(id: $id) { id embeddings { model chunksEmbedded chunksTotal } } }`,
        variables: { id: answerDoc.id },
      },
    });
    expect(res.body.errors).toBeUndefined();
    const e = res.body.data.document.embeddings;
    expect(e).toEqual({ model: `${provider.slug}/embed-large`, chunksEmbedded: e.chunksTotal, chunksTotal: e.chunksTotal });
  });
});
