import { startBlipProxy, type BlipProxy } from '../support/blip-proxy';
import { chatFactories, factories } from '../support/factories';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import type { Proc } from '../support/processes';
import { startSsoWorld } from '../support/sso-world';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestApp, TestApp } from '../support/test-app';
import { openApp, signIn, storedRefreshToken, type AppPage } from '../support/web-app-page';
import { api, client } from '../support/http';

/**
 * Issue 38 in a real Chromium: the web app resumes a chat answer by itself after a network blip,
 * and its "Sign in with …" button completes the OpenID Connect flow against a real provider
 * (oidc-provider, its own process on loopback). The browser reaches the server through a TCP proxy
 * (test/support/blip-proxy.ts) that can cut a connection mid-answer, as a dropped network does.
 */
const PASSWORD = 'web-identity-pass-1';
const DELTAS = ['Alpha ', 'bravo ', 'charlie ', 'delta ', 'echo ', 'foxtrot ', 'golf ', 'hotel ', 'india ', 'juliett.'];
const ACCOUNTS = { alice: { email: 'alice@corp.test', email_verified: true, name: 'Alice Corp' } };

let t: TestApp;
let stub: OpenAiStub;
let proxy: BlipProxy;
/** Pages a test opened, closed after it. */
const opened: AppPage[] = [];

beforeAll(async () => {
  stub = await startOpenAiStub({ deltas: DELTAS, deltaDelayMs: 150 });
  proxy = await startBlipProxy();
  t = await createTestApp();
  proxy.target = Number(new URL(t.baseUrl).port);
  await factories(t.orm, t.services).superadmin();
  await chatFactories(t.orm, t.services).makeProvider({ baseUrl: stub.url, slug: 'stub', models: ['stub-model'], isDefault: true });
}, 90_000);

afterEach(async () => {
  for (const a of opened.splice(0)) await a.close();
});

afterAll(async () => {
  await t?.close();
  await proxy?.close();
  await stub?.close();
});

it('a network blip mid-answer: the app re-attaches with Last-Event-ID by itself; the answer is whole, no token twice', async () => {
  const f = factories(t.orm, t.services);
  const owner = await f.makeUser({ platformRole: 'admin', password: PASSWORD });
  const project = await f.makeProject({ owner, name: 'Blip project' });
  const app = await openApp(`${proxy.url}/projects/${project.id}`);
  opened.push(app);
  const { page } = app;
  await signIn(page, owner.email, PASSWORD);

  const cut = proxy.cutAfter(/^POST \/api\/chat\/projects\//, 3);
  await page.getByLabel('Your question').fill('Spell the alphabet');
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await cut;
  const answer = page.locator('.turn.assistant').last();
  await answer.locator('.answer-text', { hasText: 'juliett.' }).waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' });
  expect((await answer.locator('.answer-text').innerText()).trim()).toBe(DELTAS.join('').trim());
  // it came back by itself, after the events it had: GET …/stream with Last-Event-ID
  const resumed = proxy.heads.filter((h) => /^GET \/api\/chat\/messages\/[\w-]+\/stream /.test(h));
  expect(resumed.length).toBeGreaterThanOrEqual(1);
  expect(resumed[0]).toMatch(/\r\nlast-event-id: \d+\r\n/i);
  await expect(answer.getByRole('alert').count()).resolves.toBe(0);
  // the upstream was never stopped: the answer went on being generated while the connection was down
  expect(stub.requests.filter((r) => r.body?.stream).at(-1)!.aborted).toBe(false);
  expect(app.consoleErrors.filter((e) => !/Failed to load resource|ERR_/.test(e))).toEqual([]);
  expect(app.foreignRequests).toEqual([]);
}, 90_000);

describe('single sign-on from the sign-in page', () => {
  // openid-client is ESM-only: the server runs as a process of its own (dist), as in sso.test.ts
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docqa-web-sso-'));
  const procs: Proc[] = [];
  let node: Proc & { baseUrl: string };
  let front: BlipProxy;
  let issuer: string;

  beforeAll(async () => {
    front = await startBlipProxy();
    // the provider sends the browser back to the web app's root, at the origin the browser uses
    const world = await startSsoWorld(dir, { redirect: `${front.url}/`, accounts: ACCOUNTS });
    procs.push(...world.procs);
    ({ node, issuer } = world);
    front.target = Number(new URL(node.baseUrl).port);
    const made = await client(node.baseUrl, world.rootToken).post('/api/users', {
      email: 'alice@corp.test',
      name: 'Alice Corp',
      password: PASSWORD,
      platformRole: 'none',
      orgPosition: 'member',
    });
    expect(made.status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    for (const p of procs) await p.kill();
    await front?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('"Sign in with Corp ID" completes the OpenID Connect flow at the provider and lands signed in', async () => {
    const app = await openApp(`${front.url}/`, { alsoAllow: [issuer] });
    opened.push(app);
    const { page } = app;
    await page.getByRole('link', { name: 'Sign in with Corp ID' }).click();
    // the provider's own page: which account
    await page
      .waitForURL((u) => u.href.startsWith(issuer))
      .catch(async (e) => {
        throw new Error(
          `${String(e)}\nat ${page.url()}\n${(await page.content()).slice(0, 2000)}\n${app.consoleErrors.join('\n')}\n${app.foreignRequests.join('\n')}`,
        );
      });
    await page.getByLabel('Account').fill('alice');
    await page.getByRole('button', { name: 'Continue' }).click();
    // back at the app, which exchanges the provider's answer for a session
    await page
      .getByRole('button', { name: 'Sign out' })
      .waitFor({ timeout: 30_000 })
      .catch(async (e) => {
        throw new Error(
          `${String(e)}\nat ${page.url()}\n${(await page.content()).slice(0, 3000)}\n${app.consoleErrors.join('\n')}\n${procs.map((p) => p.output().slice(-2500)).join('\n----\n')}`,
        );
      });
    expect(new URL(page.url()).origin).toBe(front.url);
    expect(new URL(page.url()).search).toBe('');
    // the tab keeps a session of alice's: its refresh token gives tokens for her
    const refreshed = await api(node.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: await storedRefreshToken(page) } });
    expect(refreshed.status).toBe(200);
    const me = (await client(node.baseUrl, refreshed.body.accessToken).get('/api/auth/me')).body;
    expect(me.user.email).toBe('alice@corp.test');
    expect(app.foreignRequests).toEqual([]);
  }, 90_000);
});
