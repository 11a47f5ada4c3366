import { chatFactories, factories } from '../support/factories';
import { openPage, type OpenedPage } from '../support/browser';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import { createTestApp, TestApp } from '../support/test-app';
import { until } from '../support/web-app-page';
import type { Page } from 'playwright-core';

/**
 * The GraphiQL playground in a real Chromium: served by us alone (no foreign request), sign-in
 * through its form, a query over HTTP and the chat subscription over graphql-ws, and a sign-out
 * that leaves no token in the browser's storage and revokes the refresh token (issue 25 item 4).
 */
const DELTAS = ['Toasters ', 'brown bread ', 'evenly.'];
const PASSWORD = 'playground-pass-1';

let t: TestApp;
let stub: OpenAiStub;
let opened: OpenedPage | undefined;
/** Opens the page; afterAll closes it. */
const open = async (url: string): Promise<OpenedPage> => (opened = await openPage(url));

beforeAll(async () => {
  // a pause between deltas, so each one is on screen long enough to be seen arriving
  stub = await startOpenAiStub({ deltas: DELTAS, deltaDelayMs: 3000 });
  t = await createTestApp();
}, 60_000);

afterAll(async () => {
  await opened?.close();
  await t?.close();
  await stub?.close();
});

/** The result pane's text (Monaco renders spaces as no-break spaces). */
async function resultText(page: Page): Promise<string> {
  return (await page.locator('.result-window').innerText()).replace(/\u00a0/g, ' ');
}

