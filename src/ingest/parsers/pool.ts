import { existsSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { LimitError, ParseLimits, PoolLimits } from '../limits';
import { DocumentKind, IngestError, PageRun, ParsedPage, ParseOptions } from '../types';
import type { IndexTask, RowBatch } from '../index-rows';
import type { OriginalRef } from '../originals';
import type { ParserThreadData, ParseMessage, ParseReply, ParseTask } from './parse-worker';
import { threadCpuMs } from './thread-clock';

/**
 * A parse that waits without working (its thread starved, or blocked) is stopped after this many
 * times the processor-time limit in wall-clock time.
 */
export const WALL_FACTOR = 10;
/** The granularity of /proc's processor times. */
const CLOCK_TICK_MS = 10;

/**
 * The compiled worker script. Under ts-jest this module is TypeScript but worker threads need
 * JavaScript, so the build in dist/ is used (npm test builds it first).
 */
function workerFile(): string {
  const here = path.join(__dirname, 'parse-worker.js');
  if (existsSync(here)) return here;
  const built = path.resolve(__dirname, '../../../dist/src/ingest/parsers/parse-worker.js');
  if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build`);
  return built;
}

/** What a parse read: its pages, its chunks (when indexed) and how each page's text was obtained. */
export interface ParseResult {
  pages: number;
  chunks: number;
  runs: PageRun[];
}

/**
 * Every parser runs here: a piscina pool of worker threads, each with a heap limit, and a
 * processor-time limit per document (wall-clock where the thread's time cannot be read). A
 * document over a limit fails with an IngestError naming the limit (not retried); its worker is
 * terminated and piscina starts a fresh one, so the server's event loop and the other documents
 * never notice. Pages stream back over a MessagePort given to
 * each task, so indexing overlaps parsing and progress is reported page by page.
 */
export class ParserPool {
  private pool: Piscina | null = null;

  constructor(
    private readonly limits: ParseLimits,
    private readonly pool_: PoolLimits,
    /** The database the parser threads read stored originals from (parseAndIndex with an OriginalRef). */
    private readonly dbUrl?: string,
  ) {}

  private get piscina(): Piscina {
    // created on first use, so processes that never parse start no threads
    return (this.pool ??= new Piscina({
      filename: workerFile(),
      minThreads: 1,
      maxThreads: this.pool_.threads,
      idleTimeout: 60_000,
      atomics: 'disabled',
      workerData: { nice: this.pool_.nice } satisfies ParserThreadData,
      resourceLimits: { maxOldGenerationSizeMb: this.pool_.maxHeapMb, maxYoungGenerationSizeMb: 8 },
    }));
  }

  /**
   * Extracts a document's pages in a worker thread. `onPage` gets each page in order as it is
   * read, `onProgress` follows each page (PDFs know their page count up front; the others report
   * at the end). Rejects with IngestError (LimitError for a limit) for a file that cannot be read,
   * with the signal's reason when `signal` aborts, and with a plain Error when a worker died for
   * another reason (retryable).
   */
  async parse(kind: DocumentKind, buf: Buffer | OriginalRef, opts: ParseOptions = {}): Promise<ParsedPage[]> {
    const pages: ParsedPage[] = [];
    await this.run(kind, buf, undefined, opts, {
      page: (page) => {
        pages.push(page);
        opts.onPage?.(page);
        return pages.length;
      },
    });
    return pages;
  }

  /**
   * Parses, chunks and analyses a document in a worker thread (see index-rows.ts): the language
   * comes first (`onAnalysis`, before any rows), then bounded batches of index rows (`onRows`,
   * awaited one after another; the worker pauses reading while two batches wait). Fails like
   * parse(), and with the rejection of `onAnalysis`/`onRows` (the worker is then stopped).
   */
  async parseAndIndex(
    kind: DocumentKind,
    buf: Buffer | OriginalRef,
    index: IndexTask,
    opts: Pick<ParseOptions, 'onProgress' | 'signal'> & {
      onAnalysis: (language: string | null) => Promise<void>;
      onRows: (batch: RowBatch) => Promise<void>;
      /** The file turned out to be another format than `kind` (an OLE2 file that is an Outlook message). */
      onFormat?: (kind: DocumentKind) => Promise<void>;
    },
  ): Promise<ParseResult> {
    return this.run(kind, buf, index, opts, { analysis: opts.onAnalysis, rows: opts.onRows, format: opts.onFormat });
  }

  private async run(
    kind: DocumentKind,
    buf: Buffer | OriginalRef,
    index: IndexTask | undefined,
    opts: Pick<ParseOptions, 'onProgress' | 'signal'>,
    handle: {
      page?: (page: ParsedPage) => number;
      analysis?: (language: string | null) => Promise<void>;
      rows?: (batch: RowBatch) => Promise<void>;
      format?: (kind: DocumentKind) => Promise<void>;
    },
  ): Promise<ParseResult> {
    const { onProgress, signal } = opts;
    signal?.throwIfAborted();
    const { port1, port2 } = new MessageChannel();
    // a buffer is copied to be transferred (it may share a pool); a stored original is read by the thread itself
    const data = Buffer.isBuffer(buf) ? new Uint8Array(buf).buffer : null;
    if (!data && !this.dbUrl) throw new Error('the parser pool has no database to read originals from');
    const source = data ? { data } : { original: { url: this.dbUrl!, ref: buf as OriginalRef } };
    const stop = new AbortController();
    let total = 0;
    let result: ParseResult = { pages: 0, chunks: 0, runs: [] };
    // progress writes and row batches are chained, so they land in order and their errors surface
    let chain: Promise<void> = Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    /** Time spent writing rows (not counted against the parse time limit). */
    let writing = 0;
    let onAbort: (() => void) | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        const fail = (e: Error) => {
          if (settled) return;
          settled = true;
          stop.abort();
          reject(e);
        };
        const then = (step: () => Promise<void> | void) => {
          chain = chain.then(step);
          chain.catch((e: Error) => fail(e));
        };
        onAbort = () => fail(signal?.reason instanceof Error ? signal.reason : new Error('parsing aborted'));
        signal?.addEventListener('abort', onAbort, { once: true });
        const progress = (done: number) => onProgress && then(() => onProgress(done, Math.max(total, done)));
        // the processor-time budget: PARSER_TIMEOUT_SECONDS, and OCR_PAGE_TIMEOUT_SECONDS more for
        // each page recognised, which may itself use no more than that (a page is told by the worker)
        let clock: { tid: number | null; cpu0: number | null; started: number } | null = null;
        let budget = this.pool_.timeoutMs;
        const pageLimit = this.limits.ocr?.pageTimeoutMs ?? 0;
        const pageS = Math.round(pageLimit / 100) / 10;
        let ocrPage: { n: number; cpu0: number | null; started: number } | null = null;
        const cpuNow = () => (clock?.tid == null ? null : threadCpuMs(clock.tid));
        const check = () => {
          clearTimeout(timer);
          if (settled || !clock) return;
          // processor time is the file's doing; time spent waiting for the cores or for row
          // writes is not. Where it cannot be read, wall-clock time less the writes stands in.
          const now = cpuNow();
          const readable = now !== null && clock.cpu0 !== null;
          const factor = readable ? WALL_FACTOR : 1;
          const used = readable ? now - clock.cpu0! : 0;
          const waited = performance.now() - clock.started - writing;
          const budgetS = Math.round(budget / 100) / 10;
          if (used >= budget) return fail(new LimitError(`parsing used more than ${budgetS} s of processor time`));
          if (waited >= factor * budget) return fail(new LimitError(`parsing took longer than ${Math.round(budgetS * factor)} s`));
          let wait = Math.min(budget - used, factor * budget - waited);
          if (ocrPage) {
            const pageUsed = now === null || ocrPage.cpu0 === null ? 0 : now - ocrPage.cpu0;
            const pageWaited = performance.now() - ocrPage.started;
            const over = pageUsed >= pageLimit ? 'used more than' : pageWaited >= factor * pageLimit ? 'took longer than' : null;
            if (over) {
              const s = over === 'used more than' ? `${pageS} s of processor time` : `${Math.round(pageS * factor)} s`;
              return fail(new LimitError(`recognising page ${ocrPage.n} ${over} ${s} (OCR_PAGE_TIMEOUT_SECONDS)`));
            }
            wait = Math.min(wait, pageLimit - pageUsed, factor * pageLimit - pageWaited);
          }
          timer = setTimeout(check, Math.max(0, wait) + CLOCK_TICK_MS);
        };
        port1.on('message', (m: ParseMessage) => {
          if (m.type === 'start') {
            // the clock starts when a worker takes the task, not while it waits in the queue
            clock = { tid: m.tid, cpu0: null, started: performance.now() };
            clock.cpu0 = cpuNow();
            timer = setTimeout(check, budget);
          } else if (m.type === 'recognising') {
            if (m.pageNumber === null) ocrPage = null;
            else {
              budget += pageLimit;
              ocrPage = { n: m.pageNumber, cpu0: cpuNow(), started: performance.now() };
              check();
            }
          } else if (m.type === 'total') total = m.pagesTotal;
          else if (m.type === 'page') progress(handle.page?.(m.page) ?? 0);
          else if (m.type === 'read') progress(m.pagesDone);
          else if (m.type === 'analysis') then(() => handle.analysis?.(m.language));
          else if (m.type === 'format') then(() => handle.format?.(m.kind));
          else if (m.type === 'rows')
            then(async () => {
              const t0 = performance.now();
              await handle.rows?.({ json: m.json, count: m.count });
              writing += performance.now() - t0;
              if (!settled) port1.postMessage({ type: 'ack' } satisfies ParseReply);
            });
          else if (m.type === 'done') {
            result = { pages: m.pages, chunks: m.chunks, runs: m.runs };
            then(() => {
              if (!settled) {
                settled = true;
                // a spoiled thread keeps its task open to be ended (thread-health.ts): ending the
                // task terminates the thread. A healthy one is returning its task and stays: ending
                // every finished task raced piscina's own completion message and, on a busy
                // machine, killed healthy threads (each replacement loads the parsers again).
                if (m.spoiled) stop.abort();
                resolve();
              }
            });
          } else if (m.type === 'failed') {
            const err = m.ingest
              ? m.name === 'LimitError'
                ? new LimitError(m.message)
                : new IngestError(m.message)
              : new Error(`parsing failed: ${m.message}`);
            if (m.spoiled) fail(err);
            else if (!settled) {
              settled = true;
              reject(err);
            }
          }
        });
        const task: ParseTask = { kind, ...source, limits: this.limits, port: port2, ...(index ? { index } : {}) };
        this.piscina
          .run(task, { transferList: (data ? [data, port2] : [port2]) as never, signal: stop.signal })
          .catch((err: Error & { code?: string }) => {
            if (err?.code === 'ERR_WORKER_OUT_OF_MEMORY')
              fail(new LimitError(`parser ran out of memory (limit ${this.pool_.maxHeapMb} MB)`));
            else fail(new Error(`the parser stopped unexpectedly (${err?.message ?? err})`));
          });
      });
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      clearTimeout(timer);
      port1.close();
    }
    await chain.catch(() => undefined); // nothing of ours may still run (e.g. on a transaction) once we return
    return result;
  }

  /** Whether scans and images are recognised (OCR on). */
  get ocrEnabled(): boolean {
    return this.limits.ocr !== null;
  }

  /** Starts the pool's first thread now (a worker process parses soon; its first document should not wait for it). */
  warm(): void {
    void this.piscina;
  }

  /** Stops the threads (at shutdown); parses still running are rejected. */
  async destroy(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.destroy();
  }
}
