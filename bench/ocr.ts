import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { imagePdf, ScanPage } from '../test/support/hostile-ocr';
import { probe, ProbeResult } from '../test/support/hostile';
import { round, writeResult } from './docs-env';
import { benchIngest } from './ingest';
import { ROOT, signedInProject, startBenchEnv } from './lib/env';

/**
 * OCR throughput on the real server (its own process, in-process ingestion workers, default
 * WORKER_CONCURRENCY and parser threads at nice 10): a 10-page 150-dpi scan (real English prose
 * typeset at 11 pt, rasterised, one grayscale image per page, no text layer) uploaded and read to
 * `ready`, in pages per minute, with /healthz probed every 20 ms the whole time (p50, p99, max)
 * against the same probe idle. Then the existing 200-page text-PDF ingestion bench (bench/ingest.ts),
 * once, to check that text-layer PDFs are as fast as before.
 *
 *   node dist/bench/ocr.js [--pages 10] [--deadline 600]
 */
const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

const DPI = 150;
/** Letter size at 150 dpi; 11 pt type with 14 pt leading, one-inch margins. */
const PAGE = { width: 1275, height: 1650, margin: 150, fontPx: (11 * DPI) / 72, leadingPx: (14 * DPI) / 72, charsPerLine: 88 };

/** Real English prose (the retrieval fixtures), wrapped into the lines of `pages` pages. */
function pageLines(pages: number): string[][] {
  const dir = path.join(ROOT, 'test/fixtures/retrieval');
  const words = ['employee-handbook.md', 'travel-expense-policy.txt', 'support-sla.docx.txt', 'router-manual.pdf.txt']
    .map((f) => readFileSync(path.join(dir, f), 'utf8'))
    .join(' ')
    .replace(/[#*_`|>[\]()]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  const perPage = Math.floor((PAGE.height - 2 * PAGE.margin) / PAGE.leadingPx);
  const out: string[][] = [];
  let w = 0;
  for (let p = 0; p < pages; p++) {
    const lines: string[] = [];
    while (lines.length < perPage) {
      let line = '';
      while ((line + ' ' + words[w % words.length]).length < PAGE.charsPerLine) line += (line ? ' ' : '') + words[w++ % words.length];
      lines.push(line);
    }
    out.push(lines);
  }
  return out;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** One page rasterised at 150 dpi by sharp (librsvg): grayscale, antialiased, as a flatbed scanner gives it. */
async function scanPage(lines: string[]): Promise<ScanPage> {
  const text = lines
    .map((l, i) => `<text x="${PAGE.margin}" y="${Math.round(PAGE.margin + (i + 1) * PAGE.leadingPx)}">${xml(l)}</text>`)
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${PAGE.width}" height="${PAGE.height}"><rect width="100%" height="100%" fill="#fff"/><g font-family="DejaVu Serif" font-size="${round(PAGE.fontPx, 2)}" fill="#111">${text}</g></svg>`;
  const { data, info } = await sharp(Buffer.from(svg), { density: 72 })
    .flatten({ background: '#ffffff' })
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, pixels: data, dpi: DPI };
}

export interface OcrBenchResult {
  pages: number;
  bytes: number;
  seconds: number;
  pagesPerMinute: number;
  status: string;
  error: string | null;
  extraction: unknown;
  idle: ProbeResult;
  healthz: ProbeResult;
  textPdf: { pages: number; pagesPerSecond: number; parseOnlyPagesPerSecond: number };
  met: { throughput: boolean; p99: boolean; max: boolean; textPdf: boolean };
}

/** A `pages`-page 150-dpi scan of English prose, no text layer. */
export async function scanPdf(pages: number): Promise<Buffer> {
  return imagePdf(await Promise.all(pageLines(pages).map(scanPage)));
}

export async function benchOcr(opts: { pages: number; deadlineSeconds: number }): Promise<OcrBenchResult> {
  const pdf = await scanPdf(opts.pages);
  const env = await startBenchEnv({ JOB_POLLING_SECONDS: '1', MAX_UPLOAD_MB: '60' });
  let result: Omit<OcrBenchResult, 'textPdf' | 'met'>;
  try {
    const { auth, projectId } = await signedInProject(env, 'ocr bench');
    const idleProbe = probe(`${env.baseUrl}/healthz`, 20);
    await new Promise((r) => setTimeout(r, 3000));
    const idle = await idleProbe.stop();
    const health = probe(`${env.baseUrl}/healthz`, 20);
    const t0 = performance.now();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'scan.pdf');
    const res = await fetch(`${env.baseUrl}/api/projects/${projectId}/documents`, { method: 'POST', headers: auth, body: form });
    if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
    const id = ((await res.json()) as { documents: Array<{ id: string }> }).documents[0].id;
    let doc: any = { status: 'unfinished', error: `not final after ${opts.deadlineSeconds} s` };
    for (const until = Date.now() + opts.deadlineSeconds * 1000; Date.now() < until;) {
      const d = ((await (await fetch(`${env.baseUrl}/api/documents/${id}`, { headers: auth })).json()) as any).document;
      if (d.status === 'ready' || d.status === 'failed') {
        doc = d;
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - t0) / 1000;
    const healthz = await health.stop();
    result = {
      pages: opts.pages,
      bytes: pdf.length,
      seconds: round(seconds, 1),
      pagesPerMinute: doc.status === 'ready' ? round((opts.pages * 60) / seconds, 1) : 0,
      status: doc.status,
      error: doc.error ?? null,
      extraction: doc.extraction ?? null,
      idle,
      healthz,
    };
  } finally {
    await env.close();
  }
  const text = await benchIngest({ pages: 200, runs: 1 });
  const textPdf = { pages: 200, pagesPerSecond: text.pagesPerSecond.median, parseOnlyPagesPerSecond: text.parseOnlyPagesPerSecond.median };
  return {
    ...result,
    textPdf,
    met: {
      throughput: result.pagesPerMinute >= 20,
      p99: result.healthz.p99 <= 100,
      max: result.healthz.max <= 250,
      textPdf: textPdf.pagesPerSecond >= 150,
    },
  };
}

async function main(): Promise<void> {
  const r = await benchOcr({ pages: arg('pages', 10), deadlineSeconds: arg('deadline', 600) });
  const file = writeResult('ocr', { ...r, measuredAt: new Date().toISOString() });
  process.stdout.write(
    `\nOCR: ${r.pages}-page 150-dpi scan (${round(r.bytes / 1024)} KB): ${r.status}${r.error ? ` (${r.error})` : ''} in ${r.seconds} s = ${r.pagesPerMinute} pages/min (goal ≥ 20)\n` +
      `/healthz while it ran: p50 ${r.healthz.p50} / p99 ${r.healthz.p99} / max ${r.healthz.max} ms, ${r.healthz.failures} failed (goal p99 ≤ 100, max ≤ 250); idle p50 ${r.idle.p50} / p99 ${r.idle.p99} / max ${r.idle.max}\n` +
      `extraction: ${JSON.stringify(r.extraction)}\n` +
      `text PDF, 200 pages, one worker: ${r.textPdf.pagesPerSecond} pages/s (parse alone ${r.textPdf.parseOnlyPagesPerSecond}; goal ≥ 150)\n${file}\n`,
  );
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
