import express from 'express';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger';
import { writeSse } from '../../src/transports/http/sse';
import { uploadFiles, waitForDocument } from '../support/documents';
import { chatFactories, factories } from '../support/factories';
import { api, client } from '../support/http';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import { makePdf } from '../support/pdf';
import { SearchStub, startSearchStub } from '../support/search-stub';
import { answerOf, namesOf, postSse, SseEventRecord } from '../support/sse-client';
import { createTestApp, TestApp } from '../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SEARCH_KEY = 'tvly-test-key';

let stub: OpenAiStub;
let search: SearchStub;
/** The main app: web search configured, every log line captured. */
let A: TestApp;
let logText = '';
let f: ReturnType<typeof factories>;
let c: ReturnType<typeof chatFactories>;

let owner: Awaited<ReturnType<typeof f.makeUser>>;
let member: Awaited<ReturnType<typeof f.makeUser>>;
let outsider: Awaited<ReturnType<typeof f.makeUser>>;
let staff: Awaited<ReturnType<typeof f.makeUser>>;
let project: Awaited<ReturnType<typeof f.makeProject>>;
/** The uploaded manual: its document id and its chunks by page. */
let manual: { documentId: string; chunks: Array<{ id: string; pageNumber: number; text: string }> };

const MANUAL = [
  'Introduction to the Acme toaster. This manual covers setup, browning levels and safety notes.',
  'Warranty: the Acme toaster warranty lasts five years from the date of purchase, covering the heating elements.',
  'Cleaning: unplug the toaster and empty the crumb tray every week.',
];
const ANSWER_DELTAS = ['The warranty ', 'lasts five years ', 'from purchase [1].'];

async function wipeProviders(app: TestApp): Promise<void> {
  await app.orm.em.fork().getConnection().execute('delete from providers');
}

/** The providers most blocks ask through: only `stub`, with the main key (other blocks store their own). */
async function mainProvider(): Promise<void> {
  await wipeProviders(A);
  await c.makeProvider({ baseUrl: stub.url, slug: 'stub', apiKey: 'sk-main-key', models: ['stub-model', 'stub-large'] });
}

const ask = (
  app: TestApp,
  token: string,
  projectId: string,
  body: Record<string, unknown>,
  stopWhen?: (e: SseEventRecord, all: SseEventRecord[]) => boolean,
) => postSse(app.baseUrl, `/api/chat/projects/${projectId}`, { token, body, stopWhen });

const eventOf = (r: Awaited<ReturnType<typeof ask>>, name: string) => r.events.find((e) => e.event === name)?.data;

beforeAll(async () => {
  stub = await startOpenAiStub({ deltas: ANSWER_DELTAS });
  search = await startSearchStub({ apiKey: SEARCH_KEY });
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logText += chunk.toString();
      cb();
    },
  });
  A = await createTestApp({
    env: { SEARCH_API_URL: search.url, SEARCH_API_KEY: SEARCH_KEY },
    logger: createLogger('info', sink),
    workers: true,
  });
  f = factories(A.orm, A.services);
  c = chatFactories(A.orm, A.services);
  owner = await f.makeUser({ platformRole: 'admin' });
  member = await f.makeUser();
  outsider = await f.makeUser();
  staff = await f.superadmin();
  project = await f.makeProject({ owner, instructions: 'Answer in one sentence. Mention the manual.' });
  await f.makeGrant({ project, user: member, tier: 'use' });
  // a real upload: a three-page PDF through the documents endpoint and the ingestion worker
  const up = await uploadFiles(A.baseUrl, owner.token, project.id, [
    { name: 'acme-manual.pdf', type: 'application/pdf', content: makePdf(MANUAL.map((p) => ({ paragraphs: [p] }))) },
  ]);
  expect(up.status).toBe(202);
  const doc = await waitForDocument(A.baseUrl, owner.token, up.body.documents[0].id);
  expect(doc).toEqual(expect.objectContaining({ status: 'ready', pageCount: 3 }));
  const rows = await f
    .em()
    .getConnection()
    .execute('select id, page_number, text from chunks where document_id = ? order by ordinal', [doc.id]);
  manual = { documentId: doc.id, chunks: rows.map((r: any) => ({ id: r.id, pageNumber: r.page_number, text: r.text })) };
});
afterAll(async () => {
  await A?.close();
  await stub?.close();
  await search?.close();
});
beforeEach(() => stub.reset());

describe('authentication', () => {
  it.each([
    ['POST', '/api/chat/projects/00000000-0000-4000-8000-000000000000'],
    ['GET', '/api/chat/config'],
    ['GET', '/api/chat/projects/00000000-0000-4000-8000-000000000000/conversations'],
    ['GET', '/api/chat/conversations/00000000-0000-4000-8000-000000000000'],
    ['GET', '/api/chat/recent'],
  ])('%s %s requires authentication', async (method, path) => {
    const res = await api(A.baseUrl, method, path, { body: method === 'GET' ? undefined : { message: 'hi' } });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });
});

