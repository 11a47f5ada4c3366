import { chatFactories, factories } from '../support/factories';
import { codes, gql, GqlResult, wsClient, wsCollect } from '../support/graphql';
import { api, client } from '../support/http';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import { makePdf } from '../support/pdf';
import { answerOf, namesOf, postSse } from '../support/sse-client';
import { createTestApp, TestApp } from '../support/test-app';

const ANSWER = ['The warranty ', 'lasts five years ', 'from purchase [1].'];
const MANUAL = [
  'Introduction to the Acme toaster. This manual covers setup, browning levels and safety notes.',
  'Warranty: the Acme toaster warranty lasts five years from the date of purchase, covering the heating elements.',
  'Cleaning: unplug the toaster and empty the crumb tray every week.',
  'Safety: never immerse the toaster in water.',
];

let t: TestApp;
let stub: OpenAiStub;
let f: ReturnType<typeof factories>;
let owner: Awaited<ReturnType<typeof f.makeUser>>;
let member: Awaited<ReturnType<typeof f.makeUser>>;
let outsider: Awaited<ReturnType<typeof f.makeUser>>;
let project: Awaited<ReturnType<typeof f.makeProject>>;
let documentId: string;
let progressEvents: Array<GqlResult>;

const CHAT = `subscription($p: ID!, $i: AskInput!) { chat(projectId: $p, input: $i) {
  __typename
  ... on ChatMeta { conversationId messageId model }
  ... on ChatSources { chunks { id documentId documentName pageNumber snippet url } }
  ... on ChatText { delta }
  ... on ChatDone { messageId totalTokens }
  ... on ChatError { type message detail }
} }`;
const PROGRESS =
  'subscription($d: ID!) { documentProgress(documentId: $d) { documentId projectId status pagesDone pagesTotal progress { pagesDone pagesTotal } pageCount chunkCount error } }';
const UPLOAD =
  'mutation($p: ID!, $i: UploadDocumentsInput!) { uploadDocuments(projectId: $p, input: $i) { id name status duplicate projectId } }';

const EVENT_NAME: Record<string, string> = {
  ChatMeta: 'meta',
  ChatSources: 'sources',
  ChatText: 'text',
  ChatDone: 'done',
  ChatError: 'error',
};
const events = (results: GqlResult[]) => results.map((r) => r.data?.chat).filter(Boolean);
const names = (results: GqlResult[]) => events(results).map((e: any) => EVENT_NAME[e.__typename]);
const deltas = (results: GqlResult[]) =>
  events(results)
    .filter((e: any) => e.__typename === 'ChatText')
    .map((e: any) => e.delta)
    .join('');

beforeAll(async () => {
  stub = await startOpenAiStub({ deltas: ANSWER });
  t = await createTestApp({ workers: true });
  f = factories(t.orm, t.services);
  owner = await f.makeUser({ platformRole: 'admin' });
  member = await f.makeUser();
  outsider = await f.makeUser();
  project = await f.makeProject({ owner });
  await f.makeGrant({ project, user: member, tier: 'use' });
  await chatFactories(t.orm, t.services).makeProvider({ baseUrl: stub.url, slug: 'stub', models: ['stub-model'] });

  // upload through GraphQL, then follow the ingestion over graphql-ws until it ends
  const pdf = makePdf(MANUAL.map((p) => ({ paragraphs: [p] })));
  const up = await gql(t.baseUrl, UPLOAD, {
    token: owner.token,
    variables: {
      p: project.id,
      i: { files: [{ name: 'acme-manual.pdf', mimeType: 'application/pdf', contentBase64: pdf.toString('base64') }] },
    },
  });
  expect(up.errors).toBeUndefined();
  documentId = up.data.uploadDocuments[0].id;
  const ws = wsClient(t.baseUrl, member.token);
  progressEvents = await wsCollect(ws, PROGRESS, { d: documentId });
  await ws.dispose();
}, 60_000);
afterAll(async () => {
  await t?.close();
  await stub?.close();
});
beforeEach(() => stub.reset());

