import { performance } from 'node:perf_hooks';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { LimitError, ParseLimits, PoolLimits } from '../limits';
import { DocumentKind, IngestError, PageRun, ParsedPage, ParseOptions } from '../types';
import type { IndexTask, RowBatch } from '../index-rows';
import type { OriginalRef } from '../originals';
import type { PageOutcome, ParserThreadData, ParseMessage, ParseReply, ParseTask } from './parse-worker';
import { ParseClock } from './parse-clock';
import { workerFile } from '../../util/worker-file';

export { WALL_FACTOR } from './parse-clock';

/** What a parse read: its pages, its chunks (when indexed) and how each page's text was obtained. */
export interface ParseResult {
  pages: number;
  chunks: number;
  runs: PageRun[];
  /** How many threads recognised its pages (0 without OCR; more than 1 when they were spread over the pool). */
  ocrThreads: number;
}

/** Threads that recognised pages of the document. */
const ocrThreads = (clock: ParseClock): number => new Set(clock.recognisedBy.values()).size;

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
      filename: workerFile(__dirname, 'ingest/parsers', 'parse-worker.js'),
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
   * another reason (retryable). `onResult` gets what the parse read (how many threads recognised its pages).
   */
  async parse(
    kind: DocumentKind,
    buf: Buffer | OriginalRef,
    opts: ParseOptions & { onResult?: (r: ParseResult) => void } = {},
  ): Promise<ParsedPage[]> {
    const pages: ParsedPage[] = [];
    const result = await this.run(kind, buf, undefined, opts, {
      page: (page) => {
        pages.push(page);
        opts.onPage?.(page);
        return pages.length;
      },
    });
    opts.onResult?.(result);
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
    let result: ParseResult = { pages: 0, chunks: 0, runs: [], ocrThreads: 0 };
    // progress writes and row batches are chained, so they land in order and their errors surface
    let chain: Promise<void> = Promise.resolve();
    /** The document's page tasks (ocr-spread.ts): ended with a failed document, left to finish otherwise. */
    const subtasks = new AbortController();
    let over: (e: Error) => void = () => undefined;
    const clock = new ParseClock(this.pool_.timeoutMs, this.limits.ocr?.pageTimeoutMs ?? 0, (e) => over(e));
    let settled = false;
    let onAbort: (() => void) | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        const fail = (e: Error) => {
          if (settled) return;
          settled = true;
          stop.abort();
          subtasks.abort();
          reject(e);
        };
        const then = (step: () => Promise<void> | void) => {
          chain = chain.then(step);
          chain.catch((e: Error) => fail(e));
        };
        onAbort = () => fail(signal?.reason instanceof Error ? signal.reason : new Error('parsing aborted'));
        signal?.addEventListener('abort', onAbort, { once: true });
        const progress = (done: number) => onProgress && then(() => onProgress(done, Math.max(total, done)));
        over = fail;
        let tid: number | null = null;
        port1.on('message', (m: ParseMessage) => {
          if (m.type === 'start') {
            // the clock starts when a worker takes the task, not while it waits in the queue
            tid = m.tid;
            clock.threadStart('document', m.tid);
          } else if (m.type === 'recognising') clock.recognising(tid, m.pageNumber);
          else if (m.type === 'offer') this.offer(kind, m, port1, clock, subtasks.signal, fail);
          else if (m.type === 'total') total = m.pagesTotal;
          else if (m.type === 'page') progress(handle.page?.(m.page) ?? 0);
          else if (m.type === 'read') progress(m.pagesDone);
          else if (m.type === 'analysis') then(() => handle.analysis?.(m.language));
          else if (m.type === 'format') then(() => handle.format?.(m.kind));
          else if (m.type === 'rows')
            then(async () => {
              const t0 = performance.now();
              await handle.rows?.({ json: m.json, count: m.count });
              clock.wrote(performance.now() - t0);
              if (!settled) port1.postMessage({ type: 'ack' } satisfies ParseReply);
            });
          else if (m.type === 'done') {
            result = { pages: m.pages, chunks: m.chunks, runs: m.runs, ocrThreads: ocrThreads(clock) };
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
              // pages still being recognised for the document are no longer wanted
              subtasks.abort();
              reject(err);
            }
          }
        });
        const helpers = this.limits.ocr ? this.pool_.threads - 1 : 0;
        const task: ParseTask = { kind, ...source, limits: this.limits, port: port2, helpers, ...(index ? { index } : {}) };
        this.piscina
          .run(task, { transferList: (data ? [data, port2] : [port2]) as never, signal: stop.signal })
          .catch((err: Error & { code?: string }) => fail(this.stopped(err)));
      });
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      clock.stop();
      port1.close();
    }
    await chain.catch(() => undefined); // nothing of ours may still run (e.g. on a transaction) once we return
    return result;
  }

  /** Why a task's thread stopped: out of its heap (a limit), or anything else (retryable). */
  private stopped(err: Error & { code?: string }): Error {
    return err?.code === 'ERR_WORKER_OUT_OF_MEMORY'
      ? new LimitError(`parser ran out of memory (limit ${this.pool_.maxHeapMb} MB)`)
      : new Error(`the parser stopped unexpectedly (${err?.message ?? err})`);
  }

  /**
   * Runs a page offered by a document's thread (ocr-spread.ts) as a page task: queued in the pool like
   * any task, in a thread with the same heap limit and priority, its processor time counted against
   * the document (and the page's own limit), its outcome handed back to the document's thread.
   */
  private offer(
    kind: DocumentKind,
    m: Extract<ParseMessage, { type: 'offer' }>,
    document: MessagePort,
    clock: ParseClock,
    signal: AbortSignal,
    fail: (e: Error) => void,
  ): void {
    const key = `page ${m.pageNumber}`;
    const { port1, port2 } = new MessageChannel();
    let ended = false;
    let tid: number | null = null;
    port1.on('message', (s: ParseMessage) => {
      if (ended) return;
      if (s.type === 'start') {
        tid = s.tid;
        clock.threadStart(key, s.tid);
      } else if (s.type === 'recognising') clock.recognising(tid, s.pageNumber);
    });
    const task: ParseTask = {
      kind,
      limits: this.limits,
      port: port2,
      ocrPage: { pageNumber: m.pageNumber, image: m.image, claim: m.claim },
    };
    (this.piscina.run(task, { transferList: [port2] as never, signal }) as Promise<PageOutcome>)
      .then(
        (outcome) => {
          if ('error' in outcome && !outcome.error.ingest) fail(new Error(`parsing failed: ${outcome.error.message}`));
          else document.postMessage({ type: 'recognised', pageNumber: m.pageNumber, ...outcome } satisfies ParseReply);
        },
        (err: Error & { code?: string }) => signal.aborted || fail(this.stopped(err)),
      )
      .finally(() => {
        ended = true;
        clock.threadEnd(key);
        port1.close();
      });
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
