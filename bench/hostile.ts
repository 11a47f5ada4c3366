import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { hostileCases, HostileCase, probe, ProbeResult } from '../test/support/hostile';
import { round, table, writeResult } from './docs-env';
import { signedInProject, startBenchEnv } from './lib/env';

/**
 * "Hostile upload": /healthz latency of the real server (its own process, in-process ingestion
 * workers) while the hostile-documents set is ingested, against the same probe when idle. Each
 * input is first ingested alone (its own probe, so a stall is attributed to it), then all of them
 * in one upload. Also the server's peak RSS (VmHWM).
 *
 *   node dist/bench/hostile.js [--deadline 120]    (seconds to wait for one document)
 */
export interface HostileBenchResult {
  idle: ProbeResult;
  during: ProbeResult;
  cases: Array<{
    label: string;
    name: string;
    bytes: number;
    status: string;
    error: string | null;
    attempts: number | null;
    seconds: number;
    healthz: ProbeResult;
  }>;
  allTogetherSeconds: number;
  peakRssMb: number;
  target: string;
  met: boolean;
}

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

const LIMITS = { timeoutSeconds: 10, pdfMaxPages: 5000, pdfMaxPageChars: 100_000, maxExpandedMb: 200, htmlMaxDepth: 256 };

export async function benchHostile(opts: { deadlineSeconds?: number } = {}): Promise<HostileBenchResult> {
  const deadline = (opts.deadlineSeconds ?? 120) * 1000;
  const env = await startBenchEnv({
    WORKER_CONCURRENCY: '2',
    PARSER_TIMEOUT_SECONDS: String(LIMITS.timeoutSeconds),
    INGEST_RETRY_DELAY_SECONDS: '1',
    JOB_POLLING_SECONDS: '1',
  });
  try {
    const { auth, projectId } = await signedInProject(env, 'hostile bench');
    const cases = await hostileCases(LIMITS);
    const healthz = `${env.baseUrl}/healthz`;

    const upload = async (files: HostileCase[], salt: string): Promise<string[]> => {
      const form = new FormData();
      // a salt keeps the second round from being answered as duplicates of the first
      for (const f of files) form.append('file', new Blob([new Uint8Array(Buffer.concat([f.content, Buffer.from(salt)]))]), f.name);
      const res = await fetch(`${env.baseUrl}/api/projects/${projectId}/documents`, { method: 'POST', headers: auth, body: form });
      if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
      return (((await res.json()) as any).documents as Array<{ id: string }>).map((d) => d.id);
    };
    const waitAll = async (ids: string[]) => {
      const until = Date.now() + deadline;
      const final = new Map<string, { status: string; error: string | null }>();
      while (final.size < ids.length && Date.now() < until) {
        for (const id of ids.filter((x) => !final.has(x))) {
          const doc = ((await (await fetch(`${env.baseUrl}/api/documents/${id}`, { headers: auth })).json()) as any).document;
          if (doc.status === 'ready' || doc.status === 'failed') final.set(id, doc);
        }
        await new Promise((r) => setTimeout(r, 200));
      }
      return ids.map((id) => final.get(id) ?? { status: 'unfinished', error: `not final after ${deadline / 1000} s` });
    };

    const idleProbe = probe(healthz);
    await new Promise((r) => setTimeout(r, 5000));
    const idle = await idleProbe.stop();

    const results: HostileBenchResult['cases'] = [];
    for (const c of cases) {
      const p = probe(healthz);
      const t0 = performance.now();
      const [id] = await upload([c], '');
      const [doc] = await waitAll([id]);
      const seconds = round((performance.now() - t0) / 1000, 2);
      const h = await p.stop();
      results.push({
        label: c.label,
        name: c.name,
        bytes: c.content.length,
        status: doc.status,
        error: doc.error,
        attempts: null,
        seconds,
        healthz: h,
      });
      process.stdout.write(
        `${c.name}: ${doc.status} ${doc.error ?? ''} in ${seconds} s; /healthz p99 ${h.p99} ms, max ${h.max} ms, ${h.failures} failed\n`,
      );
    }

    const p = probe(healthz);
    const t0 = performance.now();
    const ids = await upload(cases, '\n');
    await waitAll(ids);
    const allTogetherSeconds = round((performance.now() - t0) / 1000, 2);
    const during = await p.stop();
    const peakRssMb = Math.round(
      Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${env.server.proc.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
    );
    return {
      idle,
      during,
      cases: results,
      allTogetherSeconds,
      peakRssMb,
      target: '/healthz p99 < 100 ms while hostile documents are ingested',
      met: during.p99 < 100 && during.failures === 0,
    };
  } finally {
    await env.close();
  }
}

async function main(): Promise<void> {
  const r = await benchHostile({ deadlineSeconds: arg('deadline', 120) });
  const file = writeResult('hostile', { ...r, measuredAt: new Date().toISOString() });
  process.stdout.write(
    `\n${table(
      ['input', 'bytes', 'outcome', 'seconds', '/healthz p99 / max (ms)'],
      r.cases.map((c) => [
        c.label,
        c.bytes,
        `${c.status}${c.error ? `: ${c.error}` : ''}`,
        c.seconds,
        `${c.healthz.p99} / ${c.healthz.max}${c.healthz.failures ? ` (${c.healthz.failures} failed)` : ''}`,
      ]),
    )}\n\n${table(
      ['metric', 'measured', 'target', 'met'],
      [
        ['/healthz idle', `p50 ${r.idle.p50} ms, p99 ${r.idle.p99}, max ${r.idle.max}`, '—', '—'],
        [
          `/healthz while all ${r.cases.length} hostile inputs are ingested (${r.allTogetherSeconds} s)`,
          `p50 ${r.during.p50} ms, p99 ${r.during.p99}, max ${r.during.max}, ${r.during.failures} failed`,
          'p99 < 100 ms',
          r.met ? 'yes' : 'NO',
        ],
        ['server peak RSS', `${r.peakRssMb} MB`, '—', '—'],
      ],
    )}\n\n${file}\n`,
  );
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`bench failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
