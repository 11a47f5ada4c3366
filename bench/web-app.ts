import 'reflect-metadata';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { openPage } from '../test/support/browser';
import { startOpenAiStub } from '../test/support/openai-stub';
import { armFirstTextProbe, firstTextLatency, signIn } from '../test/support/web-app-page';
import { ROOT, startBenchEnv } from './lib/env';

/**
 * The web app's two targets (issue 27):
 *
 * 1. First-screen JavaScript, gzipped: main.js and every chunk it imports statically (the progress
 *    stream's client is loaded later, on the documents screen), as built into dist/web/.
 * 2. First-text latency: in real Chromium against the real server (its own process, production
 *    mode) and the local OpenAI-compatible stub, from the stub writing its first delta (the server
 *    relays it as its first `text` event) to that text being in the page's DOM, over `--questions`
 *    answers; also the part inside the app alone (its stream reader yielding the event → DOM).
 *    Browser and stub clocks are both wall-clock (timeOrigin + now) on the same machine.
 *
 *   npm run build && node dist/bench/web-app.js [--questions 20]
 */
const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};

function firstScreenBytes(): { files: Record<string, { raw: number; gzip: number }>; jsGzip: number; cssGzip: number } {
  const dir = path.join(ROOT, 'dist/web');
  const files: Record<string, { raw: number; gzip: number }> = {};
  const seen = new Set<string>();
  const visit = (rel: string) => {
    if (seen.has(rel)) return;
    seen.add(rel);
    const bytes = readFileSync(path.join(dir, rel));
    files[rel] = { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
    // static imports only (`import … from "./chunks/x.js"`); `import("…")` is loaded later
    for (const m of bytes.toString('utf8').matchAll(/(?:^|[;}\s])import\s*(?:[\w$*{}\s,]+from\s*)?"(\.\/[^"]+\.js)"/g))
      visit(path.posix.join(path.posix.dirname(rel), m[1]));
  };
  visit('main.js');
  const css = readFileSync(path.join(dir, 'main.css'));
  files['main.css'] = { raw: css.length, gzip: gzipSync(css, { level: 9 }).length };
  const jsGzip = Object.entries(files)
    .filter(([f]) => f.endsWith('.js'))
    .reduce((n, [, s]) => n + s.gzip, 0);
  return { files, jsGzip, cssGzip: files['main.css'].gzip };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 10) / 10;
};

async function main(): Promise<void> {
  const questions = arg('questions', 20);
  const bundle = firstScreenBytes();
  console.log(`first-screen JS: ${(bundle.jsGzip / 1024).toFixed(1)} KB gzipped (${Object.keys(bundle.files).join(', ')})`);

  const stub = await startOpenAiStub({ deltas: ['The answer ', 'is ', 'forty-two [1].'], ttftMs: 150, deltaDelayMs: 50 });
  const env = await startBenchEnv();
  const opened = await openPage(`${env.baseUrl}/`);
  try {
    const login = (await (
      await fetch(`${env.baseUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(env.superadmin),
      })
    ).json()) as { accessToken: string };
    const auth = { authorization: `Bearer ${login.accessToken}`, 'content-type': 'application/json' };
    const post = async (p: string, body: unknown): Promise<any> =>
      (await fetch(`${env.baseUrl}/api${p}`, { method: 'POST', headers: auth, body: JSON.stringify(body) })).json();
    await post('/providers', { name: 'Stub', slug: 'stub', baseUrl: stub.url, apiKey: 'k', models: ['stub-model'], isDefault: true });
    const { project } = await post('/projects', { name: 'Bench project' });

    const { page } = opened;
    await signIn(page, env.superadmin.email, env.superadmin.password);
    await page.goto(`${env.baseUrl}/projects/${project.id}`);
    const inApp: number[] = [];
    const endToEnd: number[] = [];
    for (let i = 0; i < questions; i++) {
      // a fresh conversation each time, so the page's work is the same for every answer
      await page.getByRole('link', { name: 'New conversation' }).click();
      await page.getByLabel('Your question').fill(`What is the answer? (${i})`);
      await armFirstTextProbe(page);
      await page.getByRole('button', { name: 'Ask', exact: true }).click();
      const t = await firstTextLatency(page);
      await page.getByRole('button', { name: 'Ask', exact: true }).waitFor(); // the answer is done
      const asked = stub.requests.filter((r) => r.body?.stream).at(-1)!;
      inApp.push(t.domMs);
      endToEnd.push(t.domEpochMs - (performance.timeOrigin + asked.firstDeltaAt!));
    }
    const result = {
      measuredAt: new Date().toISOString(),
      firstScreen: bundle,
      firstText: {
        questions,
        fromUpstreamFirstDeltaMs: { median: pct(endToEnd, 50), p90: pct(endToEnd, 90), max: pct(endToEnd, 100) },
        fromAppStreamEventMs: { median: pct(inApp, 50), p90: pct(inApp, 90), max: pct(inApp, 100) },
      },
    };
    mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(path.join(ROOT, 'bench/results/web-app.json'), JSON.stringify(result, null, 2) + '\n');
    console.log(JSON.stringify(result.firstText, null, 2));
  } finally {
    await opened.close();
    await env.close();
    await stub.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
