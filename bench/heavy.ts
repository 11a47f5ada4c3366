import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { ParserPool } from '../src/ingest/parsers/pool';
import { parseInThread } from '../src/ingest/parsers/index';
import type { ParseLimits } from '../src/ingest/limits';
import { heavyCases } from '../test/support/heavy';
import { probe, ProbeResult } from '../test/support/hostile';
import { makePdf } from '../test/support/pdf';
import { round, table, writeResult } from './docs-env';
import { signedInProject, startBenchEnv } from './lib/env';

/**
 * Heavy and hostile ingestion, one input at a time, each on a fresh real server (its own process,
 * in-process ingestion workers, default WORKER_CONCURRENCY): /healthz probed every 20 ms while
 * the input is ingested (p50, p99, max), the server's peak RSS during that input (VmHWM, reset
 * after start-up through /proc/PID/clear_refs) against the bound RSS at rest + RSS_CONSTANT_MB +
 * 2.5 × size; and pages/s. Also the parser pool's overhead
 * per document against parsing in this thread.
 *
 *   node dist/bench/heavy.js [--scale 1] [--deadline 300] [--out file.json] [--only book.pdf,bulky.pdf]
 */
export interface HeavyBenchCase {
  label: string;
  bytes: number;
  status: string;
  error: string | null;
  seconds: number;
  pagesPerSecond: number | null;
  healthz: ProbeResult;
  /** The server's RSS before the upload (a fresh server for each input). */
  restRssMb: number;
  peakRssMb: number;
}

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};

const LIMITS = { maxPages: 5000, maxExpandedMb: 200, htmlMaxDepth: 256 };