describe('a question answered from the documents', () => {
  let r: Awaited<ReturnType<typeof ask>>;
  let upstream: typeof stub.requests;
  const question = '  How long does the   warranty last for the Acme toaster, and what does it cover exactly?  ';
  beforeAll(async () => {
    await mainProvider();
    stub.reset();
    r = await ask(A, member.token, project.id, { message: question });
    upstream = [...stub.requests];
  });

  it('streams text/event-stream without buffering', () => {
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/event-stream');
    expect(r.headers.get('cache-control')).toBe('no-cache');
    expect(r.headers.get('x-accel-buffering')).toBe('no');
  });

  it('sends meta, sources, text…, done in that order and nothing after done', () => {
    const names = namesOf(r);
    expect(names[0]).toBe('meta');
    expect(names[1]).toBe('sources');
    expect(names.slice(2, -1).every((n) => n === 'text')).toBe(true);
    expect(names.slice(2, -1).length).toBe(ANSWER_DELTAS.length);
    expect(names[names.length - 1]).toBe('done');
  });

  it('meta: the conversation, the assistant message id and the model', () => {
    expect(eventOf(r, 'meta')).toEqual({
      conversationId: expect.stringMatching(UUID),
      messageId: expect.stringMatching(UUID),
      model: 'stub/stub-model',
    });
  });

  it('sources: the chunk on the right page first, in the documented shape', () => {
    const chunks = eventOf(r, 'sources').chunks;
    const page2 = manual.chunks.find((x) => x.pageNumber === 2)!;
    expect(chunks[0]).toEqual({
      id: page2.id,
      documentId: manual.documentId,
      documentName: 'acme-manual.pdf',
      pageNumber: 2,
      snippet: expect.stringContaining('warranty lasts five years'),
    });
  });

  it('text: the deltas concatenate to exactly the upstream answer', () => {
    expect(answerOf(r)).toBe(ANSWER_DELTAS.join(''));
  });

  it('done: the same message id, the upstream usage as totalTokens, and stage timings', () => {
    const done = eventOf(r, 'done');
    expect(done).toEqual({
      messageId: eventOf(r, 'meta').messageId,
      totalTokens: expect.any(Number),
      timings: { retrievalMs: expect.any(Number), firstTokenMs: expect.any(Number), totalMs: expect.any(Number) },
    });
    expect(done.totalTokens).toBeGreaterThan(0);
    expect(done.timings.firstTokenMs).toBeLessThanOrEqual(done.timings.totalMs);
  });

  it('calls the upstream once: streaming with usage, the key, the model, instructions and numbered context', () => {
    expect(upstream).toHaveLength(1);
    const req = upstream[0];
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.authorization).toBe('Bearer sk-main-key');
    expect(req.body).toEqual(expect.objectContaining({ model: 'stub-model', stream: true, stream_options: { include_usage: true } }));
    const [system, ...rest] = req.body.messages;
    expect(system.role).toBe('system');
    expect(system.content).toContain('Answer in one sentence. Mention the manual.');
    expect(system.content).toContain(`[1] acme-manual.pdf, page 2\n${manual.chunks.find((x) => x.pageNumber === 2)!.text.trim()}`);
    expect(rest).toEqual([{ role: 'user', content: question }]);
  });

  it('totalTokens is the usage the upstream reported', async () => {
    stub.once({ deltas: ['ok'], usage: { prompt_tokens: 40, completion_tokens: 2, total_tokens: 42 } });
    const again = await ask(A, member.token, project.id, { message: 'warranty?' });
    expect(eventOf(again, 'done').totalTokens).toBe(42);
  });

  it('totalTokens is estimated when the upstream sends no usage', async () => {
    stub.once({ deltas: ['ok'], usage: false });
    const again = await ask(A, member.token, project.id, { message: 'warranty?' });
    expect(eventOf(again, 'done').totalTokens).toBeGreaterThan(10);
  });

  it('the conversation and both messages (with citations) are readable through the GET endpoints', async () => {
    const meta = eventOf(r, 'meta');
    const list = await client(A.baseUrl, member.token).get(`/api/chat/projects/${project.id}/conversations`);
    expect(list.status).toBe(200);
    const entry = list.body.conversations.find((x: any) => x.id === meta.conversationId);
    expect(entry).toEqual({
      id: meta.conversationId,
      title: 'How long does the warranty last for the Acme toaster, and…',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      messageCount: 2,
      _count: { messages: 2 },
    });

    const one = await client(A.baseUrl, member.token).get(`/api/chat/conversations/${meta.conversationId}`);
    expect(one.status).toBe(200);
    expect(one.body.conversation).toEqual(expect.objectContaining({ id: meta.conversationId, title: entry.title, projectId: project.id }));
    const [user, assistant] = one.body.conversation.messages;
    expect(one.body.conversation.messages).toHaveLength(2);
    expect(user).toEqual({
      id: expect.stringMatching(UUID),
      role: 'user',
      content: question,
      createdAt: expect.any(String),
      citations: [],
      incomplete: false,
    });
    expect(assistant).toEqual({
      id: meta.messageId,
      role: 'assistant',
      content: ANSWER_DELTAS.join(''),
      createdAt: expect.any(String),
      incomplete: false,
      citations: [
        {
          index: 1,
          chunkId: manual.chunks.find((x) => x.pageNumber === 2)!.id,
          documentId: manual.documentId,
          documentName: 'acme-manual.pdf',
          pageNumber: 2,
        },
      ],
    });

    const recent = await client(A.baseUrl, member.token).get('/api/chat/recent');
    expect(recent.body.conversations[0]).toEqual(
      expect.objectContaining({
        projectId: project.id,
        project: { id: project.id, name: project.name, color: project.color },
        updatedAt: expect.any(String),
      }),
    );
    expect(recent.body.conversations.map((x: any) => x.id)).toContain(meta.conversationId);

    // the citation resolves to its source on page 2
    const source = await client(A.baseUrl, member.token).get(`/api/chat/chunks/${assistant.citations[0].chunkId}/source`);
    expect(source.body).toEqual(expect.objectContaining({ documentId: manual.documentId, documentName: 'acme-manual.pdf', pageNumber: 2 }));
  });

  it('the request log line carries the stage timings', async () => {
    await new Promise((res) => setTimeout(res, 50));
    const line = logText
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find(
        (l) =>
          l.msg === 'request' &&
          l.url === `/api/chat/projects/${project.id}` &&
          l.chat?.conversationId === eventOf(r, 'meta').conversationId,
      );
    expect(line.chat).toEqual(
      expect.objectContaining({
        outcome: 'done',
        model: 'stub/stub-model',
        retrievalMs: expect.any(Number),
        firstTokenMs: expect.any(Number),
        totalMs: expect.any(Number),
        totalTokens: expect.any(Number),
      }),
    );
  });
});