describe('graphql: documents', () => {
  it('ingestion progress streams status and pages, ending in ready', () => {
    expect(progressEvents.length).toBeGreaterThanOrEqual(1);
    const last = progressEvents.at(-1)!.data.documentProgress;
    expect(last).toMatchObject({
      documentId,
      projectId: project.id,
      status: 'ready',
      pagesDone: 4,
      pagesTotal: 4,
      progress: { pagesDone: 4, pagesTotal: 4 },
      pageCount: 4,
      error: null,
    });
    expect(last.chunkCount).toBeGreaterThan(0);
    for (const e of progressEvents) expect(e.errors).toBeUndefined();
    const pages = progressEvents.map((e) => e.data.documentProgress.pagesDone);
    expect([...pages].sort((a, b) => a - b)).toEqual(pages); // never goes back
  });

  it('a finished document answers its final state at once; a caller without access gets forbidden', async () => {
    const ws = wsClient(t.baseUrl, member.token);
    const again = await wsCollect(ws, PROGRESS, { d: documentId });
    expect(again.map((e) => e.data.documentProgress.status)).toEqual(['ready']);
    await ws.dispose();
    const out = wsClient(t.baseUrl, outsider.token);
    const denied = await wsCollect(out, PROGRESS, { d: documentId });
    expect(codes(denied[0])).toEqual(['forbidden']);
    await out.dispose();
  });

  it('document queries equal REST; project.documents nests them', async () => {
    const FIELDS =
      'id projectId name mimeType size sha256 status progress { pagesDone pagesTotal } pageCount chunkCount embeddings { model chunksEmbedded chunksTotal } error language format extraction { method ocrPages ocrConfidence pages { from to method confidence } } originalUrl uploadedBy createdAt updatedAt';
    const rest = (await client(t.baseUrl, member.token).get(`/api/projects/${project.id}/documents`)).body.documents;
    const r = await gql(
      t.baseUrl,
      `query($p: ID!, $d: ID!) { documents(projectId: $p) { total items { ${FIELDS} } } document(id: $d) { ${FIELDS} } project(id: $p) { documents { id } } }`,
      { token: member.token, variables: { p: project.id, d: documentId } },
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.documents).toEqual({ total: rest.length, items: rest });
    expect(r.data.document).toEqual((await client(t.baseUrl, member.token).get(`/api/documents/${documentId}`)).body.document);
    expect(r.data.project.documents).toEqual(rest.map((d: any) => ({ id: d.id })));
    expect(codes(await gql(t.baseUrl, `{ documents(projectId: "${project.id}") { total } }`, { token: outsider.token }))).toEqual([
      'forbidden',
    ]);
  });

  it('upload needs edit tier and validates its input; duplicates are reported; reindex and delete follow REST', async () => {
    const file = {
      name: 'note.md',
      mimeType: 'text/markdown',
      contentBase64: Buffer.from('# Note\n\nA short note about descaling.').toString('base64'),
    };
    expect(codes(await gql(t.baseUrl, UPLOAD, { token: member.token, variables: { p: project.id, i: { files: [file] } } }))).toEqual([
      'forbidden',
    ]);
    expect(
      codes(
        await gql(t.baseUrl, UPLOAD, {
          token: owner.token,
          variables: { p: project.id, i: { files: [{ ...file, contentBase64: 'not base64!' }] } },
        }),
      ),
    ).toEqual(['validation_failed']);
    expect(codes(await gql(t.baseUrl, UPLOAD, { token: owner.token, variables: { p: project.id, i: { files: [] } } }))).toEqual([
      'validation_failed',
    ]);
    const first = await gql(t.baseUrl, UPLOAD, { token: owner.token, variables: { p: project.id, i: { files: [file] } } });
    expect(first.data.uploadDocuments[0]).toMatchObject({ name: 'note.md', duplicate: false, projectId: project.id });
    const dup = await gql(t.baseUrl, UPLOAD, { token: owner.token, variables: { p: project.id, i: { files: [file] } } });
    expect(dup.data.uploadDocuments[0]).toMatchObject({ id: first.data.uploadDocuments[0].id, duplicate: true });
    const id = first.data.uploadDocuments[0].id;
    expect(codes(await gql(t.baseUrl, `mutation { reindexDocument(id: "${id}") { id } }`, { token: member.token }))).toEqual(['forbidden']);
    expect(
      (await gql(t.baseUrl, `mutation { reindexDocument(id: "${id}") { id status } }`, { token: owner.token })).data.reindexDocument,
    ).toEqual({ id, status: 'queued' });
    expect(
      (await gql(t.baseUrl, `mutation { deleteDocument(id: "${id}") { success id } }`, { token: owner.token })).data.deleteDocument,
    ).toEqual({ success: true, id });
  });

  it('a body above MAX_BODY_KB is refused for every caller, as on REST (413 payload_too_large)', async () => {
    const big = JSON.stringify({ query: '{ me { id } }', variables: { pad: 'x'.repeat(t.config.maxBodyKb * 1024 + 10) } });
    const anon = await api(t.baseUrl, 'POST', '/graphql', { rawBody: big, headers: { 'content-type': 'application/json' } });
    expect(anon.status).toBe(413);
    const authed = await api(t.baseUrl, 'POST', '/graphql', {
      rawBody: big,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${member.token}` },
    });
    expect(authed.status).toBe(413);
    expect(authed.body).toMatchObject({ error: 'payload_too_large' });
  });

  it('chunkSource resolves a citation like REST', async () => {
    const [chunk] = await t.orm.em
      .fork()
      .getConnection()
      .execute('select id from chunks where document_id = ? order by ordinal limit 1', [documentId]);
    const r = await gql(
      t.baseUrl,
      `{ chunkSource(chunkId: "${chunk.id}") { documentId documentName pageNumber chunkId snippet context locations { page start end text boxes { x y w h } } } }`,
      { token: member.token },
    );
    expect(r.data.chunkSource).toEqual((await client(t.baseUrl, member.token).get(`/api/chat/chunks/${chunk.id}/source`)).body);
  });
});

describe('graphql: chat subscription', () => {
  it('streams meta, sources, text deltas equal to the upstream answer, then done — the same events as SSE', async () => {
    const ws = wsClient(t.baseUrl, member.token);
    const results = await wsCollect(ws, CHAT, { p: project.id, i: { message: 'How long is the warranty?' } });
    await ws.dispose();
    for (const r of results) expect(r.errors).toBeUndefined();
    expect(deltas(results)).toBe(ANSWER.join(''));
    const sse = await postSse(t.baseUrl, `/api/chat/projects/${project.id}`, {
      token: member.token,
      body: { message: 'How long is the warranty?' },
    });
    expect(names(results)).toEqual(namesOf(sse));
    expect(names(results)).toEqual(['meta', 'sources', 'text', 'text', 'text', 'done']);
    expect(answerOf(sse)).toBe(deltas(results));
    const [meta, sources] = events(results);
    const sseSources = sse.events.find((e) => e.event === 'sources')!.data;
    expect(sources.chunks).toEqual(sseSources.chunks.map((c: any) => ({ url: null, ...c })));
    expect(sources.chunks[0]).toMatchObject({ documentId, documentName: 'acme-manual.pdf' });
    const done = events(results).at(-1);
    expect(done.messageId).toBe(meta.messageId);
    expect(stub.requests).toHaveLength(2);

    // the stored conversation reads the same through GraphQL and REST, citations included
    const CONV =
      'id title projectId createdAt updatedAt messages { id role content createdAt citations { index chunkId documentId documentName pageNumber } incomplete }';
    const conv = await gql(
      t.baseUrl,
      `{ conversation(id: "${meta.conversationId}") { ${CONV} counts { messages } project { id name } } }`,
      { token: member.token },
    );
    const rest = (await client(t.baseUrl, member.token).get(`/api/chat/conversations/${meta.conversationId}`)).body.conversation;
    const { counts, project: p, ...c } = conv.data.conversation;
    expect(c).toEqual(rest);
    expect(counts).toEqual({ messages: 2 });
    expect(p).toEqual({ id: project.id, name: project.name });
    expect(rest.messages[1].citations[0]).toMatchObject({ index: 1, documentName: 'acme-manual.pdf' });
  });

  it('conversation lists equal REST (project list, recent, nested in the project)', async () => {
    const SUMMARY = 'id title createdAt updatedAt messageCount counts { messages }';
    const r = await gql(
      t.baseUrl,
      `query($p: ID!) { conversations(projectId: $p) { ${SUMMARY} } recentConversations { id title projectId updatedAt project { id name color } } project(id: $p) { conversations { id } } }`,
      { token: member.token, variables: { p: project.id } },
    );
    expect(r.errors).toBeUndefined();
    const rest = (await client(t.baseUrl, member.token).get(`/api/chat/projects/${project.id}/conversations`)).body.conversations;
    expect(r.data.conversations).toEqual(rest.map(({ _count, ...x }: any) => ({ ...x, counts: _count })));
    expect(r.data.recentConversations).toEqual((await client(t.baseUrl, member.token).get('/api/chat/recent')).body.conversations);
    expect(r.data.project.conversations).toEqual(rest.map((x: any) => ({ id: x.id })));
    // someone else's conversation is not found, as in REST
    const other = await gql(t.baseUrl, `{ conversation(id: "${rest[0].id}") { id } }`, { token: outsider.token });
    expect(codes(other)).toEqual(['not_found']);
    expect((await gql(t.baseUrl, '{ chatConfig { docs web deep } }', { token: member.token })).data.chatConfig).toEqual(
      (await client(t.baseUrl, member.token).get('/api/chat/config')).body,
    );
  });

  it('a caller without access gets forbidden and no event; bad input is validation_failed', async () => {
    const ws = wsClient(t.baseUrl, outsider.token);
    const denied = await wsCollect(ws, CHAT, { p: project.id, i: { message: 'hi' } });
    expect(codes(denied[0])).toEqual(['forbidden']);
    expect(events(denied)).toEqual([]);
    const bad = await wsCollect(wsClient(t.baseUrl, member.token), CHAT, { p: project.id, i: { message: '   ' } });
    expect(codes(bad[0])).toEqual(['validation_failed']);
    await ws.dispose();
    expect(stub.requests).toHaveLength(0);
  });

  it('an upstream failure ends the stream with an error event (LLM_API_ERROR)', async () => {
    stub.once({ status: 500, errorBody: { error: { message: 'boom' } } });
    const ws = wsClient(t.baseUrl, member.token);
    const results = await wsCollect(ws, CHAT, { p: project.id, i: { message: 'warranty?' } });
    await ws.dispose();
    expect(names(results)).toEqual(['meta', 'sources', 'error']);
    expect(events(results).at(-1)).toMatchObject({ type: 'error', message: 'LLM_API_ERROR' });
  });

  it('unsubscribing aborts the upstream call at once', async () => {
    stub.once({ deltas: Array.from({ length: 50 }, (_, i) => `t${i} `), deltaDelayMs: 300 });
    const ws = wsClient(t.baseUrl, member.token);
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const unsubscribe = ws.subscribe(
        { query: CHAT, variables: { p: project.id, i: { message: 'warranty?' } } },
        {
          next: (v: any) => {
            seen.push(v.data.chat.__typename);
            if (v.data.chat.__typename === 'ChatText') {
              unsubscribe();
              resolve();
            }
          },
          error: reject,
          complete: () => undefined,
        },
      );
    });
    const started = Date.now();
    await stub.waitFor(() => stub.last().aborted, 2000);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(stub.last().finished).toBe(false);
    await ws.dispose();
  });

  it('closing the socket aborts the upstream call', async () => {
    stub.once({ deltas: Array.from({ length: 50 }, (_, i) => `c${i} `), deltaDelayMs: 300 });
    const ws = wsClient(t.baseUrl, member.token);
    await new Promise<void>((resolve, reject) => {
      ws.subscribe(
        { query: CHAT, variables: { p: project.id, i: { message: 'warranty?' } } },
        {
          next: (v: any) => v.data.chat.__typename === 'ChatText' && resolve(),
          error: () => undefined,
          complete: () => undefined,
        },
      );
      setTimeout(() => reject(new Error('no text event')), 10_000);
    });
    await ws.dispose();
    await stub.waitFor(() => stub.last().aborted, 2000);
    expect(stub.last().finished).toBe(false);
  });
});
