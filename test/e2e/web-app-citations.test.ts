import type { Project, User } from '../../src/entities';
import { ingestFiles, waitForDocument } from '../support/documents';
import { makeDocx } from '../support/docx';
import { chatFactories, factories } from '../support/factories';
import { api } from '../support/http';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import { makePdf } from '../support/pdf';
import { createTestApp, TestApp } from '../support/test-app';
import { openApp, signIn, type AppPage } from '../support/web-app-page';

/**
 * Issue 35 in a real Chromium: a citation opens the real page of the real document (pdf.js from
 * our own origin) with the cited words in a <mark>, again after a reload; a DOCX citation opens the
 * reader view; a deleted document's citation says so; an uploaded HTML file never runs on our origin.
 */
const PASSWORD = 'citations-pass-1';
const QUESTION = 'How long does the warranty last, and how do I descale the kettle?';
const ANSWER = ['The warranty lasts three years [1] ', 'and the kettle is descaled monthly [2]. ', 'See also [9].'];

let t: TestApp;
let stub: OpenAiStub;
let owner: User & { token: string };
let project: Project;
let docs: Array<{ id: string; name: string }>;
const opened: AppPage[] = [];

const pdf = () =>
  makePdf([
    { paragraphs: ['Parking is free for staff in the north lot.'] },
    {
      paragraphs: [
        'The warranty lasts three years from the date of purchase.',
        'Every appliance sold by the company carries this warranty on parts and labour and it',
      ],
    },
    { paragraphs: ['also covers the shipping costs in both directions when a repair is needed.'] },
  ]);

beforeAll(async () => {
  stub = await startOpenAiStub({ deltas: ANSWER });
  t = await createTestApp({ workers: true });
  const f = factories(t.orm, t.services);
  await f.superadmin(); // signing in needs a bootstrapped deployment
  owner = await f.makeUser({ password: PASSWORD });
  project = await f.makeProject({ owner, name: 'Appliances' });
  await chatFactories(t.orm, t.services).makeProvider({ baseUrl: stub.url, slug: 'stub', models: ['stub-model'], isDefault: true });
  docs = await ingestFiles(t.baseUrl, owner.token, project.id, [
    { name: 'handbook.pdf', content: pdf(), type: 'application/pdf' },
    {
      name: 'kettle.docx',
      content: await makeDocx([
        { text: 'Storage', heading: 1 },
        ...Array.from({ length: 30 }, (_, i) => ({
          text: `Storage note ${i + 1}: keep the base dry and the cable loosely coiled, away from the hob and the sink.`,
        })),
        { text: 'Kettle care', heading: 1 },
        { text: 'Descale the kettle monthly with citric acid.' },
        { text: 'The last line of the kettle manual.' },
      ]),
      type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    },
  ]);
  expect(docs.map((d: any) => d.status)).toEqual(['ready', 'ready']);
}, 90_000);

afterEach(async () => {
  for (const a of opened.splice(0)) {
    expect(a.foreignRequests).toEqual([]);
    expect(a.consoleErrors.filter((e) => /Content Security Policy|pageerror/.test(e))).toEqual([]);
    await a.close();
  }
});

afterAll(async () => {
  await t?.close();
  await stub?.close();
});

async function openAs(path: string): Promise<AppPage> {
  const a = await openApp(`${t.baseUrl}${path}`);
  opened.push(a);
  await signIn(a.page, owner.email, PASSWORD);
  return a;
}

it('a citation opens the PDF page with the cited words marked, page 3 marks the rest of the passage, and a reload does it again', async () => {
  const { page } = await openAs(`/projects/${project.id}`);
  await page.getByLabel('Your question').fill(QUESTION);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  const answer = page.locator('.turn.assistant').last();
  await answer.locator('.answer-text', { hasText: 'See also' }).waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' });
  // [9] has no source: plain text, not a link
  expect(await answer.locator('.answer-text').innerText()).toContain('[9]');
  expect(await answer.locator('a.cite', { hasText: '[9]' }).count()).toBe(0);

  const checkPdfCitation = async () => {
    const link = answer
      .locator('a.cite')
      .filter({ has: page.locator('xpath=self::*[contains(@aria-label, "handbook.pdf")]') })
      .first();
    const label = (await link.getAttribute('aria-label'))!;
    const n = /Source (\d+)/.exec(label)![1];
    await link.click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: `[${n}] handbook.pdf` }).waitFor();
    await dialog.getByText('Page 2 of 3').waitFor({ timeout: 20_000 });
    await dialog.locator('mark', { hasText: 'The warranty lasts three years from the date of purchase.' }).waitFor();
    // the page itself is drawn: its canvas holds dark pixels (text)
    await page.waitForFunction(`(() => {
      const c = document.querySelector('dialog canvas');
      if (!c || !c.width) return false;
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      for (let i = 0; i < d.length; i += 4) if (d[i] < 100 && d[i + 3] > 0) return true;
      return false;
    })()`);
    // the highlight lies over the text, near the top of the page
    const box = await dialog.locator('.cited-box').first().boundingBox();
    const canvas = await dialog.locator('canvas').boundingBox();
    expect(box!.y - canvas!.y).toBeLessThan(canvas!.height * 0.2);
    // the passage runs on to page 3, where the rest of it is marked
    await dialog.getByRole('button', { name: 'Next page' }).click();
    await dialog.getByText('Page 3 of 3').waitFor();
    await dialog.locator('mark', { hasText: 'also covers the shipping costs' }).waitFor();
    // Escape closes it, and focus returns to the citation
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate<string | null>(`document.activeElement?.getAttribute('aria-label') ?? null`)).toBe(label);
  };
  await checkPdfCitation();

  // the DOCX citation: the reader view of the whole converted text (GET /documents/:id/text), the
  // passage marked inside its section and scrolled into view
  await answer.locator('a.cite[aria-label*="kettle.docx"]').first().click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('heading', { name: /kettle\.docx/ }).waitFor();
  const mark = dialog.locator('.reader-text mark', { hasText: 'Descale the kettle monthly' });
  await mark.waitFor();
  const reader = dialog.locator('.reader-text');
  // the whole text, not the chunk's surrounding paragraphs: the first note lies far outside those
  const [kettle] = await t.orm.em
    .fork()
    .getConnection()
    .execute(`select context from chunks where document_id = ? and text like '%Descale the kettle%'`, [docs[1].id]);
  expect(kettle.context).not.toContain('Storage note 1:');
  const whole = await reader.innerText();
  for (const part of ['Storage note 1:', 'Storage note 30:', 'Kettle care', 'The last line of the kettle manual.'])
    expect(whole).toContain(part);
  expect(await reader.locator('.reader-heading').allInnerTexts()).toContain('Storage');
  const [inView, frame] = [await mark.boundingBox(), await reader.boundingBox()];
  expect(inView!.y).toBeGreaterThanOrEqual(frame!.y - 1);
  expect(inView!.y).toBeLessThan(frame!.y + frame!.height);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });

  // reload the conversation: the stored citations open the same places
  await page.reload();
  await answer.locator('.answer-text', { hasText: 'See also' }).waitFor({ timeout: 20_000 });
  await checkPdfCitation();

  // the handbook is analysed again (new chunks): the stored citation still opens the same page and marks the same words
  expect((await api(t.baseUrl, 'POST', `/api/documents/${docs[0].id}/reindex`, { token: owner.token })).status).toBe(202);
  await waitForDocument(t.baseUrl, owner.token, docs[0].id);
  await page.reload();
  await answer.locator('.answer-text', { hasText: 'See also' }).waitFor({ timeout: 20_000 });
  await checkPdfCitation();
});

