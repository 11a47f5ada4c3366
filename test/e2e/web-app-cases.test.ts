import { Actor } from '../../src/access/actor';
import { chatFactories, factories } from '../support/factories';
import { uploadFiles, waitForDocument } from '../support/documents';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import { startSearchStub } from '../support/search-stub';
import { createTestApp, TestApp } from '../support/test-app';
import { axeViolations, openApp, signIn, until, type AppPage } from '../support/web-app-page';
import type { Page } from 'playwright-core';

/**
 * The web app's other cases in a real Chromium: a stream error and Stop, the web mode and model
 * choice, what each access tier sees, and keyboard-only use.
 */
const PASSWORD = 'web-app-pass-1';

let t: TestApp;
let stub: OpenAiStub;
const opened: AppPage[] = [];

beforeAll(async () => {
  stub = await startOpenAiStub({ deltas: ['Fine', ' answer', '.'] });
  t = await createTestApp({ workers: true });
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

describe('web app: asking', () => {
  it('shows a stream error in words, and Stop aborts the answer and the upstream call', async () => {
    const f = factories(t.orm, t.services);
    const owner = await f.makeUser({ platformRole: 'admin', password: PASSWORD });
    const project = await f.makeProject({ owner, name: 'Ask project' });
    const { page } = await openAs(owner.email, `/projects/${project.id}`);

    stub.once({ status: 500, errorBody: { error: { message: 'model overloaded' } } });
    await page.getByLabel('Your question').fill('Will this fail?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const failed = page.locator('.turn.assistant').last();
    await failed.getByRole('alert').filter({ hasText: 'The language model could not answer' }).waitFor({ timeout: 20_000 });

    stub.once({ deltas: ['Slowly', ' then', ' more', ' and', ' more'], deltaDelayMs: 1500 });
    const before = stub.requests.length;
    await page.getByLabel('Your question').fill('Take your time');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    await page.locator('.turn.assistant').last().locator('.answer-text', { hasText: 'Slowly' }).waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.locator('.turn.assistant').last().getByText('You stopped this answer.').waitFor();
    const upstream = stub.requests.slice(before).find((r) => r.body?.stream)!;
    await upstream.closed;
    expect(upstream.aborted).toBe(true);
  }, 90_000);
});

describe('web app: modes and models', () => {
  it('offers the web mode where the server has web search, and a model choice; a web citation shows its result', async () => {
    const search = await startSearchStub({
      apiKey: 'search-key',
      results: [{ title: 'Kettle recall notice', url: 'https://example.org/recall', content: 'The 2024 kettle model is recalled.' }],
    });
    const withSearch = await createTestApp({ env: { SEARCH_API_URL: search.url, SEARCH_API_KEY: 'search-key' } });
    try {
      const f = factories(withSearch.orm, withSearch.services);
      await f.superadmin();
      await chatFactories(withSearch.orm, withSearch.services).makeProvider({
        baseUrl: stub.url,
        slug: 'two-models',
        models: ['small-model', 'large-model'],
        isDefault: true,
      });
      const owner = await f.makeUser({ platformRole: 'admin', password: PASSWORD });
      const project = await f.makeProject({ owner, name: 'Modes project' });
      const a = await openApp(`${withSearch.baseUrl}/projects/${project.id}`);
      opened.push(a);
      const { page } = a;
      await signIn(page, owner.email, PASSWORD);

      await page.getByRole('radio', { name: 'Web' }).check();
      await page.getByLabel(/^Model/).selectOption('two-models/large-model');
      stub.once({ deltas: ['It was recalled ', '[1].'] });
      const before = stub.requests.length;
      await page.getByLabel('Your question').fill('Is the kettle recalled?');
      await page.getByRole('button', { name: 'Ask', exact: true }).click();
      const answer = page.locator('.turn.assistant').last();
      await answer.locator('.answer-text', { hasText: 'It was recalled' }).waitFor({ timeout: 20_000 });
      expect(search.requests).toHaveLength(1);
      const upstream = stub.requests.slice(before).find((r) => r.body?.stream)!;
      expect(upstream.body.model).toBe('large-model');

      await answer.getByRole('link', { name: 'Source 1: Kettle recall notice' }).first().click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('The 2024 kettle model is recalled.').waitFor();
      expect(await dialog.getByRole('link', { name: 'Open example.org' }).getAttribute('href')).toBe('https://example.org/recall');
      expect(await axeViolations(page)).toEqual([]);
      expect(a.consoleErrors).toEqual([]);
    } finally {
      await withSearch.close();
      await search.close();
    }
  }, 90_000);
});

describe('web app: project settings', () => {
  it('emptying the model and topK fields returns the project to the server defaults', async () => {
    const f = factories(t.orm, t.services);
    const owner = await f.makeUser({ platformRole: 'admin', password: PASSWORD });
    const project = await f.makeProject({ owner, name: 'Settings project', settings: { model: 'stub/stub-model', topK: 7 } });
    const { page } = await openAs(owner.email, `/projects/${project.id}/settings`);
    await page.getByLabel('Passages per answer (topK)').fill('');
    await page.getByLabel('Model').selectOption('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const stored = await t.services.projects.get(Actor.system(), project.id);
    expect(stored.project.settings).toEqual({});
  }, 60_000);
});

describe('web app: what each tier sees', () => {
  it('`use` sees no settings, no uploads and no grants panel; `full` adds, changes and removes a grant by name', async () => {
    const f = factories(t.orm, t.services);
    const owner = await f.makeUser({ platformRole: 'admin', password: PASSWORD, name: 'Olivia Owner' });
    const reader = await f.makeUser({ password: PASSWORD, name: 'Rita Reader' });
    const project = await f.makeProject({ owner, name: 'Tier project' });
    await f.makeGrant({ project, user: reader, tier: 'use' });

    // use: Ask and Documents only
    const asReader = await openAs(reader.email, `/projects/${project.id}`);
    const tabs = asReader.page.getByRole('navigation', { name: 'Project' });
    await tabs.getByRole('link', { name: 'Ask' }).waitFor();
    expect(await tabs.getByRole('link').allInnerTexts()).toEqual(['Ask', 'Documents (0)']);
    await asReader.page.locator('.badge', { hasText: 'Can ask' }).waitFor();
    await tabs.getByRole('link', { name: /Documents/ }).click();
    await asReader.page.getByText('No documents yet.').waitFor();
    expect(await asReader.page.locator('input[type=file]').count()).toBe(0);
    await asReader.page.goto(`${t.baseUrl}/projects/${project.id}/access`);
    await asReader.page.getByText('Your access to this project does not include this page.').waitFor();
    expect(await asReader.page.getByRole('heading', { name: 'Who has access' }).count()).toBe(0);
    expect(asReader.consoleErrors).toEqual([]);

    // full: the grants panel; the reader's grant changed to edit, a department added, both removed
    const dept = await f.makeDepartment({ name: `Support ${Date.now()}` });
    const group = await f.makeGroup({ name: `Editors ${Date.now()}`, department: dept });
    const asOwner = await openAs(owner.email, `/projects/${project.id}/access`);
    const { page } = asOwner;
    await page.getByRole('heading', { name: 'Who has access' }).waitFor();
    const readerRow = page.locator('tr', { hasText: 'Rita Reader' });
    await readerRow.getByRole('combobox').selectOption('edit');
    await until(
      async () =>
        (await t.orm.em.fork().getConnection().execute(`select tier from project_grants where user_id = '${reader.id}'`))[0]?.tier,
      'edit',
    );

    const give = page.getByRole('form', { name: 'Give access' });
    await give.getByLabel(/^To a/).selectOption('department');
    await give.getByLabel(/^Name/).fill(dept.name);
    await give.locator(`datalist option[value="${dept.name}"]`).waitFor({ state: 'attached' }); // the names were looked up
    await give.getByLabel(/^Access/).selectOption('full');
    await give.getByRole('button', { name: 'Give access' }).click();
    // the group's row names the department too ("Editors … (Support …)")
    const deptRow = page.locator('tr', { hasText: dept.name, hasNotText: group.name });
    await deptRow.waitFor();
    expect(await deptRow.getByRole('combobox').inputValue()).toBe('full');
    expect(await axeViolations(page)).toEqual([]);

    const groupLabel = `${group.name} (${dept.name})`;
    await give.getByLabel(/^To a/).selectOption('group');
    await give.locator(`datalist option[value="${groupLabel}"]`).waitFor({ state: 'attached' });
    await give.getByLabel(/^Name/).fill(groupLabel);
    await give.getByLabel(/^Access/).selectOption('edit');
    await give.getByRole('button', { name: 'Give access' }).click();
    const groupRow = page.locator('tr', { hasText: groupLabel });
    await groupRow.waitFor();
    await page.getByRole('button', { name: `Remove access for ${groupLabel}` }).click();
    await groupRow.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: `Remove access for ${dept.name}` }).click();
    await deptRow.waitFor({ state: 'detached' });
    await readerRow.getByRole('button', { name: /Remove access/ }).click();
    await readerRow.waitFor({ state: 'detached' });
    await page.getByText('Nobody has been given access yet.').waitFor();
    expect(asOwner.consoleErrors).toEqual([]);
  }, 120_000);
});

/** Presses Tab until the focused element's text or label matches `name` (at most 80 times). */
async function tabTo(page: Page, name: RegExp): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate<string>(
      '(() => { const e = document.activeElement; return e ? (e.getAttribute("aria-label") || e.labels?.[0]?.innerText || e.innerText || "") : ""; })()',
    );
    if (name.test(focused)) return;
  }
  throw new Error(`Tab never reached ${String(name)}`);
}