describe('citations are the [n] markers the answer really used', () => {
  beforeAll(mainProvider);

  it('maps only the used markers (in range) to chunk, document and page', async () => {
    const project2 = await f.makeProject({ owner });
    const doc = await c.makeDocumentChunks({
      project: project2,
      name: 'notes.md',
      chunks: ['alpha apples grow on trees', 'alpha bananas grow in bunches', 'alpha cherries are red'],
    });
    stub.once({ deltas: ['Bananas [2] and', ' cherries [3]; see also [2, 3] and [9].'] });
    const r = await ask(A, owner.token, project2.id, { message: 'alpha bananas cherries' });
    const sources = eventOf(r, 'sources').chunks;
    expect(sources.length).toBeGreaterThanOrEqual(3);
    const conv = await client(A.baseUrl, owner.token).get(`/api/chat/conversations/${eventOf(r, 'meta').conversationId}`);
    const citations = conv.body.conversation.messages[1].citations;
    expect(citations).toEqual(
      [2, 3].map((n) => ({
        index: n,
        chunkId: sources[n - 1].id,
        documentId: sources[n - 1].documentId,
        documentName: 'notes.md',
        pageNumber: sources[n - 1].pageNumber,
      })),
    );
    expect(doc.chunks.map((x) => x.id)).toEqual(expect.arrayContaining(citations.map((x: any) => x.chunkId)));
  });

  it('a project without documents still answers, with empty sources', async () => {
    const empty = await f.makeProject({ owner });
    const r = await ask(A, owner.token, empty.id, { message: 'anything?' });
    expect(namesOf(r)).toEqual(['meta', 'sources', 'text', 'text', 'text', 'done']);
    expect(eventOf(r, 'sources')).toEqual({ chunks: [] });
  });
});

