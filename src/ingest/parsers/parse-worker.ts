import { setPriority } from 'node:os';
import type { MessagePort } from 'node:worker_threads';
import { workerData } from 'piscina';
import { IndexTask, RowBatch, RowBuilder } from '../index-rows';
import type { ParseLimits } from '../limits';
import type { OriginalRef } from '../originals';
import { readOriginal } from './read-original';
import { addPageRun, IngestError, ParsedPage, DocumentKind, PageRun } from '../types';
import { parseInThread } from './index';
import { onRecognition } from './ocr-pages';
import { ownThreadId } from './thread-clock';
import { threadSpoiled } from './thread-health';

/**
 * What the pool sends a worker: the file (transferred, not copied) and a port for its results.
 * With `index`, the worker also chunks and analyses the pages and sends index rows instead of
 * pages (see index-rows.ts).
 */
export interface ParseTask {
  kind: DocumentKind;
  /** The file (transferred), or where to read it: a stored original, read here in slices. */
  data?: ArrayBuffer;
  original?: { url: string; ref: OriginalRef };
  limits: ParseLimits;
  port: MessagePort;
  index?: IndexTask;
}

/** Messages on a task's port, in order; `done` or `failed` is the last. */
export type ParseMessage =
  /** `tid`: the thread's kernel id, whose processor time the pool limits (null where unknown). */
  | { type: 'start'; tid: number | null }
  | { type: 'total'; pagesTotal: number }
  | { type: 'page'; page: ParsedPage }
  | { type: 'read'; pagesDone: number }
  /** Recognition (OCR) of a page starts (`pageNumber`) or has ended (null): the pool limits each page's processor time. */
  | { type: 'recognising'; pageNumber: number | null }
  | { type: 'analysis'; language: string | null }
  /** The file is another format than detected (an OLE2 file that is an Outlook message). */
  | { type: 'format'; kind: DocumentKind }
  | ({ type: 'rows' } & RowBatch)
  /** `spoiled`: the thread is not to be reused; the pool ends its task, which ends the thread (thread-health.ts). */
  | { type: 'done'; pages: number; chunks: number; runs: PageRun[]; spoiled: boolean }
  | { type: 'failed'; name: string; message: string; ingest: boolean; spoiled: boolean };

/** The server acknowledges each batch of rows once it is in PostgreSQL. */
export type ParseReply = { type: 'ack' };

/** The transferred file as a Buffer, no longer held by the task. */
function takeData(task: ParseTask): Buffer {
  const data = task.data!;
  task.data = undefined;
  return Buffer.from(data);
}

/** What every parser thread is started with (the pool's `workerData`). */
export interface ParserThreadData {
  nice: number;
}

/**
 * Parsing is background work: this thread runs at a lower scheduling priority (PARSER_NICE, 10 by
 * default) than the thread that answers requests, so on a machine with few cores a long parse
 * (pdf.js on a 40 MB file) gives way to /healthz and the API. Linux names a thread by its own id,
 * which /proc/thread-self points at; elsewhere, or if it is refused, the thread keeps its priority.
 */
const THREAD_ID = ownThreadId();
const { nice } = (workerData ?? { nice: 0 }) as ParserThreadData;
try {
  if (nice > 0 && THREAD_ID !== null && THREAD_ID !== process.pid) setPriority(THREAD_ID, nice);
} catch {
  /* refused: the default priority */
}

/** Row batches sent and not yet acknowledged before reading pauses (bounds the server's memory). */
const MAX_UNACKED = 2;

/**
 * The parser pool's task (piscina calls the default export in a worker thread). Everything goes
 * back over the task's own port, so results stream to the server while later pages are read, and
 * an error keeps its kind (an IngestError is not retried) without relying on how errors clone.
 */
export default async function parseTask(task: ParseTask): Promise<void> {
  const { port } = task;
  const post = (m: ParseMessage) => port.postMessage(m);
  let unacked = 0;
  let resume: (() => void) | null = null;
  port.on('message', (m: ParseReply) => {
    if (m?.type !== 'ack') return;
    unacked--;
    resume?.();
  });
  const builder = task.index
    ? new RowBuilder(task.index, task.limits.maxChunks, (m) => {
        if (m.type === 'rows') unacked++;
        post(m);
      })
    : null;
  const pace = async () => {
    while (unacked >= MAX_UNACKED) await new Promise<void>((r) => (resume = r));
    resume = null;
  };
  let done = 0;
  let told = 0;
  const runs: PageRun[] = [];
  post({ type: 'start', tid: THREAD_ID });
  onRecognition((pageNumber) => post({ type: 'recognising', pageNumber }));
  try {
    // handed on without a name here, so the converter can let the bytes go once it has read them
    const pages = await parseInThread(
      task.kind,
      task.original ? await readOriginal(task.original.url, task.original.ref) : takeData(task),
      task.limits,
      (pagesTotal) => post({ type: 'total', pagesTotal }),
      (page) => {
        addPageRun(runs, page);
        if (!builder) return post({ type: 'page', page });
        builder.push(page);
        done++;
        // progress is a hint for live views: a few messages a second are plenty
        if (Date.now() - told >= 100) {
          told = Date.now();
          post({ type: 'read', pagesDone: done });
        }
      },
      pace,
      { onFormat: (kind) => post({ type: 'format', kind }) },
    );
    builder?.finish();
    post({ type: 'done', pages, chunks: builder?.chunkCount ?? 0, runs, spoiled: threadSpoiled() });
  } catch (e) {
    const err = e as Error;
    // a stack overflow or an over-long string is the file's doing too, so it is not retried
    const failure =
      err instanceof RangeError && /call stack/i.test(err.message)
        ? { name: 'LimitError', message: 'the document nests too deeply to read (parser stack exhausted)', ingest: true }
        : err instanceof RangeError && /length/i.test(err.message)
          ? { name: 'LimitError', message: 'document expands to more text than the parser can hold', ingest: true }
          : { name: err?.name ?? 'Error', message: String(err?.message ?? e), ingest: e instanceof IngestError };
    post({ type: 'failed', ...failure, spoiled: threadSpoiled() });
  } finally {
    onRecognition(null);
    port.close();
  }
  // the outcome is posted; a spoiled thread keeps its task open until the pool ends the thread
  // (it does for a task whose outcome says so), or ends itself after a minute
  if (threadSpoiled()) {
    await new Promise((r) => setTimeout(r, 60_000));
    process.exit(1);
  }
}
