import type { Project, User } from '../../src/entities';
import { uploadFiles } from '../support/documents';
import { makeDocx } from '../support/docx';
import { factories } from '../support/factories';
import { gql } from '../support/graphql';
import { api } from '../support/http';
import { makePdf } from '../support/pdf';
import { createTestApp, TestApp } from '../support/test-app';

/** Issue 35: GET /api/documents/:id/original serves the stored file safely, in ranges. */
let t: TestApp;
let f: ReturnType<typeof factories>;
let owner: User & { token: string };
let project: Project;

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const HTML = '<!doctype html><html><body><h1>Hello</h1><script>fetch("/api/auth/me")</script></body></html>';

/** Uploads one file (not waiting for ingestion: the original is stored with the upload) and returns its id. */
async function upload(name: string, content: Buffer | string, type: string, token = owner.token, projectId = project.id): Promise<string> {
  const res = await uploadFiles(t.baseUrl, token, projectId, [{ name, content, type }]);
  expect(res.status).toBe(202);
  return res.body.documents[0].id as string;
}

const original = (id: string, token?: string, headers: Record<string, string> = {}) =>
  fetch(`${t.baseUrl}/api/documents/${id}/original`, { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers } });

beforeAll(async () => {
  t = await createTestApp({ workers: false });
  f = factories(t.orm, t.services);
  owner = await f.makeUser();
  project = await f.makeProject({ owner });
}, 60_000);
afterAll(async () => t?.close());

describe('who may read an original', () => {
  it('requires authentication', async () => {
    const id = await upload('a.txt', 'Some text about the warranty.', 'text/plain');
    expect((await original(id)).status).toBe(401);
  });

  it('answers a caller with use tier, and the usual 403/404 to everyone else and for a missing document', async () => {
    const id = await upload('b.txt', 'Text the reader may see.', 'text/plain');
    const reader = await f.makeUser();
    await f.makeGrant({ project, user: reader, tier: 'use' });
    const stranger = await f.makeUser();
    const res = await original(id, reader.token);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('Text the reader may see.');
    // an outsider gets what GET /documents/:id gives them
    const meta = await api(t.baseUrl, 'GET', `/api/documents/${id}`, { token: stranger.token });
    expect([403, 404]).toContain(meta.status);
    const denied = await original(id, stranger.token);
    expect(denied.status).toBe(meta.status);
    expect(await denied.json()).toEqual(meta.body);
    expect((await original('00000000-0000-4000-8000-000000000000', owner.token)).status).toBe(404);
    expect((await original('not-a-uuid', owner.token)).status).toBe(404);
  });
});

describe('ranges and validators', () => {
  it('serves one range as 206 with Content-Range, a range past the end as 416, and the whole file otherwise', async () => {
    const bytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => `line ${i}\n`).join(''));
    const id = await upload('long.txt', bytes, 'text/plain');
    const whole = await original(id, owner.token);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);

    const part = await original(id, owner.token, { range: 'bytes=100-199' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);

    const open = await original(id, owner.token, { range: `bytes=${bytes.length - 5}-` });
    expect(open.status).toBe(206);
    expect(Buffer.from(await open.arrayBuffer()).equals(bytes.subarray(bytes.length - 5))).toBe(true);
    const suffix = await original(id, owner.token, { range: 'bytes=-7' });
    expect(Buffer.from(await suffix.arrayBuffer()).equals(bytes.subarray(bytes.length - 7))).toBe(true);

    const past = await original(id, owner.token, { range: `bytes=${bytes.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
  });

  it('sends ETag and Last-Modified, and answers 304 to a matching If-None-Match', async () => {
    const id = await upload('c.txt', 'Validators are sent.', 'text/plain');
    const res = await original(id, owner.token);
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(Number.isNaN(Date.parse(res.headers.get('last-modified')!))).toBe(false);
    expect((await original(id, owner.token, { 'if-none-match': etag })).status).toBe(304);
    // an If-Range that no longer matches gets the whole file
    const stale = await original(id, owner.token, { range: 'bytes=0-3', 'if-range': '"other"' });
    expect(stale.status).toBe(200);
  });
});

describe('headers for each kind of file', () => {
  it.each([
    ['PDF', 'doc.pdf', () => makePdf([{ paragraphs: ['A page.'] }]), 'application/pdf', 'inline', 'application/pdf'],
    ['PNG', 'pic.png', () => PNG, 'image/png', 'inline', 'image/png'],
    ['HTML', 'page.html', () => HTML, 'text/html', 'attachment', null],
    [
      'SVG',
      'pic.svg',
      () => '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      'image/svg+xml',
      'attachment',
      null,
    ],
    ['HTML declared as a PDF', 'fake.pdf', () => HTML.replace('Hello', 'Not a PDF'), 'application/pdf', 'attachment', null],
    [
      'DOCX',
      'notes.docx',
      () => makeDocx([{ text: 'A paragraph.' }]),
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'attachment',
      null,
    ],
  ])('%s', async (_kind, name, content, type, disposition, contentType) => {
    const id = await upload(name, await content(), type);
    const res = await original(id, owner.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe("sandbox; default-src 'none'");
    expect(res.headers.get('content-disposition')).toMatch(new RegExp(`^${disposition}; filename="${name.replace('.', '\\.')}"`));
    if (contentType) expect(res.headers.get('content-type')).toBe(contentType);
    else expect(res.headers.get('content-type')).not.toMatch(/pdf|html|svg|^image\//);
  });
});

it("GraphQL's Document has the originalUrl the route answers on", async () => {
  const id = await upload('d.txt', 'Reachable from the graph.', 'text/plain');
  const res = await gql<{ document: { originalUrl: string } }>(t.baseUrl, `query($id: ID!) { document(id: $id) { id originalUrl } }`, {
    token: owner.token,
    variables: { id },
  });
  expect(res.errors).toBeUndefined();
  const url = res.data!.document.originalUrl;
  expect(url).toBe(`/api/documents/${id}/original`);
  const r = await fetch(t.baseUrl + url, { headers: { authorization: `Bearer ${owner.token}` } });
  expect(await r.text()).toBe('Reachable from the graph.');
});