describe('conversations', () => {
  beforeAll(mainProvider);

  it('a follow-up continues the conversation and sends the earlier turns', async () => {
    const first = await ask(A, member.token, project.id, { message: 'What is the warranty?' });
    const conversationId = eventOf(first, 'meta').conversationId;
    stub.once({ deltas: ['Yes.'] });
    const second = await ask(A, member.token, project.id, { message: 'Does it cover the heating elements?', conversationId });
    expect(eventOf(second, 'meta').conversationId).toBe(conversationId);
    const msgs = stub.last().body.messages;
    expect(msgs.slice(1)).toEqual([
      { role: 'user', content: 'What is the warranty?' },
      { role: 'assistant', content: ANSWER_DELTAS.join('') },
      { role: 'user', content: 'Does it cover the heating elements?' },
    ]);
    const conv = await client(A.baseUrl, member.token).get(`/api/chat/conversations/${conversationId}`);
    expect(conv.body.conversation.title).toBe('What is the warranty?');
    expect(conv.body.conversation.messages.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it("someone else's conversation, an unknown one or one of another project → 404 before any stream", async () => {
    const mine = await ask(A, member.token, project.id, { message: 'warranty' });
    const conversationId = eventOf(mine, 'meta').conversationId;
    const other = await f.makeProject({ owner, isPrivate: false });
    for (const [token, pid, cid] of [
      [owner.token, project.id, conversationId],
      [member.token, project.id, '00000000-0000-4000-8000-000000000000'],
      [member.token, other.id, conversationId],
    ]) {
      const r = await ask(A, token, pid, { message: 'again', conversationId: cid });
      expect(r.status).toBe(404);
      expect(r.events).toEqual([]);
    }
  });

  it('GET /chat/conversations/:id: the author while holding use; platform staff any; others 404; the author who lost access 403', async () => {
    const p = await f.makeProject({ owner });
    const reader = await f.makeUser();
    const grant = await f.makeGrant({ project: p, user: reader, tier: 'use' });
    const r = await ask(A, reader.token, p.id, { message: 'hello' });
    const id = eventOf(r, 'meta').conversationId;
    expect((await client(A.baseUrl, reader.token).get(`/api/chat/conversations/${id}`)).status).toBe(200);
    expect((await client(A.baseUrl, staff.token).get(`/api/chat/conversations/${id}`)).status).toBe(200);
    expect((await client(A.baseUrl, owner.token).get(`/api/chat/conversations/${id}`)).status).toBe(200); // an admin is platform staff
    expect((await client(A.baseUrl, outsider.token).get(`/api/chat/conversations/${id}`)).status).toBe(404);
    const engineer = await f.makeUser({ platformRole: 'engineer' });
    expect((await client(A.baseUrl, engineer.token).get(`/api/chat/conversations/${id}`)).status).toBe(404);
    await f.em().getConnection().execute('delete from project_grants where id = ?', [grant.id]);
    const lost = await client(A.baseUrl, reader.token).get(`/api/chat/conversations/${id}`);
    expect(lost.status).toBe(403);
    expect((await client(A.baseUrl, reader.token).get('/api/chat/conversations/not-a-uuid')).status).toBe(404);
  });

  it('the project list needs use and shows only the caller’s own conversations', async () => {
    const p = await f.makeProject({ owner, isPrivate: false });
    const u1 = await f.makeUser();
    const u2 = await f.makeUser();
    await ask(A, u1.token, p.id, { message: 'from u1' });
    await ask(A, u2.token, p.id, { message: 'from u2' });
    const l1 = await client(A.baseUrl, u1.token).get(`/api/chat/projects/${p.id}/conversations`);
    expect(l1.body.conversations.map((x: any) => x.title)).toEqual(['from u1']);
    const priv = await f.makeProject({ owner });
    expect((await client(A.baseUrl, u1.token).get(`/api/chat/projects/${priv.id}/conversations`)).status).toBe(403);
    expect((await client(A.baseUrl, u1.token).get('/api/chat/projects/00000000-0000-4000-8000-000000000000/conversations')).status).toBe(
      404,
    );
    expect((await client(A.baseUrl, u1.token).get(`/api/chat/projects/${p.id}/conversations?limit=0`)).status).toBe(400);
  });

  it('GET /chat/recent: newest first, 20 by default, own conversations in projects still usable', async () => {
    const u = await f.makeUser();
    const p = await f.makeProject({ owner, isPrivate: false });
    const gone = await f.makeProject({ owner });
    const em = f.em();
    const conn = em.getConnection();
    // 22 conversations an hour apart, plus one in a project the caller cannot use
    for (let i = 0; i < 22; i++) {
      await conn.execute(
        `insert into conversations (project_id, user_id, title, updated_at) values (?, ?, ?, now() - make_interval(hours => ?))`,
        [p.id, u.id, `c${i}`, 22 - i],
      );
    }
    await conn.execute(`insert into conversations (project_id, user_id, title, updated_at) values (?, ?, 'hidden', now())`, [
      gone.id,
      u.id,
    ]);
    const res = await client(A.baseUrl, u.token).get('/api/chat/recent');
    expect(res.status).toBe(200);
    expect(res.body.conversations.map((x: any) => x.title)).toEqual(Array.from({ length: 20 }, (_, i) => `c${21 - i}`));
    expect(res.body.conversations[0]).toEqual({
      id: expect.stringMatching(UUID),
      title: 'c21',
      projectId: p.id,
      project: { id: p.id, name: p.name, color: p.color },
      updatedAt: expect.any(String),
    });
    expect((await client(A.baseUrl, u.token).get('/api/chat/recent?limit=5')).body.conversations).toHaveLength(5);
  });

  it('GET /chat/config tells which modes are on', async () => {
    const res = await client(A.baseUrl, member.token).get('/api/chat/config');
    expect(res.body).toEqual({ docs: true, web: true, deep: true });
  });
});

describe('access and input are checked before any stream byte', () => {
  beforeAll(mainProvider);

  it('no access → plain JSON 403, no meta, no upstream call', async () => {
    const r = await ask(A, outsider.token, project.id, { message: 'warranty?' });
    expect(r.status).toBe(403);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.body.error).toBe('forbidden');
    expect(r.events).toEqual([]);
    expect(stub.requests).toHaveLength(0);
  });

  it('a missing or malformed project → JSON 404', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      const r = await ask(A, member.token, id, { message: 'x' });
      expect(r.status).toBe(404);
      expect(r.body.error).toBe('not_found');
    }
  });

  it('an engineer gets no project access from the role', async () => {
    const engineer = await f.makeUser({ platformRole: 'engineer' });
    expect((await ask(A, engineer.token, project.id, { message: 'x' })).status).toBe(403);
  });

  it.each([
    ['an empty message', { message: '   ' }],
    ['a missing message', {}],
    ['a message over 8,000 characters', { message: 'a'.repeat(8001) }],
    ['an unknown mode', { mode: 'deepest', message: 'x' }],
    ['a malformed conversationId', { message: 'x', conversationId: '123' }],
    ['an unknown field', { message: 'x', temperature: 2 }],
  ])('%s → 400', async (_what, body) => {
    const r = await ask(A, member.token, project.id, body);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('validation_failed');
  });

  it('a message of exactly 8,000 characters is accepted', async () => {
    const r = await ask(A, member.token, project.id, { message: 'b'.repeat(8000) });
    expect(r.status).toBe(200);
    expect(namesOf(r).at(-1)).toBe('done');
  });
});

