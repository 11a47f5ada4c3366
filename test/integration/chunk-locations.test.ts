import { ANALYSIS_VERSION } from '../../src/services/documents.service';
import type { Project, User } from '../../src/entities';
import { ingestFiles } from '../support/documents';
import { makeDocx } from '../support/docx';
import { factories } from '../support/factories';
import { api } from '../support/http';
import { makePdf } from '../support/pdf';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Issue 35: GET /api/chat/chunks/:chunkId/source adds `locations` (where the chunk lies in the
 * original), keeping the spec's fields; documents indexed before are re-analysed in the background.
 */
let t: TestApp;
let f: ReturnType<typeof factories>;
let owner: User & { token: string };
let project: Project;

const exec = (sql: string, params: unknown[] = []): Promise<any[]> => t.orm.em.fork().getConnection().execute(sql, params);
const chunkWith = async (documentId: string, words: string): Promise<string> =>
  (await exec(`select id from chunks where document_id = ? and text like ? order by ordinal limit 1`, [documentId, `%${words}%`]))[0].id;
const source = (chunkId: string) => api(t.baseUrl, 'GET', `/api/chat/chunks/${chunkId}/source`, { token: owner.token });

const pdf = () =>
  makePdf([
    { paragraphs: ['Parking is free for staff in the north lot.'] },
    { paragraphs: ['The cafeteria opens at eight and closes at three on weekdays.'] },
    { paragraphs: ['Returns are accepted within fourteen days of delivery.'] },
  ]);
const docx = () =>
  makeDocx([{ text: 'Travel policy', heading: 1 }, { text: 'Trains are booked in second class for journeys under four hours.' }]);

beforeAll(async () => {
  t = await createTestApp({ workers: true });
  f = factories(t.orm, t.services);
  owner = await f.makeUser();
  project = await f.makeProject({ owner });
}, 60_000);
afterAll(async () => t?.close());

it("a PDF chunk's source gives its page and the boxes of its text, beside the spec's fields", async () => {
  const [doc] = await ingestFiles(t.baseUrl, owner.token, project.id, [{ name: 'handbook.pdf', content: pdf(), type: 'application/pdf' }]);
  expect(doc.status).toBe('ready');
  const res = await source(await chunkWith(doc.id, 'cafeteria'));
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    documentId: doc.id,
    documentName: 'handbook.pdf',
    pageNumber: 2,
    snippet: expect.stringContaining('cafeteria'),
  });
  expect(res.body.locations).toHaveLength(1);
  const [where] = res.body.locations;
  expect(where).toMatchObject({ page: 2, start: 0, text: res.body.snippet });
  expect(where.boxes.length).toBeGreaterThan(0);
  const [box] = where.boxes;
  // near the top left of the page (the test PDF's margin is 56 pt of 612 × 792)
  expect(box.x).toBeCloseTo(56 / 612, 2);
  expect(box.y).toBeGreaterThan(0.05);
  expect(box.y).toBeLessThan(0.1);
});

it("a DOCX chunk's source gives character offsets into its converted page, without boxes", async () => {
  const [doc] = await ingestFiles(t.baseUrl, owner.token, project.id, [
    { name: 'travel.docx', content: await docx(), type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
  ]);
  const res = await source(await chunkWith(doc.id, 'second class'));
  expect(res.status).toBe(200);
  expect(res.body.locations).toHaveLength(1);
  expect(res.body.locations[0]).toEqual({ page: 1, start: expect.any(Number), end: expect.any(Number), text: res.body.snippet });
  expect(res.body.locations[0].end - res.body.locations[0].start).toBeGreaterThanOrEqual(res.body.snippet.length);
});

it('documents indexed before locations answer null (the snippet stands) until the background re-analysis records them', async () => {
  const other = await f.makeProject({ owner });
  const [doc] = await ingestFiles(t.baseUrl, owner.token, other.id, [{ name: 'old.pdf', content: pdf(), type: 'application/pdf' }]);
  await exec(`update chunks set locations = null where document_id = ?`, [doc.id]);
  await exec(`update documents set analysis_version = ? where id = ?`, [ANALYSIS_VERSION - 1, doc.id]);
  const before = await source(await chunkWith(doc.id, 'Returns'));
  expect(before.status).toBe(200);
  expect(before.body.locations).toBeNull();
  expect(before.body.snippet).toContain('Returns are accepted');

  await t.services.documents.ingestQueue.enqueueReanalysis();
  t.services.documents.ingestQueue.nudge();
  const until = Date.now() + 60_000;
  while ((await exec(`select analysis_version from documents where id = ?`, [doc.id]))[0].analysis_version < ANALYSIS_VERSION) {
    if (Date.now() > until) throw new Error('the document was not re-analysed');
    await new Promise((r) => setTimeout(r, 100));
  }
  const after = await source(await chunkWith(doc.id, 'Returns'));
  expect(after.body.locations).toEqual([expect.objectContaining({ page: 3, boxes: expect.any(Array) })]);
});
