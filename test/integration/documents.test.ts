import * as indexWriter from '../../src/search/index-writer';
import type { Project, User } from '../../src/entities';
import { ingestFiles, uploadFiles, waitForDocument } from '../support/documents';
import { makeDocx } from '../support/docx';
import { factories } from '../support/factories';
import { api, client } from '../support/http';
import { makePdf } from '../support/pdf';
import { createTestApp, TestApp } from '../support/test-app';
import { Actor } from '../../src/access/actor';
import { expectShape } from '../support/openapi-validator';

type TestUser = User & { token: string };

let t: TestApp;
let f: ReturnType<typeof factories>;
let owner: TestUser;
let project: Project;

const MISSING = '00000000-0000-4000-8000-000000000000';

const sql = async <T = any>(text: string, params: unknown[] = []): Promise<T[]> =>
  await t.orm.em.fork().getConnection().execute<T[]>(text, params);
const text = (s: string, name = `note-${Math.random().toString(36).slice(2)}.txt`) => ({ name, content: s, type: 'text/plain' });

/** Uploads as `owner` and waits for the workers to finish every file. */
const ingest = (projectId: string, files: Parameters<typeof uploadFiles>[3], token = owner.token) =>
  ingestFiles(t.baseUrl, token, projectId, files);

/** The project's BM25 statistics recomputed from its chunks, next to the stored ones. */
async function indexStats(projectId: string) {
  const expected = await sql(
    `select u.lexeme as term, count(*)::int as df from chunks c, unnest(c.tsv) u where c.project_id = ? group by u.lexeme order by 1`,
    [projectId],
  );
  const stored = await sql(`select term, df from term_stats where project_id = ? order by term`, [projectId]);
  const [totals] = await sql(
    `select count(*)::int as chunks, coalesce(sum(term_count), 0)::int as terms from chunks where project_id = ?`,
    [projectId],
  );
  const [kept] = await sql(`select chunk_count::int as chunks, total_terms::int as terms from project_index_stats where project_id = ?`, [
    projectId,
  ]);
  return { expected, stored, totals, kept: kept ?? { chunks: 0, terms: 0 } };
}

async function expectConsistentIndex(projectId: string) {
  const s = await indexStats(projectId);
  expect(s.stored).toEqual(s.expected);
  expect(s.kept).toEqual(s.totals);
}

beforeAll(async () => {
  t = await createTestApp({ workers: true, env: { MAX_UPLOAD_MB: '1', INGEST_RETRY_LIMIT: '1', INGEST_RETRY_DELAY_SECONDS: '1' } });
  f = factories(t.orm, t.services);
  owner = await f.makeUser({ platformRole: 'admin' });
  project = await f.makeProject({ owner });
});
afterAll(async () => t?.close());
afterEach(() => jest.restoreAllMocks());

describe('every documents endpoint requires authentication', () => {
  it.each([
    ['POST', `/api/projects/${MISSING}/documents`],
    ['GET', `/api/projects/${MISSING}/documents`],
    ['GET', `/api/documents/${MISSING}`],
    ['DELETE', `/api/documents/${MISSING}`],
    ['POST', `/api/documents/${MISSING}/reindex`],
    ['GET', `/api/chat/chunks/${MISSING}/source`],
  ])('%s %s → 401', async (method, path) => {
    const res = await api(t.baseUrl, method, path);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('unauthorized');
  });

  it('an upload without a token is refused before its body matters', async () => {
    const res = await uploadFiles(t.baseUrl, undefined, project.id, [text('hello')]);
    expect(res.status).toBe(401);
  });
});