describe('provider resolution through the chat (one test per step)', () => {
  let p: Awaited<ReturnType<typeof f.makeProject>>;
  beforeAll(async () => {
    p = await f.makeProject({ owner });
  });
  // every step starts from the same two providers (step 4 replaces them)
  beforeEach(async () => {
    await wipeProviders(A);
    await c.makeProvider({ baseUrl: stub.url, slug: 'one', apiKey: 'key-one', models: ['m-one', 'shared'] });
    await c.makeProvider({ baseUrl: stub.url, slug: 'two', apiKey: 'key-two', models: ['m-two', 'shared'] });
  });
  const used = () => ({ key: stub.last().authorization, model: stub.last().body.model });

  it('1: <slug>/<model> → that provider with that model', async () => {
    const r = await ask(A, owner.token, p.id, { message: 'q', modelId: 'two/custom-model' });
    expect(used()).toEqual({ key: 'Bearer key-two', model: 'custom-model' });
    expect(eventOf(r, 'meta').model).toBe('two/custom-model');
  });

  it('2: a bare model name → the first enabled provider listing it', async () => {
    await ask(A, owner.token, p.id, { message: 'q', modelId: 'm-two' });
    expect(used()).toEqual({ key: 'Bearer key-two', model: 'm-two' });
    await ask(A, owner.token, p.id, { message: 'q', modelId: 'shared' });
    expect(used()).toEqual({ key: 'Bearer key-one', model: 'shared' });
  });

  it("the project's settings.model is used when the message names none", async () => {
    const q = await f.makeProject({ owner, settings: { model: 'two/m-two' } });
    await ask(A, owner.token, q.id, { message: 'q' });
    expect(used()).toEqual({ key: 'Bearer key-two', model: 'm-two' });
  });

  it('3: no modelId, or no match → the default provider with its first model', async () => {
    await ask(A, owner.token, p.id, { message: 'q' });
    expect(used()).toEqual({ key: 'Bearer key-one', model: 'm-one' });
    const r = await ask(A, owner.token, p.id, { message: 'q', modelId: 'nobody-lists-this' });
    expect(used()).toEqual({ key: 'Bearer key-one', model: 'm-one' });
    expect(eventOf(r, 'meta').model).toBe('one/m-one');
  });

  it('4: no enabled default → the oldest enabled provider', async () => {
    await wipeProviders(A);
    const only = await c.makeProvider({ baseUrl: stub.url, slug: 'was-default', apiKey: 'key-old', models: ['m-old'] });
    // disabling the only provider keeps it the (disabled) default
    await client(A.baseUrl, staff.token).patch(`/api/providers/${only.id}`, { isEnabled: false });
    await c.makeProvider({ baseUrl: stub.url, slug: 'older', apiKey: 'key-older', models: ['m-older'] });
    await c.makeProvider({ baseUrl: stub.url, slug: 'newer', apiKey: 'key-newer', models: ['m-newer'] });
    await ask(A, owner.token, p.id, { message: 'q' });
    expect(used()).toEqual({ key: 'Bearer key-older', model: 'm-older' });
  });
});

