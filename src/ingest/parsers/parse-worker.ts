import { setPriority } from 'node:os';
import type { MessagePort } from 'node:worker_threads';
import { workerData } from 'piscina';
import { IndexTask, RowBatch, RowBuilder } from '../index-rows';
import { LimitError, type ParseLimits } from '../limits';
import type { OriginalRef } from '../originals';
import { readOriginal } from './read-original';
import { addPageRun, IngestError, ParsedPage, DocumentKind, PageRun } from '../types';
import { parseInThread } from './index';
import { GrayImage, OcrResult, recognise } from './ocr';
import { onRecognition } from './ocr-pages';
import { takeOffered, useOcrHelpers } from './ocr-spread';
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
  /** Other threads of the pool that may recognise this document's pages (pool threads less one). */
  helpers?: number;
  /** A page task: one page offered by a document's thread (ocr-spread.ts), recognised here. */
  ocrPage?: { pageNumber: number; image: GrayImage; claim: Int32Array };
}

/** Why a page or document failed, as it crosses between threads (an error's class does not). */
export interface Failure {
  name: string;
  message: string;
  ingest: boolean;
}

/** What a page task gives back: the page's words, nothing (the page was taken back), or why it failed. */
export type PageOutcome = { result: OcrResult } | { takenBack: true } | { error: Failure };

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
  | ({ type: 'failed'; spoiled: boolean } & Failure)
  /** A drawn page offered to the pool's other threads (ocr-spread.ts). */
  | { type: 'offer'; pageNumber: number; image: GrayImage; claim: Int32Array };

/** The server acknowledges each batch of rows once it is in PostgreSQL, and hands back offered pages' outcomes. */
export type ParseReply = { type: 'ack' } | ({ type: 'recognised'; pageNumber: number } & PageOutcome);

/** An error from another thread, with its kind back. */
const revive = (f: Failure): Error =>
  f.ingest ? (f.name === 'LimitError' ? new LimitError(f.message) : new IngestError(f.message)) : new Error(f.message);

/** Why `e` failed the work, as it is told across threads. */
function failure(e: unknown): Failure {
  const err = e as Error;
  // a stack overflow or an over-long string is the file's doing too, so it is not retried
  if (err instanceof RangeError && /call stack/i.test(err.message))
    return { name: 'LimitError', message: 'the document nests too deeply to read (parser stack exhausted)', ingest: true };
  if (err instanceof RangeError && /length/i.test(err.message))
    return { name: 'LimitError', message: 'document expands to more text than the parser can hold', ingest: true };
  return { name: err?.name ?? 'Error', message: String(err?.message ?? e), ingest: e instanceof IngestError };
}

/**
 * A page task: recognises one offered page unless its document's thread has taken it back. Its
 * thread and its recognition are told on the port, so the pool counts them against the document.
 */
async function recogniseOffered(task: ParseTask): Promise<PageOutcome> {
  const { port } = task;
  const { pageNumber, image, claim } = task.ocrPage!;
  try {
    port.postMessage({ type: 'start', tid: THREAD_ID } satisfies ParseMessage);
    if (!takeOffered(claim)) return { takenBack: true };
    port.postMessage({ type: 'recognising', pageNumber } satisfies ParseMessage);
    return { result: await recognise(image, task.limits.ocr!) };
  } catch (e) {
    return { error: failure(e) };
  } finally {
    port.close();
  }
}

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
export default async function parseTask(task: ParseTask): Promise<void | PageOutcome> {
  if (task.ocrPage) return recogniseOffered(task);
  const { port } = task;
  const post = (m: ParseMessage) => port.postMessage(m);
  let unacked = 0;
  let resume: (() => void) | null = null;
  const offered = new Map<number, { resolve: (r: OcrResult | null) => void; reject: (e: Error) => void }>();
  port.on('message', (m: ParseReply) => {
    if (m?.type === 'recognised') {
      const o = offered.get(m.pageNumber);
      offered.delete(m.pageNumber);
      if ('error' in m) o?.reject(revive(m.error));
      else o?.resolve('result' in m ? m.result : null);
    }
    if (m?.type !== 'ack') return;
    unacked--;
    resume?.();
  });
  useOcrHelpers(
    task.helpers
      ? {
          threads: task.helpers,
          offer: (pageNumber, image, claim) =>
            new Promise((resolve, reject) => {
              offered.set(pageNumber, { resolve, reject });
              post({ type: 'offer', pageNumber, image, claim });
            }),
        }
      : null,
  );
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
      {
        onTotal: (pagesTotal) => post({ type: 'total', pagesTotal }),
        onPage: (page) => {
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
      },
      { onFormat: (kind) => post({ type: 'format', kind }) },
    );
    builder?.finish();
    post({ type: 'done', pages, chunks: builder?.chunkCount ?? 0, runs, spoiled: threadSpoiled() });
  } catch (e) {
    post({ type: 'failed', ...failure(e), spoiled: threadSpoiled() });
  } finally {
    onRecognition(null);
    useOcrHelpers(null);
    port.close();
  }
  // the outcome is posted; a spoiled thread keeps its task open until the pool ends the thread
  // (it does for a task whose outcome says so), or ends itself after a minute
  if (threadSpoiled()) {
    await new Promise((r) => setTimeout(r, 60_000));
    process.exit(1);
  }
}
