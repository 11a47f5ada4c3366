import type { MessagePort } from 'node:worker_threads';
import type { ParseLimits } from '../limits';
import { IngestError, ParsedPage, DocumentKind } from '../types';
import { parseInThread } from './index';

/** What the pool sends a worker: the file (transferred, not copied) and a port for its pages. */
export interface ParseTask {
  kind: DocumentKind;
  data: ArrayBuffer;
  limits: ParseLimits;
  port: MessagePort;
}

/** Messages on a task's port, in order; `done` or `failed` is the last. */
export type ParseMessage =
  | { type: 'start' }
  | { type: 'total'; pagesTotal: number }
  | { type: 'page'; page: ParsedPage }
  | { type: 'done'; pages: number }
  | { type: 'failed'; name: string; message: string; ingest: boolean };

/**
 * The parser pool's task (piscina calls the default export in a worker thread). Everything goes
 * back over the task's own port, so pages stream to the server while later ones are read, and an
 * error keeps its kind (an IngestError is not retried) without relying on how errors clone.
 */
export default async function parseTask(task: ParseTask): Promise<void> {
  const { port } = task;
  const post = (m: ParseMessage) => port.postMessage(m);
  post({ type: 'start' });
  try {
    const pages = await parseInThread(
      task.kind,
      Buffer.from(task.data),
      task.limits,
      (pagesTotal) => post({ type: 'total', pagesTotal }),
      (page) => post({ type: 'page', page }),
    );
    post({ type: 'done', pages });
  } catch (e) {
    const err = e as Error;
    // a stack overflow or an over-long string is the file's doing too, so it is not retried
    if (err instanceof RangeError && /call stack/i.test(err.message))
      post({ type: 'failed', name: 'LimitError', message: 'the document nests too deeply to read (parser stack exhausted)', ingest: true });
    else if (err instanceof RangeError && /length/i.test(err.message))
      post({ type: 'failed', name: 'LimitError', message: 'document expands to more text than the parser can hold', ingest: true });
    else post({ type: 'failed', name: err?.name ?? 'Error', message: String(err?.message ?? e), ingest: e instanceof IngestError });
  } finally {
    port.close();
  }
}