describe('upstream failures (spec: chat failure causes)', () => {
  beforeAll(async () => {
    await wipeProviders(A);
    await c.makeProvider({ baseUrl: stub.url, slug: 'stub', apiKey: 'sk-wrong-key', models: ['stub-model'] });
  });

  const storedAnswer = async (token: string, r: Awaited<ReturnType<typeof ask>>) => {
    const conv = await client(A.baseUrl, token).get(`/api/chat/conversations/${eventOf(r, 'meta').conversationId}`);
    return conv.body.conversation.messages.find((m: any) => m.id === eventOf(r, 'meta').messageId);
  };

  it('upstream 401 (wrong key) → error LLM_API_ERROR whose detail says the key was refused', async () => {
    stub.once({ requireKey: 'sk-right-key' });
    const r = await ask(A, member.token, project.id, { message: 'warranty?' });
    expect(namesOf(r)).toEqual(['meta', 'sources', 'error']);
    expect(eventOf(r, 'error')).toEqual({
      type: 'error',
      message: 'LLM_API_ERROR',
      detail: expect.stringMatching(/API key \(HTTP 401\): Incorrect API key provided/),
    });
    expect(await storedAnswer(member.token, r)).toEqual(expect.objectContaining({ content: '', incomplete: true, citations: [] }));
  });

  it('upstream non-2xx → LLM_API_ERROR carrying the upstream message', async () => {
    stub.once({ status: 503, errorBody: { error: { message: 'model is overloaded' } } });
    const r = await ask(A, member.token, project.id, { message: 'warranty?' });
    expect(eventOf(r, 'error')).toEqual({
      type: 'error',
      message: 'LLM_API_ERROR',
      detail: expect.stringContaining('model is overloaded'),
    });
    expect(namesOf(r).at(-1)).toBe('error');
  });

  it('an unknown model (404) → LLM_API_ERROR naming the model', async () => {
    stub.once({ models: ['something-else'] });
    const r = await ask(A, member.token, project.id, { message: 'warranty?' });
    expect(eventOf(r, 'error').detail).toMatch(/404.*stub-model/);
  });

  it('a failure mid-stream stores what arrived, marked incomplete, and sends error', async () => {
    stub.once({ deltas: ['Part one [1], ', 'part two, ', 'never sent'], failAfter: 2 });
    const r = await ask(A, member.token, project.id, { message: 'warranty?' });
    expect(namesOf(r)).toEqual(['meta', 'sources', 'text', 'text', 'error']);
    expect(eventOf(r, 'error').message).toBe('LLM_API_ERROR');
    expect(eventOf(r, 'error').detail).toMatch(/closed unexpectedly/);
    const stored = await storedAnswer(member.token, r);
    expect(stored).toEqual(expect.objectContaining({ content: 'Part one [1], part two, ', incomplete: true }));
    expect(stored.citations).toEqual([expect.objectContaining({ index: 1 })]);
  });

  it('an error frame mid-stream is an upstream failure too', async () => {
    stub.once({ deltas: ['a', 'b', 'c'], errorEventAfter: 1 });
    const r = await ask(A, member.token, project.id, { message: 'warranty?' });
    expect(namesOf(r)).toEqual(['meta', 'sources', 'text', 'error']);
    expect(eventOf(r, 'error').detail).toMatch(/crashed mid-stream/);
  });

  it('a stream that ends without finishing is an upstream failure', async () => {
    stub.once({ deltas: ['a', 'b'], omitDone: true });
    const r = await ask(A, member.token, project.id, { message: 'warranty?' });
    expect(namesOf(r)).toEqual(['meta', 'sources', 'text', 'text', 'error']);
    expect((await storedAnswer(member.token, r)).incomplete).toBe(true);
  });

  it('a consumer that stops iterating (e.g. a GraphQL unsubscribe) aborts the upstream at once and keeps the partial answer', async () => {
    stub.once({ deltas: Array.from({ length: 30 }, (_, i) => `g${i} `), deltaDelayMs: 200 });
    const actor = await A.services.tokens.authenticate(member.token);
    let meta: any;
    for await (const e of await A.services.chat.ask(actor, project.id, { message: 'warranty?' })) {
      if (e.event === 'meta') meta = e.data;
      if (e.event === 'text') break;
    }
    await stub.waitFor(() => stub.last().aborted, 1000);
    const conv = await client(A.baseUrl, member.token).get(`/api/chat/conversations/${meta.conversationId}`);
    expect(conv.body.conversation.messages[1]).toEqual(expect.objectContaining({ id: meta.messageId, incomplete: true, content: 'g0 ' }));
  });

  it('a client that disconnects does not stop the answer: it goes on being generated and is stored whole (issue 38)', async () => {
    const deltas = Array.from({ length: 12 }, (_, i) => `w${i} `);
    stub.once({ deltas, deltaDelayMs: 30 });
    const r = await ask(A, member.token, project.id, { message: 'warranty?' }, (e) => e.event === 'text');
    expect(r.aborted).toBe(true);
    await stub.waitFor(() => stub.last().finished, 5000);
    expect(stub.last().aborted).toBe(false);
    let stored: any;
    for (let i = 0; i < 100 && !stored?.content; i++) {
      stored = await storedAnswer(member.token, r);
      if (!stored) await new Promise((res) => setTimeout(res, 50));
    }
    expect(stored).toEqual(expect.objectContaining({ id: eventOf(r, 'meta').messageId, incomplete: false, content: deltas.join('') }));
  });
});

