import { OPERATIONS } from '../../src/transports/http/openapi';
import { openPage } from '../support/browser';
import { factories } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('/api/openapi.json and /api/docs', () => {
  it('serves the OpenAPI 3.1 document', async () => {
    const res = await fetch(`${t.baseUrl}/api/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/api/chat/projects/{projectId}');
  });

  it("serves the reference page with a Content-Security-Policy of 'self' only", async () => {
    const res = await fetch(`${t.baseUrl}/api/docs`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:|\*/);
    expect(await res.text()).not.toMatch(/https?:\/\//);
    expect((await fetch(`${t.baseUrl}/api/docs/assets/package.json`)).status).toBe(404);
  });

  it('is off when API_DOCS=false (as in production by default)', async () => {
    const off = await createTestApp({ env: { API_DOCS: 'false' } });
    try {
      expect((await fetch(`${off.baseUrl}/api/openapi.json`)).status).toBe(404);
      expect((await fetch(`${off.baseUrl}/api/docs`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('renders every endpoint in a real browser, makes no request to another origin, and tries one with a bearer token', async () => {
    const user = await factories(t.orm, t.services).makeUser();
    const { page, foreignRequests, close } = await openPage(`${t.baseUrl}/api/docs`);
    try {
      await page.locator('.opblock').first().waitFor({ timeout: 30_000 });
      expect(await page.locator('.opblock').count()).toBe(OPERATIONS.length);
      const paths = await page.locator('.opblock-summary-path').allInnerTexts();
      expect(paths.map((p) => p.replace(/\u200b/g, ''))).toEqual(
        expect.arrayContaining(['/api/auth/login', '/api/chat/projects/{projectId}', '/api/documents/{id}']),
      );

      // Authorize with the access token, then "Try it out" on GET /api/auth/me against this server
      await page.locator('button.authorize').first().click();
      await page.locator('.auth-container input').first().fill(user.token);
      await page.locator('.auth-btn-wrapper button.authorize').click();
      await page.locator('.auth-btn-wrapper button.btn-done').click();
      const me = page.locator('#operations-auth-getAuthMe');
      await me.locator('.opblock-summary').click();
      await me.locator('button.try-out__btn').click();
      await me.locator('button.execute').click();
      await me.locator('.live-responses-table tbody .response-col_status').first().waitFor({ timeout: 15_000 });
      expect((await me.locator('.live-responses-table tbody .response-col_status').first().innerText()).trim()).toMatch(/^200/);
      expect(await me.locator('.live-responses-table').innerText()).toContain(user.email);

      expect(foreignRequests).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);
});
