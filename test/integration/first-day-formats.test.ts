import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Project } from '../../src/entities';
import { Actor } from '../../src/access/actor';
import { gql } from '../support/graphql';
import { client } from '../support/http';
import { uploadFiles, waitForDocument } from '../support/documents';
import { factories } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Issue 34's "done when": a new user drops the files an organisation keeps into a project — a
 * scanned contract, a photographed notice, a budget spreadsheet, a slide deck, an e-book, an ODT,
 * an RTF, an e-mail and a CSV export (test/fixtures/formats/first-day, made with real tools: see its
 * SOURCES.md) — each with the type a browser sends. Every one becomes ready with its detected
 * format, and a question only one of them answers finds it first, on the right page, sheet or slide.
 */
const DIR = path.join(__dirname, '../fixtures/formats/first-day');

const FILES = [
  { name: 'contract-scan.pdf', type: 'application/pdf', format: 'pdf', method: 'ocr' },
  { name: 'notice-photo.png', type: 'image/png', format: 'png', method: 'ocr' },
  { name: 'budget.xlsx', type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', format: 'xlsx', method: 'text' },
  {
    name: 'slides.pptx',
    type: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    format: 'pptx',
    method: 'text',
  },
  { name: 'book.epub', type: 'application/epub+zip', format: 'epub', method: 'text' },
  { name: 'policy.odt', type: 'application/vnd.oasis.opendocument.text', format: 'odt', method: 'text' },
  { name: 'canteen.rtf', type: 'application/rtf', format: 'rtf', method: 'text' },
  { name: 'parking.eml', type: 'message/rfc822', format: 'eml', method: 'text' },
  { name: 'visitors.csv', type: 'text/csv', format: 'csv', method: 'text' },
] as const;

/** A question only one file answers, that file, and the page (sheet, slide) holding the answer. */
const QUESTIONS: Array<{ question: string; file: string; page: number }> = [
  { question: 'How many days does the supplier have to deliver the turbines to Aalborg?', file: 'contract-scan.pdf', page: 2 },
  { question: 'When is the north stairwell closed for painting?', file: 'notice-photo.png', page: 1 },
  { question: 'How much money is budgeted for the forklift?', file: 'budget.xlsx', page: 2 },
  { question: 'On which day do new hires get their security badge?', file: 'slides.pptx', page: 3 },
  { question: 'Where did the lighthouse keeper record the storm of 1887?', file: 'book.epub', page: 1 },
  { question: 'How many working days per year may employees work abroad?', file: 'policy.odt', page: 1 },
  { question: 'Which day is vegetarian lasagne served in the canteen?', file: 'canteen.rtf', page: 1 },
  { question: 'Where and by when must parking permits be renewed?', file: 'parking.eml', page: 1 },
  { question: 'Which company is visitor badge V-117 from?', file: 'visitors.csv', page: 1 },
];

let t: TestApp;
let project: Project;
let token: string;
const docs = new Map<string, { id: string; status: string; error: string | null; format: string | null; extraction: any }>();

beforeAll(async () => {
  t = await createTestApp({ workers: true });
  const f = factories(t.orm, t.services);
  const owner = await f.makeUser({ platformRole: 'none' });
  token = owner.token;
  project = await f.makeProject({ owner });
  const res = await uploadFiles(
    t.baseUrl,
    token,
    project.id,
    FILES.map((file) => ({ name: file.name, content: readFileSync(path.join(DIR, file.name)), type: file.type })),
  );
  expect(res.status).toBe(202);
  for (const d of res.body.documents as Array<{ id: string; name: string }>)
    docs.set(d.name, await waitForDocument(t.baseUrl, token, d.id, 240_000));
}, 300_000);
afterAll(async () => t?.close());

it('reads every everyday file to ready, with its detected format and how its pages were read', () => {
  const seen = FILES.map((file) => {
    const d = docs.get(file.name)!;
    return { name: file.name, status: d.status, error: d.error, format: d.format, method: d.extraction?.method };
  });
  expect(seen).toEqual(FILES.map((file) => ({ name: file.name, status: 'ready', error: null, format: file.format, method: file.method })));
  // the scan's pages were each recognised, with a confidence worth trusting
  const scan = docs.get('contract-scan.pdf')!.extraction;
  expect(scan).toMatchObject({ method: 'ocr', ocrPages: 3 });
  expect(scan.ocrConfidence).toBeGreaterThan(70);
});

it('finds, for a question only one file answers, that file first on the right page, sheet or slide', async () => {
  const found = [];
  for (const q of QUESTIONS) {
    const [top] = await t.services.search.search(Actor.system(), project.id, q.question, { topK: 3 });
    found.push({ question: q.question, file: top?.documentName, page: top?.pageNumber });
  }
  expect(found).toEqual(QUESTIONS.map((q) => ({ question: q.question, file: q.file, page: q.page })));
});

it('shows the format and the OCR pages on GET /api/documents/:id and the GraphQL Document alike', async () => {
  const id = docs.get('contract-scan.pdf')!.id;
  const rest = (await client(t.baseUrl, token).get(`/api/documents/${id}`)).body.document;
  expect(rest.format).toBe('pdf');
  expect(rest.extraction.pages).toEqual([1, 2, 3].map((n) => ({ from: n, to: n, method: 'ocr', confidence: expect.any(Number) })));
  const graph = await gql(
    t.baseUrl,
    `query($id: ID!) { document(id: $id) { format extraction { method ocrPages ocrConfidence pages { from to method confidence } } } }`,
    { token, variables: { id } },
  );
  expect(graph.errors).toBeUndefined();
  expect(graph.data.document).toEqual({ format: rest.format, extraction: rest.extraction });
});