describe('tiers', () => {
  let p: Project;
  let useUser: TestUser;
  let editUser: TestUser;
  let stranger: TestUser;
  let docId: string;
  let chunkId: string;

  beforeAll(async () => {
    p = await f.makeProject({ owner });
    useUser = await f.makeUser();
    editUser = await f.makeUser();
    stranger = await f.makeUser();
    await f.makeGrant({ project: p, user: useUser, tier: 'use' });
    await f.makeGrant({ project: p, user: editUser, tier: 'edit' });
    const [doc] = await ingest(p.id, [text('The library opens at nine on weekdays.')]);
    docId = doc.id;
    [{ id: chunkId }] = await sql('select id from chunks where document_id = ?', [docId]);
  });

  it('upload needs edit: use → 403, no access → 403, edit → 202, missing project → 404', async () => {
    expect((await uploadFiles(t.baseUrl, useUser.token, p.id, [text('a')])).status).toBe(403);
    const denied = await uploadFiles(t.baseUrl, stranger.token, p.id, [text('b')]);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toBe('forbidden');
    expect((await uploadFiles(t.baseUrl, editUser.token, p.id, [text('c')])).status).toBe(202);
    expect((await uploadFiles(t.baseUrl, editUser.token, MISSING, [text('d')])).status).toBe(404);
    expect((await uploadFiles(t.baseUrl, editUser.token, 'not-a-uuid', [text('e')])).status).toBe(404);
    // nothing was stored for the refused uploads
    const names = (await sql<{ n: number }>(`select count(*)::int as n from documents where project_id = ?`, [p.id]))[0].n;
    expect(names).toBe(2);
  });

  it('list and get need use: no access → 403, use → 200, missing → 404', async () => {
    expect((await client(t.baseUrl, stranger.token).get(`/api/projects/${p.id}/documents`)).status).toBe(403);
    expect((await client(t.baseUrl, stranger.token).get(`/api/documents/${docId}`)).status).toBe(403);
    const list = await client(t.baseUrl, useUser.token).get(`/api/projects/${p.id}/documents`);
    expect(list.status).toBe(200);
    expect(list.body.documents.map((d: { id: string }) => d.id)).toContain(docId);
    expect((await client(t.baseUrl, useUser.token).get(`/api/documents/${docId}`)).body.document.id).toBe(docId);
    expect((await client(t.baseUrl, useUser.token).get(`/api/projects/${MISSING}/documents`)).status).toBe(404);
    expect((await client(t.baseUrl, useUser.token).get(`/api/documents/${MISSING}`)).status).toBe(404);
    expect((await client(t.baseUrl, useUser.token).get(`/api/documents/nope`)).status).toBe(404);
  });

  it('a public project gives every user use (read), not edit', async () => {
    const pub = await f.makeProject({ owner, isPrivate: false });
    expect((await client(t.baseUrl, stranger.token).get(`/api/projects/${pub.id}/documents`)).status).toBe(200);
    expect((await uploadFiles(t.baseUrl, stranger.token, pub.id, [text('x')])).status).toBe(403);
  });

  it('delete and reindex need edit: use → 403, no access → 403', async () => {
    for (const u of [useUser, stranger]) {
      expect((await client(t.baseUrl, u.token).delete(`/api/documents/${docId}`)).status).toBe(403);
      expect((await client(t.baseUrl, u.token).post(`/api/documents/${docId}/reindex`)).status).toBe(403);
    }
    expect((await sql('select id from documents where id = ?', [docId])).length).toBe(1);
  });

  it('chunk source needs use on the chunk project: no access → 403, use → 200, missing → 404', async () => {
    expect((await client(t.baseUrl, stranger.token).get(`/api/chat/chunks/${chunkId}/source`)).status).toBe(403);
    const ok = await client(t.baseUrl, useUser.token).get(`/api/chat/chunks/${chunkId}/source`);
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      documentId: docId,
      documentName: expect.stringMatching(/\.txt$/),
      pageNumber: 1,
      chunkId,
      snippet: 'The library opens at nine on weekdays.',
      context: 'The library opens at nine on weekdays.',
      // where the passage lies: characters of the page's converted text (no boxes: not a PDF)
      locations: [{ page: 1, start: 0, end: 38, text: 'The library opens at nine on weekdays.' }],
    });
    expect((await client(t.baseUrl, useUser.token).get(`/api/chat/chunks/${MISSING}/source`)).status).toBe(404);
    expect((await client(t.baseUrl, useUser.token).get(`/api/chat/chunks/abc/source`)).status).toBe(404);
  });

  it('edit can delete and reindex', async () => {
    const [doc] = await ingest(p.id, [text('Reading rooms close at eight in the evening.')]);
    expect((await client(t.baseUrl, editUser.token).post(`/api/documents/${doc.id}/reindex`)).status).toBe(202);
    await waitForDocument(t.baseUrl, owner.token, doc.id);
    const del = await client(t.baseUrl, editUser.token).delete(`/api/documents/${doc.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true, id: doc.id });
  });
});

describe('upload', () => {
  it('answers 202 with every file as a queued document of the documented shape', async () => {
    const pdf = makePdf([{ paragraphs: ['First page.'] }, { paragraphs: ['Second page.'] }]);
    const res = await uploadFiles(t.baseUrl, owner.token, project.id, [
      { name: 'two-pages.pdf', content: pdf, type: 'application/pdf' },
      { name: 'readme.md', content: '# Title\n\nSome *markdown* text.', type: 'application/octet-stream' },
    ]);
    expect(res.status).toBe(202);
    expect(res.body.documents).toHaveLength(2);
    const [a, b] = res.body.documents;
    expectShape(a, 'UploadResult');
    expect(a).toMatchObject({
      projectId: project.id,
      name: 'two-pages.pdf',
      mimeType: 'application/pdf',
      size: pdf.length,
      status: 'queued',
      progress: { pagesDone: 0, pagesTotal: 0 },
      pageCount: 0,
      chunkCount: 0,
      error: null,
      uploadedBy: owner.id,
      duplicate: false,
    });
    expect(a.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toMatchObject({ name: 'readme.md', mimeType: 'text/markdown' });

    const done = await waitForDocument(t.baseUrl, owner.token, a.id);
    expectShape(done, 'Document');
    expect(done).toMatchObject({ status: 'ready', pageCount: 2, progress: { pagesDone: 2, pagesTotal: 2 }, chunkCount: 2, error: null });
    expect(new Date(done.updatedAt).getTime()).toBeGreaterThan(new Date(done.createdAt).getTime());
    expect((await waitForDocument(t.baseUrl, owner.token, b.id)).status).toBe('ready');
  });

  it('reports identical content in the same project as the existing document, without duplicating it', async () => {
    const content = `Unique content ${Date.now()}: the fire assembly point is the north car park.`;
    const [first] = (await uploadFiles(t.baseUrl, owner.token, project.id, [text(content, 'a.txt')])).body.documents;
    const again = await uploadFiles(t.baseUrl, owner.token, project.id, [text(content, 'renamed.txt'), text(content, 'twice.txt')]);
    expect(again.status).toBe(202);
    expect(again.body.documents.map((d: { id: string; duplicate: boolean; name: string }) => [d.id, d.duplicate, d.name])).toEqual([
      [first.id, true, 'a.txt'],
      [first.id, true, 'a.txt'],
    ]);
    expect((await sql(`select id from documents where project_id = ? and sha256 = ?`, [project.id, first.sha256])).length).toBe(1);
    // another project may hold the same file
    const other = await f.makeProject({ owner });
    const elsewhere = await uploadFiles(t.baseUrl, owner.token, other.id, [text(content, 'a.txt')]);
    expect(elsewhere.body.documents[0]).toMatchObject({ duplicate: false });
    expect(elsewhere.body.documents[0].id).not.toBe(first.id);
    await waitForDocument(t.baseUrl, owner.token, first.id);
    await waitForDocument(t.baseUrl, owner.token, elsewhere.body.documents[0].id);
  });

  it('refuses a file larger than MAX_UPLOAD_MB with 413 payload_too_large and stores nothing', async () => {
    const before = (await sql<{ n: number }>(`select count(*)::int as n from documents`))[0].n;
    const big = Buffer.alloc(1024 * 1024 + 10, 'a');
    const res = await uploadFiles(t.baseUrl, owner.token, project.id, [{ name: 'big.txt', content: big }]);
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('payload_too_large');
    expect((await sql<{ n: number }>(`select count(*)::int as n from documents`))[0].n).toBe(before);
  });

  it('needs at least one file in the field "file"', async () => {
    const none = await api(t.baseUrl, 'POST', `/api/projects/${project.id}/documents`, { token: owner.token, body: {} });
    expect(none.status).toBe(400);
    expect(none.body.error).toBe('validation_failed');
    const form = new FormData();
    form.append('attachment', new Blob(['x']), 'x.txt');
    const wrongField = await fetch(`${t.baseUrl}/api/projects/${project.id}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}` },
      body: form,
    });
    expect(wrongField.status).toBe(400);
  });

  it('answers 400 (never 500) to a malformed multipart body', async () => {
    const url = `${t.baseUrl}/api/projects/${project.id}/documents`;
    for (const [type, body] of [
      ['multipart/form-data', 'no boundary'],
      ['multipart/form-data; boundary=xyz', 'not a multipart body'],
      ['multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\ntruncated'],
    ]) {
      const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${owner.token}`, 'content-type': type }, body });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('validation_failed');
    }
  });

  it('keeps only the base name of a path and non-ASCII names intact', async () => {
    const res = await uploadFiles(t.baseUrl, owner.token, project.id, [text('Ünïcode name test.', '../../etc/Überblick 2024.txt')]);
    expect(res.body.documents[0].name).toBe('Überblick 2024.txt');
    await waitForDocument(t.baseUrl, owner.token, res.body.documents[0].id);
  });
});

