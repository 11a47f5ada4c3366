import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Project } from '../../src/entities';
import { Actor } from '../../src/access/actor';
import { ingestFiles } from '../support/documents';
import { factories } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Issue 34, sections 3–5: spreadsheets, slides, e-books, OpenDocument and RTF uploaded with the
 * types a browser sends become ready, and a question only one of them answers finds it first,
 * citing the right sheet or slide as its page.
 */
let t: TestApp;
let project: Project;
let docs: Array<{ name: string; status: string; error: string | null; format?: string; pageCount: number }>;

const DIR = path.join(__dirname, '../fixtures/formats/office');
const FILES: Array<[string, string]> = [
  ['budget.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ['budget.ods', 'application/vnd.oasis.opendocument.spreadsheet'],
  ['contacts.csv', 'text/csv'],
  ['sales.tsv', 'text/tab-separated-values'],
  ['slides.pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
  ['slides.odp', 'application/vnd.oasis.opendocument.presentation'],
  ['policy.odt', 'application/vnd.oasis.opendocument.text'],
  ['book.epub', 'application/epub+zip'],
  ['canteen.rtf', 'application/rtf'],
];

/** Files holding what another file holds: read in a project of their own. */
const OWN_PROJECT = ['budget.ods', 'slides.odp'];

beforeAll(async () => {
  t = await createTestApp({ workers: true });
  const f = factories(t.orm, t.services);
  const owner = await f.makeUser({ platformRole: 'admin' });
  project = await f.makeProject({ owner });
  // the XLSX and ODS hold the same budget, the PPTX and ODP the same deck: the ODS and ODP go to a project of their own below
  const files = FILES.filter(([name]) => !OWN_PROJECT.includes(name)).map(([name, type]) => ({
    name,
    type,
    content: readFileSync(path.join(DIR, name)),
  }));
  docs = await ingestFiles(t.baseUrl, owner.token, project.id, files, { fields: { language: 'en' }, timeoutMs: 90_000 });
}, 150_000);
afterAll(async () => t?.close());

it('every file uploaded with its browser type becomes ready, with a page per sheet or slide', () => {
  expect(docs.map((d) => ({ name: d.name, status: d.status, error: d.error }))).toEqual(
    FILES.filter(([name]) => !OWN_PROJECT.includes(name)).map(([name]) => ({ name, status: 'ready', error: null })),
  );
  const pages = Object.fromEntries(docs.map((d) => [d.name, d.pageCount]));
  expect(pages).toMatchObject({ 'budget.xlsx': 2, 'contacts.csv': 1, 'sales.tsv': 1, 'slides.pptx': 4, 'policy.odt': 1 });
});

/** A question only one file answers, the file, the page (sheet, slide) it must cite, and a phrase of the passage. */
const QUESTIONS: Array<[string, string, number, string]> = [
  ['How much is budgeted for cloud hosting?', 'budget.xlsx', 1, 'Amount EUR: 126500'],
  ['Who travels to the conference in Valencia?', 'budget.xlsx', 2, 'Traveller: Ines Moreau'],
  ["What is Chidi Okafor's phone extension?", 'contacts.csv', 1, 'Phone extension: 4502'],
  ['How many new customers did Iberia bring?', 'sales.tsv', 1, 'New customers: 17'],
  ['When does Krane & Sons need the crate count?', 'slides.pptx', 3, 'Notes: The removal company Krane'],
  ['What is the internet allowance?', 'policy.odt', 1, 'Internet | 30 euros | monthly'],
  ['Who wound the lighthouse clockwork during the storm?', 'book.epub', 1, 'Elin'],
  ['Where is lunch served during the canteen renovation?', 'canteen.rtf', 1, 'meeting room Birch'],
];

it.each(QUESTIONS)('"%s" finds %s first, citing page %i', async (question, name, page, phrase) => {
  const hits = await t.services.search.search(Actor.system(), project.id, question);
  expect(hits[0]).toMatchObject({ documentName: name, pageNumber: page });
  expect(hits[0].text).toContain(phrase);
});

it('an ODS and an ODP are cited by sheet and slide too (speaker notes on their slide)', async () => {
  const f = factories(t.orm, t.services);
  const owner = await f.makeUser();
  const other = await f.makeProject({ owner });
  const [ods, odp] = await ingestFiles(
    t.baseUrl,
    owner.token,
    other.id,
    FILES.filter(([name]) => OWN_PROJECT.includes(name)).map(([name, type]) => ({
      name,
      type,
      content: readFileSync(path.join(DIR, name)),
    })),
    { fields: { language: 'en' } },
  );
  expect([ods, odp].map((d) => [d.status, d.pageCount])).toEqual([
    ['ready', 2],
    ['ready', 4],
  ]);
  const lease = await t.services.search.search(Actor.system(), other.id, 'Can the Harbour Street lease be extended?');
  expect(lease[0]).toMatchObject({ documentName: 'slides.odp', pageNumber: 2 });
  const oslo = await t.services.search.search(Actor.system(), other.id, 'Who visits the customer in Oslo?');
  expect(oslo[0]).toMatchObject({ documentName: 'budget.ods', pageNumber: 2 });
  expect(oslo[0].text).toContain('Traveller: Tomas Berg');
});
