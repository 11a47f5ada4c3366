import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openPage } from '../test/support/browser';
import { startOpenAiStub } from '../test/support/openai-stub';
import { makePdf } from '../test/support/pdf';
import { signIn } from '../test/support/web-app-page';
import { json, ROOT, startBenchEnv } from './lib/env';

/**
 * Issue 35's targets, against the real server in its own process:
 *
 * 1. Opening a citation in a `--pages`-page PDF (default 200): real Chromium, from the click on
 *    `[1]` to the cited page drawn by pdf.js with its passage marked (the first open loads pdf.js
 *    and its worker; later opens reuse them), over `--opens` opens. Target: 300 ms.
 * 2. A `--mb` MB original (default 50): the server's RSS while it streams the whole file, and
 *    while it answers one range (bytes read per range: one slice at most). Target: RSS delta ≤ 20 MB.
 *
 *   npm run build && node dist/bench/citations.js [--pages 200] [--mb 50] [--opens 10]
 */
const arg = (name: string, def: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function upload(baseUrl: string, token: string, projectId: string, name: string, bytes: Buffer, type: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
  const res = await fetch(`${baseUrl}/api/projects/${projectId}/documents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (res.status !== 202) throw new Error(`upload answered ${res.status}`);
  return ((await res.json()) as { documents: Array<{ id: string }> }).documents[0].id;
}

async function main(): Promise<void> {
  const pages = arg('pages', 200);
  const mb = arg('mb', 50);
  const opens = arg('opens', 10);
  const cited = Math.ceil(pages * 0.75);
  const stub = await startOpenAiStub({ deltas: ['The pump is serviced every ninety days [1].'] });
  const env = await startBenchEnv({ MAX_UPLOAD_MB: String(mb + 5), PDF_MAX_PAGES: String(pages + 10) });
  const opened = await openPage(`${env.baseUrl}/`);
  try {
    const { accessToken: token } = await json(env, 'POST', '/api/auth/login', null, env.superadmin);
    await json(env, 'POST', '/api/providers', token, {
      name: 'Stub',
      slug: 'stub',
      baseUrl: stub.url,
      apiKey: 'k',
      models: ['stub-model'],
      isDefault: true,
    });
    const { project } = await json(env, 'POST', '/api/projects', token, { name: 'Citations bench' });
    const pdf = makePdf(
      Array.from({ length: pages }, (_, i) => ({
        paragraphs:
          i + 1 === cited
            ? ['The centrifugal pump model Q-77 is serviced every ninety days by a certified technician.']
            : [`Page ${i + 1} describes routine item ${i} of the maintenance plan in plain words.`],
      })),
    );
    const pdfId = await upload(env.baseUrl, token, project.id, 'manual.pdf', pdf, 'application/pdf');
    for (;;) {
      const { document } = await json(env, 'GET', `/api/documents/${pdfId}`, token);
      if (document.status === 'ready') break;
      if (document.status === 'failed') throw new Error(document.error);
      await new Promise((r) => setTimeout(r, 200));
    }

    // 1. click → cited page drawn with its mark
    const { page } = opened;
    await signIn(page, env.superadmin.email, env.superadmin.password);
    await page.goto(`${env.baseUrl}/projects/${project.id}`);
    await page.getByLabel('Your question').fill('How often is the centrifugal pump Q-77 serviced?');
    await page.getByRole('button', { name: 'Ask', exact: true }).click();
    const link = page.locator('a.cite').first();
    await link.waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Ask', exact: true }).waitFor();
    const times: number[] = [];
    for (let i = 0; i < opens; i++) {
      await page.evaluate(`(() => {
        window.__opened = new Promise((resolve) => {
          document.addEventListener('click', () => {
            const t0 = performance.now();
            const seen = () => document.querySelector('dialog .cited-box');
            new MutationObserver((_, o) => { if (seen()) { o.disconnect(); resolve(performance.now() - t0); } })
              .observe(document.body, { childList: true, subtree: true });
          }, { capture: true, once: true });
        });
      })()`);
      await link.click();
      times.push(await page.evaluate<number>('window.__opened'));
      const text = await page.locator('dialog .page-of').innerText();
      if (text !== `Page ${cited} of ${pages}`) throw new Error(`the viewer shows "${text}"`);
      await page.keyboard.press('Escape');
      await page.locator('dialog').waitFor({ state: 'detached' });
    }

    // 2. a large original, streamed whole and read by range, with the server's RSS sampled
    const bigId = await upload(env.baseUrl, token, project.id, 'big.bin', randomBytes(mb * 1024 * 1024), 'application/octet-stream');
    const sampleWhile = async (work: () => Promise<number>) => {
      const before = env.server.rssMb();
      let peak = before;
      const timer = setInterval(() => (peak = Math.max(peak, env.server.rssMb())), 20);
      const bytes = await work();
      clearInterval(timer);
      return { bytes, rssDeltaMb: Math.round((Math.max(peak, env.server.rssMb()) - before) * 10) / 10 };
    };
    const drain = async (headers: Record<string, string>) => {
      const res = await fetch(`${env.baseUrl}/api/documents/${bigId}/original`, {
        headers: { authorization: `Bearer ${token}`, ...headers },
      });
      let n = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) n += chunk.length;
      return n;
    };
    const whole = await sampleWhile(() => drain({}));
    const range = await sampleWhile(() => drain({ range: 'bytes=1000000-1262143' }));

    const result = {
      measuredAt: new Date().toISOString(),
      viewer: {
        pages,
        citedPage: cited,
        opens,
        firstMs: Math.round(times[0]),
        laterMedianMs: Math.round(median(times.slice(1))),
        allMs: times.map(Math.round),
      },
      original: { mb, whole, range },
    };
    mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(path.join(ROOT, 'bench/results/citations.json'), JSON.stringify(result, null, 2) + '\n');
    console.log(JSON.stringify(result, null, 2));
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