it('a question the documents hold nothing on gets no source, and the answer says no passage matched', async () => {
  const { page } = await openAs(`/projects/${project.id}`);
  await page.getByLabel('Your question').fill('Zebras and xylophones?');
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  const answer = page.locator('.turn.assistant').last();
  await answer.getByText(/No passage in this project.s documents matched/).waitFor({ timeout: 30_000 });
  await answer.locator('.answer-text', { hasText: 'See also' }).waitFor({ timeout: 30_000 });
  // the model's markers have no source to point at: plain text
  expect(await answer.locator('a.cite').count()).toBe(0);
}, 90_000);

it('the deep link opens the same view, and a deleted document says so', async () => {
  const [handbook] = docs;
  const [{ id: chunkId }] = await t.orm.em
    .fork()
    .getConnection()
    .execute(`select id from chunks where document_id = ? and text like '%three years%' limit 1`, [handbook.id]);
  const { page } = await openAs(`/projects/${project.id}/documents/${handbook.id}?page=2&chunk=${chunkId}`);
  await page.getByText('Page 2 of 3').waitFor({ timeout: 20_000 });
  await page.locator('mark', { hasText: 'The warranty lasts three years' }).waitFor();
  await page.getByRole('button', { name: 'Previous page' }).click();
  await page.getByText('Page 1 of 3').waitFor();
  expect(new URL(page.url()).searchParams.get('page')).toBe('1');

  const other = await factories(t.orm, t.services).makeProject({ owner });
  const [gone] = await ingestFiles(t.baseUrl, owner.token, other.id, [{ name: 'old.txt', content: 'Old text.', type: 'text/plain' }]);
  expect((await api(t.baseUrl, 'DELETE', `/api/documents/${gone.id}`, { token: owner.token })).status).toBe(200);
  await page.goto(`${t.baseUrl}/projects/${other.id}/documents/${gone.id}?page=1`);
  await page.getByText('This document was deleted').waitFor({ timeout: 20_000 });
});

it("an uploaded HTML file with a script, opened from the web app's origin, runs nothing", async () => {
  const html = `<!doctype html><html><body><p>Hi</p><script>fetch('/api/pwned-by-upload'); try { top.document.body.dataset.pwned = '1' } catch (e) {}</script></body></html>`;
  const [doc] = await ingestFiles(t.baseUrl, owner.token, project.id, [{ name: 'evil.html', content: html, type: 'text/html' }]);
  const a = await openAs(`/projects/${project.id}`);
  const seen: string[] = [];
  a.page.on('request', (r) => seen.push(r.url()));
  await a.page.context().setExtraHTTPHeaders({ authorization: `Bearer ${owner.token}` });
  // framed in the app, and opened as a page of its own
  await a.page.evaluate(
    `(() => { const f = document.createElement('iframe'); f.src = ${JSON.stringify(`/api/documents/${doc.id}/original`)}; document.body.append(f); })()`,
  );
  const direct = await a.page.context().newPage();
  await direct.goto(`${t.baseUrl}/api/documents/${doc.id}/original`).catch(() => undefined);
  // what the file asked for would have been requested by now: the original itself was
  await a.page.waitForTimeout(500);
  expect(seen.some((u) => u.includes(`/api/documents/${doc.id}/original`))).toBe(true);
  expect(seen.filter((u) => u.includes('pwned'))).toEqual([]);
  expect(await a.page.evaluate<string | null>(`document.body.dataset.pwned ?? null`)).toBeNull();
  await direct.close();
});