/** Waits until the result pane shows `text` (fails with the pane's contents after 20 s). */
async function resultContains(page: Page, text: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  let shown = '';
  while (Date.now() < deadline) {
    shown = await resultText(page);
    if (shown.includes(text)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`result pane never showed ${text}; it shows:\n${shown}`);
}

/** Replaces the contents of the Monaco editor inside `container`. */
async function typeInto(page: Page, container: string, text: string): Promise<void> {
  await page.locator(`${container} .monaco-editor:visible`).first().click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

describe('GraphiQL playground', () => {
  it('serves the page only to browsers, with a same-origin CSP, and keeps GET queries working', async () => {
    const html = await fetch(`${t.baseUrl}/graphql`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = html.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:|cdn/i);
    expect(await html.text()).toContain('/graphql/assets/main.js');

    const js = await fetch(`${t.baseUrl}/graphql/assets/main.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);

    const get = await fetch(`${t.baseUrl}/graphql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { accept: 'application/json' },
    });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('is not served when GRAPHQL_PLAYGROUND is off', async () => {
    const off = await createTestApp({ env: { GRAPHQL_PLAYGROUND: 'false' } });
    try {
      const html = await fetch(`${off.baseUrl}/graphql`, { headers: { accept: 'text/html' } });
      expect(await html.text()).not.toContain('/graphql/assets/main.js');
      expect((await fetch(`${off.baseUrl}/graphql/assets/main.js`)).headers.get('content-type')).not.toMatch(/javascript/);
    } finally {
      await off.close();
    }
  }, 60_000);

  it('signs in, runs a query and streams the chat subscription, all from our origin', async () => {
    const f = factories(t.orm, t.services);
    await f.superadmin(); // a bootstrapped platform: sign-in needs one
    const user = await f.makeUser({ platformRole: 'admin', password: PASSWORD });
    const colleague = await f.makeUser();
    const project = await f.makeProject({ owner: user, name: `Playground ${Date.now()}` });
    await f.makeGrant({ project, user: colleague, tier: 'use' });
    await chatFactories(t.orm, t.services).makeProvider({
      baseUrl: stub.url,
      slug: `stub-${Date.now()}`,
      models: ['stub-model'],
      isDefault: true,
    });

    const { page, foreignRequests } = await open(`${t.baseUrl}/graphql`);
    const cspViolations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });

    // every refresh token the page is given (sign-in, each refresh), the newest last
    const refreshTokens: string[] = [];
    page.on('response', (r) => {
      if (!r.url().endsWith('/graphql') || r.request().method() !== 'POST') return;
      void r
        .json()
        .then((b: any) => {
          const token = b?.data?.login?.refreshToken ?? b?.data?.refresh?.refreshToken;
          if (token) refreshTokens.push(token);
        })
        .catch(() => undefined);
    });

    // sign in through the form, its inputs found by their labels; the token stays out of the
    // headers editor (the fetcher adds it from memory)
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#signed-in-as', { hasText: user.email }).waitFor();
    // the response body is read asynchronously: the page can show the user first
    await until(() => Promise.resolve(refreshTokens.length), 1);

    // the preloaded projects query, over HTTP with that header
    await page.locator('.graphiql-query-editor .monaco-editor').waitFor();
    await page.locator('.graphiql-execute-button').click();
    await resultContains(page, project.name);
    expect(await resultText(page)).toContain(colleague.email);

    // a query typed in
    await typeInto(page, '.graphiql-query-editor', 'query Me { me { email } }');
    await page.locator('.graphiql-tabs').getByText('Me', { exact: true }).waitFor(); // GraphiQL has parsed the edit
    await page.locator('.graphiql-execute-button').click();
    await resultContains(page, `"email": "${user.email}"`);

    // an access token typed in that the server refuses: the fetcher refreshes once and retries with
    // the session's new token, and the refused header leaves the editor (no token is put there)
    await page.getByRole('button', { name: 'Headers' }).click();
    await typeInto(page, '.graphiql-editor-tool', JSON.stringify({ Authorization: 'Bearer not-a-valid-token' }));
    await page.locator('.graphiql-editor-tool', { hasText: 'not-a-valid-token' }).waitFor();
    await resultText(page).then((text) => expect(text).toContain(user.email)); // still the earlier answer
    // a query of its own, so the history plugin records this operation with the typed header
    await typeInto(page, '.graphiql-query-editor', 'query MeAgain { me { email name } }');
    await page.locator('.graphiql-tabs').getByText('MeAgain', { exact: true }).waitFor();
    await page.locator('.graphiql-execute-button').click();
    await page.locator('.graphiql-editor-tool', { hasText: 'not-a-valid-token' }).waitFor({ state: 'detached', timeout: 20_000 });
    await resultContains(page, `"email": "${user.email}"`);
    expect(await resultText(page)).not.toContain('unauthorized');
    expect(await page.locator('.graphiql-editor-tool').innerText()).not.toContain('Bearer');
    await until(() => Promise.resolve(refreshTokens.length), 2);

    // the chat subscription tab: the stub's deltas arrive one by one over graphql-ws
    await page.locator('.graphiql-tabs').getByText('Chat', { exact: true }).click();
    await page.getByRole('button', { name: 'Variables' }).click();
    await typeInto(page, '.graphiql-editor-tool', JSON.stringify({ projectId: project.id, message: 'How do toasters brown bread?' }));
    await page.locator('.graphiql-execute-button').click();
    // each result replaces the last in the pane: every delta but the final one (followed at once by
    // done) stays on screen for the stub's pause
    for (const delta of DELTAS.slice(0, -1)) {
      await resultContains(page, `"delta": "${delta}"`);
    }
    await page.screenshot({ path: 'docs/playground.png' }); // mid-answer, for the README
    await resultContains(page, 'ChatDone');
    expect(stub.requests.length).toBeGreaterThan(0);

    // sign out: POST /api/auth/logout revokes the refresh token, as a REST client's sign-out does
    const loggedOut = page.waitForResponse((r) => r.url().endsWith('/api/auth/logout'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    expect((await loggedOut).status()).toBe(204);
    await page.getByLabel('Email').waitFor();

    // nothing in any storage the page can read holds a token, though GraphiQL did store its history
    // (a string: the test's TypeScript has no DOM types)
    const stored: { local: Record<string, string>; session: Record<string, string>; cookie: string; indexedDb: string[] } =
      await page.evaluate(`(async () => ({
        local: Object.fromEntries(Object.entries(localStorage)),
        session: Object.fromEntries(Object.entries(sessionStorage)),
        cookie: document.cookie,
        indexedDb: (await indexedDB.databases()).map((d) => d.name),
      }))()`);
    expect(stored.local['graphiql:queries']).toContain('query MeAgain'); // run with the typed Authorization header
    const everything = JSON.stringify(stored);
    expect(everything).not.toMatch(/bearer/i);
    expect(everything).not.toContain('eyJ'); // the start of every JWT
    for (const token of refreshTokens) expect(everything).not.toContain(token);
    expect(stored.indexedDb).toEqual([]);

    // and the newest refresh token no longer works
    const refreshed = await fetch(`${t.baseUrl}/api/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: refreshTokens.at(-1) }),
    });
    expect(refreshed.status).toBe(401);

    expect(cspViolations).toEqual([]);
    expect(foreignRequests).toEqual([]);
  }, 180_000);
});
