import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Actor } from '../../src/access/actor';
import type { Project, User } from '../../src/entities';
import { ingestFiles } from '../support/documents';
import { factories } from '../support/factories';
import { api } from '../support/http';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Issue 34, mail: an e-mail uploaded as a browser uploads it (EML as message/rfc822, an Outlook
 * message as application/vnd.ms-outlook) becomes ready, its detected format is on the wire (an
 * OLE2 file read as an Outlook message says `msg`), and its attachment's text is found under it.
 */
type TestUser = User & { token: string };

let t: TestApp;
let owner: TestUser;
let project: Project;
let docs: Array<{ id: string; name: string; status: string; error: string | null; pageCount: number }>;

const fixture = (name: string) => readFileSync(path.join(__dirname, '../fixtures/formats/mail', name));

beforeAll(async () => {
  t = await createTestApp({ workers: true });
  const f = factories(t.orm, t.services);
  owner = await f.makeUser({ platformRole: 'admin' });
  project = await f.makeProject({ owner });
  docs = await ingestFiles(t.baseUrl, owner.token, project.id, [
    { name: 'lease-renewal.eml', content: fixture('lease-renewal.eml'), type: 'message/rfc822' },
    { name: 'fire-drill.msg', content: fixture('fire-drill.msg'), type: 'application/vnd.ms-outlook' },
    // neighbours on the same topics, so that "first" means something
    {
      name: 'warehouses.txt',
      content: 'Our warehouses are in Lisbon and Porto. The Lisbon warehouse has six loading bays; leases are handled by facilities.',
      type: 'text/plain',
    },
    {
      name: 'safety.txt',
      content: 'Fire extinguishers are checked every year. The fire drill schedule is set by facilities.',
      type: 'text/plain',
    },
  ]);
}, 120_000);
afterAll(async () => t?.close());

const top = async (question: string) => (await t.services.search.search(Actor.system(), project.id, question, { topK: 3 }))[0];

it('an EML uploaded as message/rfc822 and an Outlook MSG become ready with their pages', () => {
  expect(docs.map((d) => [d.name, d.status, d.error, d.pageCount])).toEqual([
    ['lease-renewal.eml', 'ready', null, 2],
    ['fire-drill.msg', 'ready', null, 2],
    ['warehouses.txt', 'ready', null, 1],
    ['safety.txt', 'ready', null, 1],
  ]);
});

it('GET /api/documents/:id shows the detected format: eml, and msg for the OLE2 file that is an Outlook message', async () => {
  const formats = await Promise.all(
    docs.slice(0, 2).map(async (d) => (await api(t.baseUrl, 'GET', `/api/documents/${d.id}`, { token: owner.token })).body.document.format),
  );
  expect(formats).toEqual(['eml', 'msg']);
});

it("a question only the EML's DOCX attachment answers ranks the mail first, on the attachment's page", async () => {
  expect(await top('When does the Lisbon warehouse lease renew, and what is the monthly rent?')).toMatchObject({
    documentName: 'lease-renewal.eml',
    pageNumber: 2,
  });
});

it("a question only the MSG's attachment answers ranks the message first", async () => {
  expect(await top('Where does building D gather during the fire drill?')).toMatchObject({ documentName: 'fire-drill.msg', pageNumber: 2 });
});

it("the message's own header block and body are found too", async () => {
  expect(await top('Who did Marta Kovač copy on the fire drill message?')).toMatchObject({ documentName: 'fire-drill.msg', pageNumber: 1 });
});