const rssOf = (pid: number, key: 'VmHWM' | 'VmRSS'): number =>
  Math.round(Number(new RegExp(`${key}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

/** The parser pool's cost per small document over parsing in this thread (mean of `n`). */
async function poolOverhead(n = 200): Promise<{ inProcessMs: number; poolMs: number; overheadMs: number }> {
  const limits: ParseLimits = {
    maxExpandedBytes: 200 * 1024 * 1024,
    maxZipEntries: 5000,
    htmlMaxNodes: 1_000_000,
    htmlMaxDepth: 256,
    pdfMaxPages: 5000,
    pdfMaxPageChars: 100_000,
    maxChunks: 100_000,
    maxSheets: 200,
    maxCells: 2_000_000,
    maxAttachments: 100,
    ocr: null,
  };
  const doc = makePdf([{ paragraphs: ['The warranty lasts thirty-six months from the date of delivery.', 'Returns within 30 days.'] }]);
  const pool = new ParserPool(limits, { threads: 1, maxHeapMb: 512, timeoutMs: 60_000, nice: 10 });
  try {
    for (let i = 0; i < 20; i++) await pool.parse('pdf', doc); // warm both
    for (let i = 0; i < 20; i++) await parseInThread('pdf', doc, limits, { onTotal: () => undefined, onPage: () => undefined });
    let t0 = performance.now();
    for (let i = 0; i < n; i++) await parseInThread('pdf', doc, limits, { onTotal: () => undefined, onPage: () => undefined });
    const inProcessMs = (performance.now() - t0) / n;
    t0 = performance.now();
    for (let i = 0; i < n; i++) await pool.parse('pdf', doc);
    const poolMs = (performance.now() - t0) / n;
    return { inProcessMs: round(inProcessMs, 2), poolMs: round(poolMs, 2), overheadMs: round(poolMs - inProcessMs, 2) };
  } finally {
    await pool.destroy();
  }
}

/** A server of its own for one input: RSS and the probe see nothing of another input's work. */
async function openServer(): Promise<{
  env: Awaited<ReturnType<typeof startBenchEnv>>;
  pid: number;
  auth: Record<string, string>;
  projectId: string;
}> {
  const env = await startBenchEnv({ JOB_POLLING_SECONDS: '1', MAX_UPLOAD_MB: '60' });
  const { auth, projectId } = await signedInProject(env, 'heavy bench');
  return { env, pid: env.server.proc.pid!, auth, projectId };
}

/** Uploads one input and waits for its final status, probing /healthz and the server's peak RSS. */
async function ingestOne(
  server: Awaited<ReturnType<typeof openServer>>,
  c: { label: string; name: string; content: Buffer },
  deadlineSeconds: number,
): Promise<HeavyBenchCase> {
  const { env, pid, auth, projectId } = server;
  await new Promise((r) => setTimeout(r, 1000)); // let start-up garbage go
  const restRssMb = rssOf(pid, 'VmRSS');
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
  } catch {
    /* an older kernel: the peak is then the process's lifetime peak */
  }
  const p = probe(`${env.baseUrl}/healthz`, 20);
  const t0 = performance.now();
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(c.content)]), c.name);
  const res = await fetch(`${env.baseUrl}/api/projects/${projectId}/documents`, { method: 'POST', headers: auth, body: form });
  if (res.status !== 202) throw new Error(`upload of ${c.name} answered ${res.status}: ${await res.text()}`);
  const id = ((await res.json()) as any).documents[0].id as string;
  let doc: any = { status: 'unfinished', error: `not final after ${deadlineSeconds} s` };
  const until = Date.now() + deadlineSeconds * 1000;
  while (Date.now() < until) {
    const d = ((await (await fetch(`${env.baseUrl}/api/documents/${id}`, { headers: auth })).json()) as any).document;
    if (d.status === 'ready' || d.status === 'failed') {
      doc = d;
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (performance.now() - t0) / 1000;
  const h = await p.stop();
  const peakRssMb = rssOf(pid, 'VmHWM');
  const pages = doc.status === 'ready' ? (doc.pageCount as number) : null;
  process.stdout.write(
    `${c.name}: ${doc.status} ${doc.error ?? ''} in ${round(seconds, 2)} s; /healthz p50 ${h.p50} p99 ${h.p99} max ${h.max} ms (${h.failures} failed); RSS ${restRssMb} → peak ${peakRssMb} MB\n`,
  );
  return {
    label: c.label,
    bytes: c.content.length,
    status: doc.status,
    error: doc.error ?? null,
    seconds: round(seconds, 2),
    pagesPerSecond: pages ? round(pages / seconds, 1) : null,
    healthz: h,
    restRssMb,
    peakRssMb,
  };
}

/** The smallest input: what ingestion costs whatever the file (parser threads, pdf.js, analysis). */
const SMALL = {
  label: 'one-page PDF',
  name: 'small.pdf',
  content: makePdf([{ paragraphs: ['The warranty lasts thirty-six months from the date of delivery.'] }]),
};
/** The bound the issue sets: RSS under this many times the file's size plus a constant. */
export const RSS_SIZE_FACTOR = 2.5;
/**
 * The constant, above the fresh server's RSS at rest: the size-independent part of the peak.
 * Measured by ingesting the inputs at two or three sizes (--scale 0.5, 1, 2; README, "Heavy and
 * hostile ingestion"): peak minus rest grows by 2.9 MB per MB for the text book and 4 for the
 * Markdown of headings, and the lines meet size zero at 50–75 MB (the parser threads' young
 * generations and code, pdf.js, markdown-it and the analysers, the main thread's row batches);
 * 100 MB leaves room for the ±15 MB the peak varies between runs.
 */
export const RSS_CONSTANT_MB = 100;

export async function benchHeavy(opts: { scale: number; deadlineSeconds: number; only?: string[] }) {
  const all = await heavyCases({ scale: opts.scale, ...LIMITS });
  const cases: HeavyBenchCase[] = [];
  let idle: ProbeResult | null = null;
  let baseRssMb = 0;
  for (const c of [SMALL, ...(opts.only?.length ? all.filter((x) => opts.only!.includes(x.name)) : all)]) {
    const server = await openServer();
    try {
      if (!idle) {
        const idleProbe = probe(`${server.env.baseUrl}/healthz`, 20);
        await new Promise((r) => setTimeout(r, 3000));
        idle = await idleProbe.stop();
        baseRssMb = rssOf(server.pid, 'VmRSS');
      }
      cases.push(await ingestOne(server, c, opts.deadlineSeconds));
    } finally {
      await server.env.close();
    }
  }
  const rows = cases.map((c) => {
    const boundMb = Math.round(c.restRssMb + RSS_CONSTANT_MB + RSS_SIZE_FACTOR * (c.bytes / 1024 / 1024));
    return { ...c, rssBoundMb: boundMb, rssMet: c.peakRssMb <= boundMb };
  });
  return { idle: idle!, baseRssMb, rssConstantMb: RSS_CONSTANT_MB, cases: rows, pool: await poolOverhead() };
}

async function main(): Promise<void> {
  const scale = Number(arg('scale', '1'));
  const only = arg('only', '').split(',').filter(Boolean);
  const r = await benchHeavy({ scale, deadlineSeconds: Number(arg('deadline', '300')), only });
  const out = { ...r, scale, measuredAt: new Date().toISOString() };
  const file = arg('out', '') ? (writeFileSync(arg('out', ''), JSON.stringify(out, null, 2)), arg('out', '')) : writeResult('heavy', out);
  process.stdout.write(
    `\n${table(
      ['input', 'MB', 'outcome', 's', 'pages/s', '/healthz p50 / p99 / max (ms)', 'RSS at rest → peak (MB)', 'RSS bound (MB)', 'met'],
      r.cases.map((c) => [
        c.label,
        round(c.bytes / 1024 / 1024, 1),
        `${c.status}${c.error ? `: ${c.error.slice(0, 60)}` : ''}`,
        c.seconds,
        c.pagesPerSecond ?? '—',
        `${c.healthz.p50} / ${c.healthz.p99} / ${c.healthz.max}${c.healthz.failures ? ` (${c.healthz.failures} failed)` : ''}`,
        `${c.restRssMb} → ${c.peakRssMb}`,
        c.rssBoundMb,
        c.rssMet ? 'yes' : 'NO',
      ]),
    )}\n\nidle /healthz p50 ${r.idle.p50} / p99 ${r.idle.p99} / max ${r.idle.max} ms; server RSS at rest ${r.baseRssMb} MB\n` +
      `RSS bound: the fresh server's RSS at rest + ${r.rssConstantMb} MB + ${RSS_SIZE_FACTOR} × the file's size\n` +
      `parser pool: ${r.pool.poolMs} ms per one-page PDF vs ${r.pool.inProcessMs} ms in process (overhead ${r.pool.overheadMs} ms)\n${file}\n`,
  );
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