describe('web and deep modes', () => {
  beforeAll(async () => {
    await wipeProviders(A);
    await c.makeProvider({ baseUrl: stub.url, slug: 'stub', apiKey: 'sk-main-key', models: ['stub-model'] });
    search.setResults([
      { title: 'Acme warranty policy', url: 'https://acme.example/warranty', content: 'Acme toasters carry a five-year warranty.' },
      { title: 'Toaster reviews', url: 'https://reviews.example/toasters', content: 'Reviewers praise the Acme warranty.' },
    ]);
  });

  it('web: basic search, web sources, and citations with the URL', async () => {
    stub.once({ deltas: ['Five years [1].'] });
    const r = await ask(A, member.token, project.id, { message: 'acme warranty length', mode: 'web' });
    expect(search.requests.at(-1)).toEqual({
      authorization: `Bearer ${SEARCH_KEY}`,
      body: { query: 'acme warranty length', search_depth: 'basic', max_results: 5 },
    });
    expect(eventOf(r, 'sources').chunks).toEqual([
      {
        id: 'web-1',
        documentId: 'https://acme.example/warranty',
        documentName: 'Acme warranty policy',
        pageNumber: 1,
        snippet: 'Acme toasters carry a five-year warranty.',
        url: 'https://acme.example/warranty',
      },
      {
        id: 'web-2',
        documentId: 'https://reviews.example/toasters',
        documentName: 'Toaster reviews',
        pageNumber: 1,
        snippet: 'Reviewers praise the Acme warranty.',
        url: 'https://reviews.example/toasters',
      },
    ]);
    expect(stub.last().body.messages[0].content).toContain('[1] Acme warranty policy (https://acme.example/warranty)');
    const conv = await client(A.baseUrl, member.token).get(`/api/chat/conversations/${eventOf(r, 'meta').conversationId}`);
    expect(conv.body.conversation.messages[1].citations).toEqual([
      { index: 1, chunkId: 'web-1', documentName: 'Acme warranty policy', pageNumber: 1, url: 'https://acme.example/warranty' },
    ]);
  });

  it('deep: advanced search and a research-style prompt', async () => {
    await ask(A, member.token, project.id, { message: 'compare acme warranties', mode: 'deep' });
    expect(search.requests.at(-1)!.body).toEqual({ query: 'compare acme warranties', search_depth: 'advanced', max_results: 8 });
    expect(stub.last().body.messages[0].content).toMatch(/research question/);
  });

  it('a failing search → error SEARCH_API_ERROR after meta, no model call', async () => {
    search.setStatus(500);
    try {
      const r = await ask(A, member.token, project.id, { message: 'x', mode: 'web' });
      expect(namesOf(r)).toEqual(['meta', 'error']);
      expect(eventOf(r, 'error')).toEqual({ type: 'error', message: 'SEARCH_API_ERROR', detail: expect.stringMatching(/HTTP 500/) });
      expect(stub.requests).toHaveLength(0);
    } finally {
      search.setStatus(200);
    }
  });
});

