import type { Project, User } from '../../src/entities';
import { TEXT_WINDOW_CHARS } from '../../src/services/document-text.service';
import { ingestFiles, waitForDocument } from '../support/documents';
import { makeDocx } from '../support/docx';
import { chatFactories, factories } from '../support/factories';
import { codes, gql } from '../support/graphql';
import { api } from '../support/http';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import { makePdf } from '../support/pdf';
import { postSse } from '../support/sse-client';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Issue 35: the reader view's text (GET /documents/:id/text, GraphQL documentText), and citations
 * that last: a stored citation opens the same place after its document is analysed again.
 */
let t: TestApp;
let stub: OpenAiStub;
let f: ReturnType<typeof factories>;
let owner: User & { token: string };
let project: Project;
let docx: { id: string };
let pdf: { id: string };

const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const text = (id: string, token = owner.token, query = '') => api(t.baseUrl, 'GET', `/api/documents/${id}/text${query}`, { token });
const exec = (sql: string, params: unknown[] = []): Promise<any[]> => t.orm.em.fork().getConnection().execute(sql, params);

beforeAll(async () => {
  stub = await startOpenAiStub({ deltas: ['The kettle is descaled monthly [1].'] });
  t = await createTestApp({ workers: true });
  f = factories(t.orm, t.services);
  owner = await f.makeUser();
  project = await f.makeProject({ owner });
  await chatFactories(t.orm, t.services).makeProvider({ baseUrl: stub.url, slug: 'stub', models: ['stub-model'], isDefault: true });
  [docx, pdf] = await ingestFiles(t.baseUrl, owner.token, project.id, [
    {
      name: 'kettle.docx',
      content: await makeDocx([
        { text: 'Kettle care', heading: 1 },
        { text: 'Fill the kettle with fresh water before each use.' },
        { text: 'Descaling', heading: 2 },
        { text: 'Descale the kettle monthly with citric acid.' },
      ]),
      type: DOCX_TYPE,
    },
    { name: 'handbook.pdf', content: makePdf([{ paragraphs: ['The warranty lasts three years.'] }]), type: 'application/pdf' },
  ]);
}, 90_000);
afterAll(async () => {
  await t?.close();
  await stub?.close();
});

