import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Project, User } from '../../src/entities';
import { Actor } from '../../src/access/actor';
import { ingestFiles } from '../support/documents';
import { factories } from '../support/factories';
import { gql } from '../support/graphql';
import { api } from '../support/http';
import { expectShape } from '../support/openapi-validator';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(180_000);

/**
 * A scanned contract and a photographed notice, uploaded as a browser uploads them (with their
 * types), become ready through OCR; their documents say how their pages were read, on REST and
 * GraphQL alike, and a question only the scan answers finds it first, on the right page.
 */
const DIR = path.resolve(__dirname, '../fixtures/formats/scans');

let t: TestApp;
let owner: User & { token: string };
let project: Project;
let contract: any;
let notice: any;

beforeAll(async () => {
  t = await createTestApp({ workers: true });
  const f = factories(t.orm, t.services);
  owner = await f.makeUser({ platformRole: 'admin' });
  project = await f.makeProject({ owner });
  [contract, notice] = await ingestFiles(
    t.baseUrl,
    owner.token,
    project.id,
    [
      { name: 'Supply agreement (signed).pdf', content: readFileSync(path.join(DIR, 'scanned-contract.pdf')), type: 'application/pdf' },
      { name: 'IMG_0412.png', content: readFileSync(path.join(DIR, 'notice.png')), type: 'image/png' },
    ],
    { timeoutMs: 150_000 },
  );
});
afterAll(async () => t?.close());

describe('scanned documents', () => {
  it('become ready, every page read by OCR', () => {
    expect([contract.status, contract.pageCount, contract.format, contract.error ?? null]).toEqual(['ready', 3, 'pdf', null]);
    expect([notice.status, notice.pageCount, notice.format, notice.error ?? null]).toEqual(['ready', 1, 'png', null]);
  });

  it('show how each page was read on GET /api/documents/:id', async () => {
    const res = await api(t.baseUrl, 'GET', `/api/documents/${contract.id}`, { token: owner.token });
    expect(res.status).toBe(200);
    expectShape(res.body.document, 'Document');
    const { extraction } = res.body.document;
    expect(extraction).toMatchObject({ method: 'ocr', ocrPages: 3 });
    expect(extraction.pages.map((r: any) => [r.from, r.to, r.method])).toEqual([
      [1, 1, 'ocr'],
      [2, 2, 'ocr'],
      [3, 3, 'ocr'],
    ]);
    for (const run of extraction.pages) expect(run.confidence).toBeGreaterThan(80);
    expect(extraction.ocrConfidence).toBeGreaterThan(80);
    const png = (await api(t.baseUrl, 'GET', `/api/documents/${notice.id}`, { token: owner.token })).body.document;
    expect(png.extraction).toMatchObject({ method: 'ocr', ocrPages: 1, pages: [{ from: 1, to: 1, method: 'ocr' }] });
  });

  it('show the same on the GraphQL Document', async () => {
    const query = `query($id: ID!) { document(id: $id) { id format extraction { method ocrPages ocrConfidence pages { from to method confidence } } } }`;
    for (const doc of [contract, notice]) {
      const r = await gql(t.baseUrl, query, { token: owner.token, variables: { id: doc.id } });
      expect(r.errors).toBeUndefined();
      const rest = (await api(t.baseUrl, 'GET', `/api/documents/${doc.id}`, { token: owner.token })).body.document;
      expect(r.data.document).toEqual({ id: doc.id, format: rest.format, extraction: rest.extraction });
    }
  });

  it('answer a question only the scan answers: the contract first, citing the page that says it', async () => {
    const warranty = await t.services.search.search(Actor.system(), project.id, 'how many years of warranty do the chairs carry');
    expect(warranty[0]).toMatchObject({ documentName: 'Supply agreement (signed).pdf', pageNumber: 2 });
    const law = await t.services.search.search(Actor.system(), project.id, 'which court hears disputes about the agreement');
    expect(law[0]).toMatchObject({ documentName: 'Supply agreement (signed).pdf', pageNumber: 3 });
    const canteen = await t.services.search.search(Actor.system(), project.id, 'where are hot meals served during the canteen renovation');
    expect(canteen[0]).toMatchObject({ documentName: 'IMG_0412.png', pageNumber: 1 });
    expect(canteen[0].text).toMatch(/marigold meeting room/i);
  });
});
