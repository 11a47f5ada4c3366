import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config';
import { parseInThread } from '../src/ingest/parsers';
import { ParserPool } from '../src/ingest/parsers/pool';
import { makePdf } from '../test/support/pdf';
import { benchActor, openDocsBenchEnv, quantile, round, table, writeResult } from './docs-env';
import { prose } from './synthetic-text';

/**
 * Ingestion throughput of ONE worker (WORKER_CONCURRENCY=1) for a text PDF of PAGES pages
 * (~3,000 characters a page), through the real pipeline: upload → pg-boss job → pdf.js page by
 * page in a worker thread → chunker → chunks, tsvectors and BM25 statistics in one transaction.
 * Worker time is measured from the job's `processing` event to its `ready` event; the parse alone
 * (pdf.js + layout, through the parser pool as ingestion runs it, and in the calling thread) is
 * measured separately to show where the time goes and what the worker hop costs.
 *
 *   node dist/bench/ingest.js [--pages 200] [--runs 3]      (DATABASE_URL or a temp embedded PostgreSQL)
 */
export interface IngestBenchResult {
  pages: number;
  charsPerPage: number;
  pdfBytes: number;
  runs: Array<{
    workerMs: number;
    endToEndMs: number;
    parseOnlyMs: number;
    parseInThreadMs: number;
    chunks: number;
    pagesPerSecond: number;
  }>;
  pagesPerSecond: { median: number; min: number };
  parseOnlyPagesPerSecond: { median: number };
  /** The same parse in the calling thread (no pool): the difference is the cost of the worker hop. */
  parseInThreadPagesPerSecond: { median: number };
  workerHopMs: { median: number; perPage: number };
  target: string;
  met: boolean;
}

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

/** A PAGES-page text PDF; `seed` makes each run's content (and sha256) different. */
function textPdf(pages: number, seed: number): { pdf: Buffer; chars: number } {
  const gen = prose(seed, 20_000);
  let chars = 0;
  const spec = Array.from({ length: pages }, () => {
    const paragraphs = Array.from({ length: 5 }, () => gen.paragraph(560));
    chars += paragraphs.reduce((n, p) => n + p.length, 0);
    return { paragraphs };
  });
  return { pdf: makePdf(spec), chars };
}

export async function benchIngest(opts: { pages?: number; runs?: number } = {}): Promise<IngestBenchResult> {
  const pages = opts.pages ?? 200;
  const runs = opts.runs ?? 3;
  const env = await openDocsBenchEnv({ workers: true, env: { WORKER_CONCURRENCY: '1', JOB_POLLING_SECONDS: '1' } });
  const config = loadConfig({ JWT_SECRET: 'bench-secret-bench-secret', WORKER_CONCURRENCY: '1' });
  const pool = new ParserPool(config.parseLimits, config.parserPool);
  try {
    const project = await env.newProject('bench: ingestion');
    const results: IngestBenchResult['runs'] = [];
    let charsPerPage = 0;
    let pdfBytes = 0;
    for (let i = 0; i < runs + 1; i++) {
      const { pdf, chars } = textPdf(pages, 1000 + i);
      charsPerPage = Math.round(chars / pages);
      pdfBytes = pdf.length;

      const p0 = performance.now();
      const parsed = await pool.parse('pdf', pdf);
      const parseOnlyMs = performance.now() - p0;
      if (parsed.length !== pages) throw new Error(`parsed ${parsed.length} pages, expected ${pages}`);
      const q0 = performance.now();
      await parseInThread(
        'pdf',
        Buffer.from(pdf), // pdf.js detaches the buffer it is given
        config.parseLimits,
        { onTotal: () => undefined, onPage: () => undefined },
      );
      const parseInThreadMs = performance.now() - q0;

      const t0 = performance.now();
      const [{ document }] = await env.services.documents.upload(benchActor(), project.id, [
        { name: `bench-${i}.pdf`, mimeType: 'application/pdf', content: pdf },
      ]);
      let started = 0;
      const done = await new Promise<{ status: string; chunkCount: number; error: string | null }>((resolve) => {
        const off = env.services.documents.onProgress(document.id, (e) => {
          if (e.status === 'processing' && !started) started = performance.now();
          if (e.status === 'ready' || e.status === 'failed') {
            off();
            resolve(e);
          }
        });
      });
      const t1 = performance.now();
      if (done.status !== 'ready') throw new Error(`ingestion failed: ${done.error}`);
      const workerMs = t1 - started;
      // the first run warms up (JIT, pdf.js module load, connection pool) and is not counted
      if (i > 0)
        results.push({
          workerMs: round(workerMs),
          endToEndMs: round(t1 - t0),
          parseOnlyMs: round(parseOnlyMs),
          parseInThreadMs: round(parseInThreadMs),
          chunks: done.chunkCount,
          pagesPerSecond: round(pages / (workerMs / 1000)),
        });
    }
    const pps = results.map((r) => r.pagesPerSecond);
    const median = quantile(pps, 0.5);
    return {
      pages,
      charsPerPage,
      pdfBytes,
      runs: results,
      pagesPerSecond: { median, min: Math.min(...pps) },
      parseOnlyPagesPerSecond: {
        median: round(
          quantile(
            results.map((r) => pages / (r.parseOnlyMs / 1000)),
            0.5,
          ),
        ),
      },
      parseInThreadPagesPerSecond: {
        median: round(
          quantile(
            results.map((r) => pages / (r.parseInThreadMs / 1000)),
            0.5,
          ),
        ),
      },
      workerHopMs: {
        median: round(
          quantile(
            results.map((r) => r.parseOnlyMs - r.parseInThreadMs),
            0.5,
          ),
        ),
        perPage: round(
          quantile(
            results.map((r) => (r.parseOnlyMs - r.parseInThreadMs) / pages),
            0.5,
          ),
        ),
      },
      target: '≥ 100 pages/s per worker',
      met: median >= 100,
    };
  } finally {
    await pool.destroy();
    await env.close();
  }
}

async function main(): Promise<void> {
  const result = await benchIngest({ pages: arg('pages', 200), runs: arg('runs', 3) });
  const file = writeResult('ingest', { ...result, measuredAt: new Date().toISOString() });
  process.stdout.write(
    `\n${table(
      ['metric', 'measured', 'target', 'met'],
      [
        [
          `ingestion, ${result.pages}-page text PDF (~${result.charsPerPage} chars/page), 1 worker`,
          `${result.pagesPerSecond.median} pages/s (median of ${result.runs.length}; min ${result.pagesPerSecond.min})`,
          result.target,
          result.met ? 'yes' : 'NO',
        ],
        ['  of which pdf.js parsing alone (parser pool)', `${result.parseOnlyPagesPerSecond.median} pages/s`, '—', '—'],
        ['  same parse in the calling thread (no pool)', `${result.parseInThreadPagesPerSecond.median} pages/s`, '—', '—'],
        [
          '  cost of the worker hop (pool − in-thread)',
          `${result.workerHopMs.median} ms per document (${result.workerHopMs.perPage} ms/page)`,
          '—',
          '—',
        ],
        [
          '  upload accepted → ready (median)',
          `${quantile(
            result.runs.map((r) => r.endToEndMs),
            0.5,
          )} ms`,
          '—',
          '—',
        ],
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