describe('GET /documents/:id/text', () => {
  it("serves the converted text, headings with their offsets, and the chunk locations' offsets point into it", async () => {
    const res = await text(docx.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ documentId: docx.id, documentName: 'kettle.docx', pageCount: 1, nextPage: null });
    const [page] = res.body.pages;
    expect(page.text).toContain('Fill the kettle with fresh water');
    expect(page.text).toContain('Descale the kettle monthly with citric acid.');
    expect(page.sections.map((s: any) => page.text.slice(s.offset, s.offset + s.title.length))).toEqual(['Kettle care', 'Descaling']);
    const [chunk] = await exec(`select id from chunks where document_id = ?`, [docx.id]);
    const source = await api(t.baseUrl, 'GET', `/api/chat/chunks/${chunk.id}/source`, { token: owner.token });
    for (const l of source.body.locations) expect(page.text.slice(l.start, l.end)).toBe(l.text);
  });

  it('gives whole pages up to the window and the next page to ask for', async () => {
    const big = Array.from(
      { length: 150 },
      (_, i) => `Page ${i + 1} of the long manual.\n\n${'Filler text about pumps. '.repeat(100)}`,
    ).join('\f');
    const [doc] = await ingestFiles(t.baseUrl, owner.token, project.id, [{ name: 'long.txt', content: big, type: 'text/plain' }]);
    const first = await text(doc.id);
    expect(first.status).toBe(200);
    expect(first.body.pageCount).toBe(150);
    const chars = first.body.pages.reduce((n: number, p: any) => n + p.text.length, 0);
    expect(chars).toBeLessThanOrEqual(TEXT_WINDOW_CHARS);
    expect(first.body.nextPage).toBe(first.body.pages.length + 1);
    const next = await text(doc.id, owner.token, `?from=${first.body.nextPage}`);
    expect(next.body.pages[0].text).toContain(`Page ${first.body.nextPage} of the long manual.`);
    const end = await text(doc.id, owner.token, '?from=150');
    expect(end.body).toMatchObject({ nextPage: null, pages: [expect.objectContaining({ pageNumber: 150 })] });
    expect((await text(doc.id, owner.token, '?from=151')).body.pages).toEqual([]);
  });

  it('needs `use`: 401 without a token, the usual 403/404 to others, 404 for a missing document, 400 for a bad page, 409 for a PDF', async () => {
    expect((await text(docx.id, '')).status).toBe(401);
    const reader = await f.makeUser();
    await f.makeGrant({ project, user: reader, tier: 'use' });
    expect((await text(docx.id, reader.token)).status).toBe(200);
    const stranger = await f.makeUser();
    const meta = await api(t.baseUrl, 'GET', `/api/documents/${docx.id}`, { token: stranger.token });
    const denied = await text(docx.id, stranger.token);
    expect([403, 404]).toContain(denied.status);
    expect(denied.status).toBe(meta.status);
    expect((await text('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await text('not-a-uuid')).status).toBe(404);
    for (const bad of ['?from=0', '?from=abc', '?from=1.5']) {
      const r = await text(docx.id, owner.token, bad);
      expect(r.status).toBe(400);
      expect(r.body.error).toBeDefined();
    }
    const p = await text(pdf.id);
    expect(p.status).toBe(409);
    expect(p.body.error).toBe('no_converted_text');
  });

  it('is the GraphQL query documentText too', async () => {
    const q = `query ($id: ID!, $from: Int) { documentText(id: $id, from: $from) { documentId pageCount nextPage pages { pageNumber text sections { offset title level } } } }`;
    const r = await gql(t.baseUrl, q, { token: owner.token, variables: { id: docx.id } });
    expect(r.errors).toBeUndefined();
    expect(r.data.documentText).toEqual({ ...(await text(docx.id)).body, documentName: undefined, documentId: docx.id });
    const denied = await gql(t.baseUrl, q, { token: (await f.makeUser()).token, variables: { id: docx.id } });
    expect(codes(denied)[0]).toMatch(/^(forbidden|not_found)$/);
  });
});

it('citations last: after the document is analysed again, the stored citation opens the same page and the same marked text', async () => {
  const asked = await postSse(t.baseUrl, `/api/chat/projects/${project.id}`, {
    token: owner.token,
    body: { message: 'How often do I descale the kettle?' },
  });
  const conversationId = asked.events.find((e) => e.event === 'meta')!.data.conversationId;
  const cited = async () => {
    const conv = await api(t.baseUrl, 'GET', `/api/chat/conversations/${conversationId}`, { token: owner.token });
    const [citation] = conv.body.conversation.messages.find((m: any) => m.role === 'assistant').citations;
    const source = await api(t.baseUrl, 'GET', `/api/chat/chunks/${citation.chunkId}/source`, { token: owner.token });
    return {
      citation,
      status: source.status,
      place: { page: source.body.pageNumber, snippet: source.body.snippet, locations: source.body.locations },
    };
  };
  const before = await cited();
  expect(before.status).toBe(200);
  expect(before.citation.documentId).toBe(docx.id);
  expect(before.place.snippet).toContain('Descale the kettle monthly');

  // a reindex, and the background re-analysis of a document stored by an older analysis
  expect((await api(t.baseUrl, 'POST', `/api/documents/${docx.id}/reindex`, { token: owner.token })).status).toBe(202);
  await waitForDocument(t.baseUrl, owner.token, docx.id);
  expect(await cited()).toEqual({ ...before, status: 200 });
  await exec(`update documents set analysis_version = 0 where id = ?`, [docx.id]);
  await t.services.documents.ingestQueue.enqueueReanalysis();
  t.services.documents.ingestQueue.nudge();
  for (const until = Date.now() + 60_000; ;) {
    const [{ v }] = await exec(`select analysis_version as v from documents where id = ?`, [docx.id]);
    if (v > 0) break;
    if (Date.now() > until) throw new Error('not re-analysed');
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(await cited()).toEqual(before);
});
