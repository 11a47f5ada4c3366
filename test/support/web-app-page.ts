import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { openPage, type OpenedPage } from './browser';

/** The web app in a real Chromium, with its console errors and page errors collected. */
export interface AppPage extends OpenedPage {
  consoleErrors: string[];
}

export async function openApp(url: string, opts: { alsoAllow?: string[] } = {}): Promise<AppPage> {
  const opened = await openPage(url, opts);
  const consoleErrors: string[] = [];
  opened.page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  opened.page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
  return { ...opened, consoleErrors };
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor({ timeout: 20_000 });
}

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on the page as it is now. The script is evaluated
 * through the DevTools protocol (the page's CSP forbids inline scripts, as it should).
 */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(AXE);
  const violations = await page.evaluate<any[]>('window.axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)');
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
}

/** True when the page's layout is no wider than its viewport (nothing to scroll sideways). */
export async function fitsWidth(page: Page): Promise<boolean> {
  return await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');
}

/** Everything in localStorage, as one string (the test asserts no token is in it). */
export async function localStorageDump(page: Page): Promise<string> {
  return await page.evaluate<string>('JSON.stringify({ ...localStorage })');
}

/** The refresh token the app keeps for this tab (sessionStorage), or null. */
export async function storedRefreshToken(page: Page): Promise<string | null> {
  return await page.evaluate<string | null>('sessionStorage.getItem("docqa.refreshToken")');
}

/** Polls `fn` until it returns `want` (fails with the last value after `timeoutMs`). */
export async function until<T>(fn: () => Promise<T>, want: T, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await fn();
    if (last === want) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`waited ${timeoutMs} ms for ${String(want)}; last value ${String(last)}`);
}

/**
 * Arms a measurement of the next answer's first text: the app marks `docqa:first-text-event` when
 * its stream reader yields the first `text` event; this observer notes when that text is in the
 * page's DOM, and the next animation frame (painted). Read it with `firstTextLatency`.
 */
export async function armFirstTextProbe(page: Page): Promise<void> {
  await page.evaluate(`(() => {
    performance.clearMarks('docqa:first-text-event');
    window.__firstText = null;
    const turns = document.querySelectorAll('.turn.assistant').length;
    const obs = new MutationObserver(() => {
      const all = document.querySelectorAll('.turn.assistant .answer-text');
      const el = all.length > turns ? all[all.length - 1] : null;
      if (el && el.textContent.trim()) {
        obs.disconnect();
        const dom = performance.now();
        const text = el.textContent;
        requestAnimationFrame(() => { window.__firstText = { dom, frame: performance.now(), text }; });
      }
    });
    obs.observe(document.body, { subtree: true, childList: true, characterData: true });
  })()`);
}

export interface FirstText {
  /** From the app's first `text` event to the text in the DOM, and to the next frame. */
  domMs: number;
  frameMs: number;
  /** Wall-clock time (ms since the epoch, sub-millisecond) when the text was in the DOM. */
  domEpochMs: number;
  /** The answer's text as it first appeared (a streamed answer shows its first delta, not all of it). */
  text: string;
}

export async function firstTextLatency(page: Page): Promise<FirstText> {
  await until(async () => await page.evaluate<boolean>('window.__firstText !== null'), true);
  return await page.evaluate<FirstText>(`(() => {
    const mark = performance.getEntriesByName('docqa:first-text-event')[0];
    const seen = window.__firstText;
    return { domMs: seen.dom - mark.startTime, frameMs: seen.frame - mark.startTime, domEpochMs: performance.timeOrigin + seen.dom, text: seen.text };
  })()`);
}
