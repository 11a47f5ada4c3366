import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../logger';
import { query } from '../../db/sql';
import type { DocumentProgress, ProgressHub } from '../progress';

/** A watcher re-reads the row this often when no event arrives. */
const WATCH_RECHECK_MS = 5000;

/** The document's state as a progress event, from its row (null when it no longer exists). */
export async function snapshot(em: EntityManager, documentId: string): Promise<DocumentProgress | null> {
  const [row] = await query<{
    project_id: string;
    status: DocumentProgress['status'];
    pages_done: number;
    pages_total: number;
    page_count: number;
    chunk_count: number;
    error: string | null;
  }>(em, 'select project_id, status, pages_done, pages_total, page_count, chunk_count, error from documents where id = ?', [documentId]);
  if (!row) return null;
  return {
    documentId,
    projectId: row.project_id,
    status: row.status,
    pagesDone: row.pages_done,
    pagesTotal: row.pages_total,
    pageCount: row.page_count,
    chunkCount: row.chunk_count,
    error: row.error,
  };
}

/** Publishes the document's current state (best effort: a lost event only delays a live view). */
export async function announce(hub: ProgressHub | null, logger: Logger, em: EntityManager, documentId: string): Promise<void> {
  try {
    const event = await snapshot(em, documentId);
    if (event && hub) await hub.publish(em, event);
  } catch (err) {
    logger.warn({ err, documentId }, 'publishing document progress failed');
  }
}

/**
 * A document's progress as a stream: the current state first, then every change, ending after
 * `ready` or `failed`, when the document is deleted, or when `shutdown` aborts (or the consumer
 * stops reading). Events are pushed (see ProgressHub); the row is also re-read every
 * WATCH_RECHECK_MS, so a notification lost to a reconnect or a deletion never leaves a watcher
 * waiting forever.
 */
export function progressStream(
  hub: ProgressHub,
  documentId: string,
  read: () => Promise<DocumentProgress | null>,
  shutdown: AbortSignal,
): AsyncIterable<DocumentProgress> {
  const done = (e: DocumentProgress) => e.status === 'ready' || e.status === 'failed';
  const same = (a: DocumentProgress, b: DocumentProgress) => JSON.stringify(a) === JSON.stringify(b);
  return {
    [Symbol.asyncIterator]: async function* () {
      const pending: Array<DocumentProgress | null> = [];
      let wake: (() => void) | null = null;
      const off = hub.on(documentId, (e) => {
        pending.push(e);
        wake?.();
      });
      const onShutdown = () => wake?.();
      shutdown.addEventListener('abort', onShutdown);
      try {
        // subscribed before reading, so nothing between the read and the first event is missed
        let last = await read();
        if (!last) return;
        yield last;
        while (!done(last) && !shutdown.aborted) {
          if (!pending.length) {
            let timer: NodeJS.Timeout | undefined;
            await new Promise<void>((resolve) => {
              wake = resolve;
              timer = setTimeout(resolve, WATCH_RECHECK_MS);
            });
            clearTimeout(timer);
            wake = null;
          }
          const next = pending.length ? pending.shift() : shutdown.aborted ? null : await read();
          if (!next) return; // deleted (or shutting down)
          if (same(next, last)) continue;
          last = next;
          yield next;
        }
      } finally {
        off();
        shutdown.removeEventListener('abort', onShutdown);
      }
    },
  };
}