describe('web app: keyboard only', () => {
  it('signs in, opens a project, asks, opens a citation and closes it without a mouse', async () => {
    const f = factories(t.orm, t.services);
    const owner = await f.makeUser({ platformRole: 'admin', password: PASSWORD });
    const project = await f.makeProject({ owner, name: `Keyboard project ${Date.now()}` });
    const up = await uploadFiles(t.baseUrl, owner.token, project.id, [
      { name: 'keys.md', content: '# Keys\n\nThe spare office key hangs in the reception cabinet.\n', type: 'text/markdown' },
    ]);
    expect((await waitForDocument(t.baseUrl, owner.token, up.body.documents[0].id)).status).toBe('ready');

    const a = await openApp(`${t.baseUrl}/`);
    opened.push(a);
    const { page } = a;
    await page.getByLabel('Email').waitFor();
    await page.keyboard.type(owner.email); // the email field has the focus
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();

    await tabTo(page, new RegExp(`^${project.name}$`));
    await page.keyboard.press('Enter');
    // the project's screens load on demand: the question box is there before Tab looks for it
    await page.getByLabel(/^Your question/).waitFor();
    await tabTo(page, /^Your question/);
    stub.once({ deltas: ['It hangs in ', 'the reception cabinet [1].'] });
    await page.keyboard.type('Where is the spare key?');
    await page.keyboard.press('Enter');
    await page.locator('.turn.assistant .answer-text', { hasText: 'reception cabinet' }).waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Ask', exact: true }).waitFor();

    await tabTo(page, /^Source 1: keys\.md/);
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.locator('mark', { hasText: 'spare office key' }).waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(a.consoleErrors).toEqual([]);
  }, 90_000);
});
