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
import { startBenchEnv } from './lib/env';

/**
 * Heavy and hostile ingestion, one input at a time against the real server (its own process,
 * in-process ingestion workers, default WORKER_CONCURRENCY): /healthz probed every 20 ms while
 * the input is ingested (p50, p99, max), the server's peak RSS during that input (VmHWM, reset
 * before each input through /proc/PID/clear_refs), and pages/s. Also the parser pool's overhead
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
  };
  const doc = makePdf([{ paragraphs: ['The warranty lasts thirty-six months from the date of delivery.', 'Returns within 30 days.'] }]);
  const pool = new ParserPool(limits, { threads: 1, maxHeapMb: 512, timeoutMs: 60_000 });
  try {
    for (let i = 0; i < 20; i++) await pool.parse('pdf', doc); // warm both
    for (let i = 0; i < 20; i++)
      await parseInThread(
        'pdf',
        doc,
        limits,
        () => undefined,
        () => undefined,
      );
    let t0 = performance.now();
    for (let i = 0; i < n; i++)
      await parseInThread(
        'pdf',
        doc,
        limits,
        () => undefined,
        () => undefined,
      );
    const inProcessMs = (performance.now() - t0) / n;
    t0 = performance.now();
    for (let i = 0; i < n; i++) await pool.parse('pdf', doc);
    const poolMs = (performance.now() - t0) / n;
    return { inProcessMs: round(inProcessMs, 2), poolMs: round(poolMs, 2), overheadMs: round(poolMs - inProcessMs, 2) };
  } finally {
    await pool.destroy();
  }
}

export async function benchHeavy(opts: { scale: number; deadlineSeconds: number; only?: string[] }) {
  const env = await startBenchEnv({ JOB_POLLING_SECONDS: '1', MAX_UPLOAD_MB: '60' });
  const pid = env.server.proc.pid!;
  try {
    const login: any = await (
      await fetch(`${env.baseUrl}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(env.superadmin),
      })
    ).json();
    const auth = { authorization: `Bearer ${login.accessToken as string}` };
    const project: any = await (
      await fetch(`${env.baseUrl}/api/projects`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'heavy bench' }),
      })
    ).json();
    const projectId = project.project.id as string;
    const healthz = `${env.baseUrl}/healthz`;
    const idleProbe = probe(healthz, 20);
    await new Promise((r) => setTimeout(r, 3000));
    const idle = await idleProbe.stop();
    const baseRssMb = rssOf(pid, 'VmRSS');
    const cases: HeavyBenchCase[] = [];
    const all = await heavyCases({ scale: opts.scale, ...LIMITS });
    for (const c of opts.only?.length ? all.filter((x) => opts.only!.includes(x.name)) : all) {
      await new Promise((r) => setTimeout(r, 1000)); // let the previous input's garbage go
      try {
        writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
      } catch {
        /* an older kernel: the peak is then the process's lifetime peak */
      }
      const p = probe(healthz, 20);
      const t0 = performance.now();
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(c.content)]), c.name);
      const res = await fetch(`${env.baseUrl}/api/projects/${projectId}/documents`, { method: 'POST', headers: auth, body: form });
      if (res.status !== 202) throw new Error(`upload of ${c.name} answered ${res.status}: ${await res.text()}`);
      const id = ((await res.json()) as any).documents[0].id as string;
      let doc: any = { status: 'unfinished', error: `not final after ${opts.deadlineSeconds} s` };
      const until = Date.now() + opts.deadlineSeconds * 1000;
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
      cases.push({
        label: c.label,
        bytes: c.content.length,
        status: doc.status,
        error: doc.error ?? null,
        seconds: round(seconds, 2),
        pagesPerSecond: pages ? round(pages / seconds, 1) : null,
        healthz: h,
        peakRssMb,
      });
      process.stdout.write(
        `${c.name}: ${doc.status} ${doc.error ?? ''} in ${round(seconds, 2)} s; /healthz p50 ${h.p50} p99 ${h.p99} max ${h.max} ms (${h.failures} failed); peak RSS ${peakRssMb} MB\n`,
      );
    }
    return { idle, baseRssMb, cases, pool: await poolOverhead() };
  } finally {
    await env.close();
  }
}

async function main(): Promise<void> {
  const scale = Number(arg('scale', '1'));
  const only = arg('only', '').split(',').filter(Boolean);
  const r = await benchHeavy({ scale, deadlineSeconds: Number(arg('deadline', '300')), only });
  const out = { ...r, scale, measuredAt: new Date().toISOString() };
  const file = arg('out', '') ? (writeFileSync(arg('out', ''), JSON.stringify(out, null, 2)), arg('out', '')) : writeResult('heavy', out);
  process.stdout.write(
    `\n${table(
      ['input', 'MB', 'outcome', 's', 'pages/s', '/healthz p50 / p99 / max (ms)', 'peak RSS (MB)'],
      r.cases.map((c) => [
        c.label,
        round(c.bytes / 1024 / 1024, 1),
        `${c.status}${c.error ? `: ${c.error.slice(0, 60)}` : ''}`,
        c.seconds,
        c.pagesPerSecond ?? '—',
        `${c.healthz.p50} / ${c.healthz.p99} / ${c.healthz.max}${c.healthz.failures ? ` (${c.healthz.failures} failed)` : ''}`,
        c.peakRssMb,
      ]),
    )}\n\nidle /healthz p50 ${r.idle.p50} / p99 ${r.idle.p99} / max ${r.idle.max} ms; server RSS at rest ${r.baseRssMb} MB\n` +
      `parser pool: ${r.pool.poolMs} ms per one-page PDF vs ${r.pool.inProcessMs} ms in process (overhead ${r.pool.overheadMs} ms)\n${file}\n`,
  );
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