describe('formats and failures', () => {
  it('ingests DOCX, HTML, Markdown and text files', async () => {
    const docs = await ingest(project.id, [
      {
        name: 'policy.docx',
        content: await makeDocx([{ text: 'Badge policy', heading: 1 }, { text: 'Visitors must wear a red badge at all times.' }]),
      },
      { name: 'page.html', content: '<html><body><h1>Canteen</h1><p>Soup is served at noon.</p></body></html>' },
      { name: 'notes.md', content: '# Bikes\n\nBicycles are parked in the **basement**.' },
      text('Printers are on every floor next to the lifts.'),
    ]);
    expect(docs.map((d) => [d.status, d.pageCount, d.chunkCount])).toEqual([
      ['ready', 1, 1],
      ['ready', 1, 1],
      ['ready', 1, 1],
      ['ready', 1, 1],
    ]);
    const hit = await t.services.search.search(Actor.system(), project.id, 'red badge visitors');
    expect(hit[0]).toMatchObject({ documentName: 'policy.docx', pageNumber: 1 });
  });

  /** An unsupported, a corrupt PDF, a corrupt DOCX and a scanned file: four that fail. */
  const failing = () => [
    { name: 'photo.png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]), type: 'image/png' },
    { name: 'broken.pdf', content: Buffer.from('%PDF-1.7\nnot really a PDF\n%%EOF') },
    // a zip cut short: its central directory is gone
    { name: 'broken.docx', content: Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(64, 7)]) },
    {
      name: 'scan.pdf',
      content: makePdf([
        { paragraphs: [], drawBox: true },
        { paragraphs: [], drawBox: true },
      ]),
    },
  ];

  it('fails an unsupported, a corrupt and a scanned file with readable errors, and nothing else', async () => {
    const docs = await ingest(project.id, [...failing(), text('Healthy file next to broken ones: the gym is on the roof.')]);
    expect(docs.map((d) => [d.name, d.status, d.chunkCount])).toEqual([
      ['photo.png', 'failed', 0],
      ['broken.pdf', 'failed', 0],
      ['broken.docx', 'failed', 0],
      ['scan.pdf', 'failed', 0],
      [expect.any(String), 'ready', 1],
    ]);
    // the name and type say PNG, the bytes do not: the error says so and names no format the file is
    expect(docs[0].error).toBe('the file is not a PNG file: its content does not start as one does');
    expect(docs[0].mimeType).toBe('image/png');
    expect(docs[1].error).toMatch(/not a valid PDF file/);
    expect(docs[2].error).toMatch(/^a damaged zip file/);
    // the scan's pages are recognised, and hold no words
    expect(docs[3].error).toBe('no text found: OCR recognised no words on any page');
    expect(docs[3].pageCount).toBe(0);
    expect(
      (
        await sql(
          `select id from chunks where document_id in (?, ?, ?, ?)`,
          docs.slice(0, 4).map((d) => d.id),
        )
      ).length,
    ).toBe(0);
  });

  it('lists newest first and filters by status; a bad status is 400', async () => {
    // a project of its own: ready documents, then four failed ones beside another ready one
    const project = await f.makeProject({ owner });
    await ingest(project.id, [text('Printers are on every floor next to the lifts.'), text('Soup is served at noon.')]);
    await ingest(project.id, [...failing(), text('Bicycles are parked in the basement.')]);
    const all = (await client(t.baseUrl, owner.token).get(`/api/projects/${project.id}/documents`)).body.documents;
    const times = all.map((d: { createdAt: string }) => new Date(d.createdAt).getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const failed = (await client(t.baseUrl, owner.token).get(`/api/projects/${project.id}/documents?status=failed`)).body.documents;
    expect(failed.length).toBeGreaterThanOrEqual(4);
    expect(failed.every((d: { status: string }) => d.status === 'failed')).toBe(true);
    const bad = await client(t.baseUrl, owner.token).get(`/api/projects/${project.id}/documents?status=done`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_failed');
  });

  it('retries a failed attempt with backoff and then succeeds', async () => {
    const real = indexWriter.commitStagedChunks;
    let calls = 0;
    jest.spyOn(indexWriter, 'commitStagedChunks').mockImplementation(async (...args) => {
      if (++calls === 1) throw new Error('connection reset by peer');
      return real(...args);
    });
    const [doc] = await ingest(project.id, [text('Retry me: the server room is on level minus one.')]);
    expect(doc).toMatchObject({ status: 'ready', error: null, chunkCount: 1 });
    expect(calls).toBe(2);
    expect((await sql(`select attempts from documents where id = ?`, [doc.id]))[0].attempts).toBe(2);
  });

  it('marks the document failed once the retries are used up', async () => {
    jest.spyOn(indexWriter, 'commitStagedChunks').mockRejectedValue(new Error('disk full'));
    const [doc] = await ingest(project.id, [text('Never indexed: the roof terrace opens in May.')]);
    expect(doc).toMatchObject({ status: 'failed', chunkCount: 0 });
    expect(doc.error).toBe('ingestion failed after 2 attempts: disk full');
  });
});

describe('delete and reindex', () => {
  it('delete removes the document, its chunks and its share of the term statistics in one go', async () => {
    const p = await f.makeProject({ owner });
    const [keep, gone] = await ingest(p.id, [
      text('Shared words: the kitchen has a coffee machine.', 'keep.txt'),
      text('Shared words: the kitchen has a dishwasher. Unique word: xylograph.', 'gone.txt'),
    ]);
    await expectConsistentIndex(p.id);
    expect((await sql(`select df from term_stats where project_id = ? and term = 'xylograph'`, [p.id]))[0].df).toBe(1);
    expect((await sql(`select df from term_stats where project_id = ? and term = 'kitchen'`, [p.id]))[0].df).toBe(2);

    const res = await client(t.baseUrl, owner.token).delete(`/api/documents/${gone.id}`);
    expect(res.body).toEqual({ success: true, id: gone.id });
    expect((await sql(`select id from documents where id = ?`, [gone.id])).length).toBe(0);
    expect((await sql(`select id from chunks where document_id = ?`, [gone.id])).length).toBe(0);
    expect(await sql(`select df from term_stats where project_id = ? and term = 'xylograph'`, [p.id])).toEqual([]);
    expect((await sql(`select df from term_stats where project_id = ? and term = 'kitchen'`, [p.id]))[0].df).toBe(1);
    await expectConsistentIndex(p.id);
    expect(await t.services.search.search(Actor.system(), p.id, 'xylograph')).toEqual([]);
    expect((await t.services.search.search(Actor.system(), p.id, 'kitchen'))[0].documentId).toBe(keep.id);

    expect((await client(t.baseUrl, owner.token).delete(`/api/documents/${gone.id}`)).status).toBe(404);
    expect((await client(t.baseUrl, owner.token).get(`/api/documents/${gone.id}`)).status).toBe(404);
  });

  it('reindex reads the stored original again and replaces the chunks without double counting', async () => {
    const p = await f.makeProject({ owner });
    const [doc] = await ingest(p.id, [
      { name: 'manual.pdf', content: makePdf([{ paragraphs: ['Alpha page.'] }, { paragraphs: ['Beta page.'] }]) },
    ]);
    const before = await sql<{ id: string }>(`select id from chunks where document_id = ? order by ordinal`, [doc.id]);
    const statsBefore = await indexStats(p.id);

    const res = await client(t.baseUrl, owner.token).post(`/api/documents/${doc.id}/reindex`);
    expect(res.status).toBe(202);
    expect(res.body.document).toMatchObject({ id: doc.id, status: 'queued', progress: { pagesDone: 0, pagesTotal: 0 } });
    const again = await waitForDocument(t.baseUrl, owner.token, doc.id);
    expect(again).toMatchObject({ status: 'ready', pageCount: 2, chunkCount: 2 });

    const after = await sql<{ id: string }>(`select id from chunks where document_id = ? order by ordinal`, [doc.id]);
    expect(after).toHaveLength(before.length);
    // the same passages keep their ids (derived from the document, position and text: issue 35's
    // citations that last), written once each
    expect(after.map((c) => c.id)).toEqual(before.map((c) => c.id));
    const statsAfter = await indexStats(p.id);
    expect(statsAfter.stored).toEqual(statsBefore.stored);
    expect(statsAfter.kept).toEqual(statsBefore.kept);
    await expectConsistentIndex(p.id);
  });

  it('reindex of a missing document is 404', async () => {
    expect((await client(t.baseUrl, owner.token).post(`/api/documents/${MISSING}/reindex`)).status).toBe(404);
  });
});

describe('progress', () => {
  it('streams progress to a watcher with use, ending with ready; page counts only grow', async () => {
    const p = await f.makeProject({ owner });
    const pages = Array.from({ length: 80 }, (_, i) => ({
      paragraphs: [`Page ${i + 1} describes room ${i + 1} of the museum in some detail.`],
    }));
    const res = await uploadFiles(t.baseUrl, owner.token, p.id, [{ name: 'museum.pdf', content: makePdf(pages) }]);
    const id = res.body.documents[0].id;
    const actor = await t.services.tokens.authenticate(owner.token);
    const events = [];
    for await (const e of await t.services.documents.watch(actor, id)) events.push(e);
    const last = events[events.length - 1];
    expect(last).toMatchObject({ documentId: id, projectId: p.id, status: 'ready', pagesDone: 80, pagesTotal: 80, pageCount: 80 });
    expect(events.length).toBeGreaterThan(1); // it saw the document before it was ready
    const done = events.map((e) => e.pagesDone);
    expect(done).toEqual([...done].sort((a, b) => a - b));
  });

  it('ends a watch when the document is deleted', async () => {
    const p = await f.makeProject({ owner });
    const pages = Array.from({ length: 60 }, (_, i) => ({ paragraphs: [`Page ${i + 1} lists shelf ${i + 1} of the archive.`] }));
    const res = await uploadFiles(t.baseUrl, owner.token, p.id, [{ name: 'archive.pdf', content: makePdf(pages) }]);
    const id = res.body.documents[0].id;
    const actor = await t.services.tokens.authenticate(owner.token);
    const stream = (await t.services.documents.watch(actor, id))[Symbol.asyncIterator]();
    expect((await stream.next()).value).toMatchObject({ documentId: id });
    expect((await client(t.baseUrl, owner.token).delete(`/api/documents/${id}`)).status).toBe(200);
    const started = Date.now();
    let result = await stream.next();
    while (!result.done) result = await stream.next(); // any progress events seen before the deletion
    expect(Date.now() - started).toBeLessThan(3000); // ended by the deletion notice, not a re-check
  });

  it('refuses a watcher without access before streaming anything', async () => {
    const stranger = await t.services.tokens.authenticate((await f.makeUser()).token);
    const [doc] = (await uploadFiles(t.baseUrl, owner.token, project.id, [text('Watched by nobody.')])).body.documents;
    await expect(t.services.documents.watch(stranger, doc.id)).rejects.toMatchObject({ code: 'forbidden' });
    await waitForDocument(t.baseUrl, owner.token, doc.id);
    await expect(t.services.documents.watch(stranger, MISSING)).rejects.toMatchObject({ code: 'not_found' });
  });
});