describe('environment fallback, time-outs and shutdown (no providers stored)', () => {
  let B: TestApp;
  let fb: ReturnType<typeof factories>;
  let u: Awaited<ReturnType<typeof fb.makeUser>>;
  let pb: Awaited<ReturnType<typeof fb.makeProject>>;
  beforeAll(async () => {
    B = await createTestApp({ env: { LLM_BASE_URL: stub.url, LLM_MODEL: 'env-model', UPSTREAM_TIMEOUT_MS: '600' } });
    fb = factories(B.orm, B.services);
    u = await fb.makeUser({ platformRole: 'admin' });
    pb = await fb.makeProject({ owner: u });
  });
  afterAll(async () => B?.close());

  it('5: no providers → LLM_BASE_URL with LLM_MODEL (and the empty key sends no Authorization)', async () => {
    const r = await ask(B, u.token, pb.id, { message: 'q' });
    expect(namesOf(r).at(-1)).toBe('done');
    expect(eventOf(r, 'meta').model).toBe('env-model');
    expect(stub.last().body.model).toBe('env-model');
    expect(stub.last().authorization).toBeNull();
  });

  it('5: a modelId names the model for the environment fallback', async () => {
    await ask(B, u.token, pb.id, { message: 'q', modelId: 'gpt-custom' });
    expect(stub.last().body.model).toBe('gpt-custom');
  });

  it('5: the empty fallback key is refused upstream (401) → LLM_API_ERROR saying no key is configured', async () => {
    stub.once({ requireKey: 'needed' });
    const r = await ask(B, u.token, pb.id, { message: 'q' });
    expect(eventOf(r, 'error')).toEqual({
      type: 'error',
      message: 'LLM_API_ERROR',
      detail: expect.stringMatching(/401.*no API key is configured/),
    });
  });

  it('web and deep are refused with 400 before the stream when SEARCH_API_KEY is unset; config says so', async () => {
    for (const mode of ['web', 'deep']) {
      const r = await ask(B, u.token, pb.id, { message: 'q', mode });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe('validation_failed');
      expect(r.body.details[0].field).toBe('mode');
      expect(r.body.message).toMatch(/SEARCH_API_KEY/);
    }
    expect((await client(B.baseUrl, u.token).get('/api/chat/config')).body).toEqual({ docs: true, web: false, deep: false });
  });

  it('an upstream that never answers → time-out error event (UPSTREAM_TIMEOUT_MS)', async () => {
    stub.once({ hang: 'headers' });
    const r = await ask(B, u.token, pb.id, { message: 'q' });
    expect(namesOf(r)).toEqual(['meta', 'sources', 'error']);
    expect(eventOf(r, 'error')).toEqual({ type: 'error', message: 'LLM_API_ERROR', detail: expect.stringMatching(/Timed out.*600 ms/) });
    await stub.waitFor(() => stub.last().aborted);
  });

  it('an upstream that stalls mid-answer → text so far, then the time-out error', async () => {
    stub.once({ deltas: ['one ', 'two'], hang: 'body', hangAfter: 1 });
    const r = await ask(B, u.token, pb.id, { message: 'q' });
    expect(namesOf(r)).toEqual(['meta', 'sources', 'text', 'error']);
    expect(eventOf(r, 'error').detail).toMatch(/Timed out/);
  });

  it('shutdown ends open streams with an error event and keeps the partial answer', async () => {
    // a server of its own: once shut down, it answers no other test
    const S = await createTestApp({ env: { LLM_BASE_URL: stub.url, LLM_MODEL: 'env-model', UPSTREAM_TIMEOUT_MS: '600' } });
    try {
      const fs = factories(S.orm, S.services);
      const su = await fs.makeUser({ platformRole: 'admin' });
      const sp = await fs.makeProject({ owner: su });
      stub.once({ deltas: Array.from({ length: 50 }, (_, i) => `s${i} `), deltaDelayMs: 50 });
      const r = await ask(S, su.token, sp.id, { message: 'q' }, (e) => {
        if (e.event === 'text') S.shutdownController.abort();
        return false;
      });
      expect(namesOf(r).at(-1)).toBe('error');
      expect(eventOf(r, 'error')).toEqual({ type: 'error', message: 'SERVER_SHUTTING_DOWN', detail: expect.any(String) });
      await stub.waitFor(() => stub.last().aborted);
      const conv = await client(S.baseUrl, su.token).get(`/api/chat/conversations/${eventOf(r, 'meta').conversationId}`);
      expect(conv.body.conversation.messages[1]).toEqual(
        expect.objectContaining({ incomplete: true, content: expect.stringMatching(/^s0 /) }),
      );
    } finally {
      await S.close();
    }
  });
});

describe('no provider and no environment', () => {
  it('→ meta, sources, then error LLM_API_ERROR; nothing is sent upstream', async () => {
    const C = await createTestApp();
    try {
      const fc = factories(C.orm, C.services);
      const u = await fc.makeUser({ platformRole: 'admin' });
      const p = await fc.makeProject({ owner: u });
      const r = await ask(C, u.token, p.id, { message: 'q' });
      expect(namesOf(r)).toEqual(['meta', 'sources', 'error']);
      expect(eventOf(r, 'error')).toEqual({ type: 'error', message: 'LLM_API_ERROR', detail: expect.stringMatching(/LLM_BASE_URL/) });
      expect(stub.requests).toHaveLength(0);
    } finally {
      await C.close();
    }
  });
});

describe('SSE writer', () => {
  it('sends `: ping` heartbeats while the producer is quiet', async () => {
    const app = express();
    app.post('/s', async (_req, res) => {
      await writeSse(
        res,
        (async function* () {
          yield { event: 'meta', data: { a: 1 } };
          await new Promise((r) => setTimeout(r, 250));
          yield { event: 'done', data: {} };
        })(),
        { heartbeatMs: 50 },
      );
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const r = await postSse(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, '/s');
      expect(namesOf(r)).toEqual(['meta', 'done']);
      expect(r.comments.filter((x) => x === 'ping').length).toBeGreaterThanOrEqual(2);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
