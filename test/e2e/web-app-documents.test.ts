import http from 'node:http';
import { chatFactories, factories } from '../support/factories';
import { makePdf } from '../support/pdf';
import { uploadFiles } from '../support/documents';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import { createTestApp, TestApp } from '../support/test-app';
import { axeViolations, openApp, signIn, until, type AppPage } from '../support/web-app-page';

/**
 * The documents screen in a real Chromium against the real server, its ingestion workers and the
 * stub's embeddings: the upload queue under 429 + Retry-After, live progress through reading and
 * embedding, a failed document's error text, delete.
 */
const PASSWORD = 'web-app-pass-1';

let t: TestApp;
let stub: OpenAiStub;
const opened: AppPage[] = [];

beforeAll(async () => {
  stub = await startOpenAiStub({ deltas: ['Fine', ' answer', '.'] });
  // one upload at a time per user, so a second one is answered 429; PDFs of at most 2 pages
  // and passages embedded by the stub after they are read (the documents screen shows that phase too)
  t = await createTestApp({
    workers: true,
    env: {
      UPLOAD_CONCURRENCY_PER_USER: '1',
      PDF_MAX_PAGES: '2',
      EMBEDDING_BASE_URL: stub.url,
      EMBEDDING_API_KEY: 'stub-key',
      EMBEDDING_MODEL: 'stub-embed',
      EMBEDDING_SWEEP_SECONDS: '1',
      EMBEDDING_TIMEOUT_MS: '30000',
    },
  });
  await factories(t.orm, t.services).superadmin();
  await chatFactories(t.orm, t.services).makeProvider({ baseUrl: stub.url, slug: 'stub', models: ['stub-model'], isDefault: true });
}, 60_000);

afterEach(async () => {
  for (const a of opened.splice(0)) {
    expect(a.foreignRequests).toEqual([]);
    await a.close();
  }
});

afterAll(async () => {
  await t?.close();
  await stub?.close();
});

async function openAs(email: string, path = '/'): Promise<AppPage> {
  const a = await openApp(`${t.baseUrl}${path}`);
  opened.push(a);
  await signIn(a.page, email, PASSWORD);
  return a;
}

interface HeldUpload {
  /** The status once the server answered (the hold lost the slot to another request), else null. */
  answered(): number | null;
  finish(): Promise<void>;
  drop(): void;
}

/** An upload whose body is not finished: once authorised it holds one of the user's upload slots. */
function startHeldUpload(token: string, projectId: string): HeldUpload {
  const boundary = 'held-slot-boundary';
  const req = http.request(`${t.baseUrl}/api/projects/${projectId}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  let status: number | null = null;
  const done = new Promise<number>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve((status = res.statusCode ?? 0)));
    });
    req.on('error', () => resolve(0));
  });
  req.write(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="held.md"\r\nContent-Type: text/markdown\r\n\r\n# Held\n`,
  );
  return {
    answered: () => status,
    finish: async () => {
      req.end(`\nheld upload body\r\n--${boundary}--\r\n`);
      expect(await done).toBe(202);
    },
    drop: () => req.destroy(),
  };
}

/**
 * Holds the user's only upload slot (UPLOAD_CONCURRENCY_PER_USER=1) until `finish`: confirmed by a
 * probe upload, to a project of its own, being refused 429. A hold that lost the race is retried.
 */
async function holdUploadSlot(token: string, projectId: string, probeProjectId: string): Promise<HeldUpload> {
  for (let attempt = 1; attempt <= 5; attempt++) {
    const held = startHeldUpload(token, projectId);
    await new Promise((r) => setTimeout(r, 300)); // authorised, holding the slot
    const probe = await uploadFiles(t.baseUrl, token, probeProjectId, [{ name: 'probe.md', content: '# probe' }]);
    if (probe.status === 429 && held.answered() === null) return held;
    held.drop();
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('could not hold the upload slot');
}

describe('web app: documents', () => {
  it('queues uploads through 429 + Retry-After, then shows a failed document with its error text', async () => {
    const f = factories(t.orm, t.services);
    const owner = await f.makeUser({ platformRole: 'admin', password: PASSWORD });
    const project = await f.makeProject({ owner, name: 'Queue project' });
    const slot = await holdUploadSlot(owner.token, project.id, (await f.makeProject({ owner })).id);

    const { page } = await openAs(owner.email, `/projects/${project.id}/documents`);
    const statuses: number[] = [];
    page.on('response', (r) => {
      if (r.request().method() === 'POST' && r.url().endsWith(`/api/projects/${project.id}/documents`)) statuses.push(r.status());
    });
    await page.locator('input[type=file]').setInputFiles([
      { name: 'one.md', mimeType: 'text/markdown', buffer: Buffer.from('# One\n\nThe first file of the queue.\n') },
      // three pages, over PDF_MAX_PAGES: it fails, and says why
      {
        name: 'long.pdf',
        mimeType: 'application/pdf',
        buffer: makePdf([{ paragraphs: ['Page one.'] }, { paragraphs: ['Page two.'] }, { paragraphs: ['Page three.'] }]),
      },
    ]);
    await page
      .getByText(/Server busy: trying again in \d s/)
      .first()
      .waitFor({ timeout: 20_000 });
    expect(statuses).toContain(429);
    expect(await axeViolations(page)).toEqual([]);

    stub.setEmbeddings({ delayMs: 2500 }); // slow enough for the embedding phase to be seen
    await slot.finish();
    const embedding = page.locator('tr', { hasText: 'one.md' }).getByText(/Embedding/);
    await embedding.waitFor({ timeout: 30_000 });
    stub.setEmbeddings({});
    const rows = page.locator('.doc-table tbody tr');
    await until(() => rows.count(), 2, 30_000);
    await page.locator('tr', { hasText: 'one.md' }).locator('.ok-badge', { hasText: 'Ready' }).waitFor({ timeout: 30_000 });
    const failed = page.locator('tr', { hasText: 'long.pdf' });
    await failed.locator('.badge', { hasText: 'Failed' }).waitFor({ timeout: 30_000 });
    expect(await failed.locator('.error-text').innerText()).toMatch(/3 pages, more than the limit of 2/);
    expect(statuses.filter((s) => s === 202)).toHaveLength(2);

    // delete, after a confirmation
    await page.getByRole('button', { name: 'Delete long.pdf' }).click();
    await page.getByRole('button', { name: 'Confirm deleting long.pdf' }).click();
    await failed.waitFor({ state: 'detached' });
  }, 120_000);
});
