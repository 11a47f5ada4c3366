import type { EntityManager } from '@mikro-orm/postgresql';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../../logger';
import { scopedLogger } from '../../observability/request-context';
import type { IngestFailureReason, Metrics } from '../../observability/metrics';
import { query } from '../../db/sql';
import type { SearchWing } from '../../search';

/**
 * How an ingestion attempt ended. Every attempt ends in exactly one of these, handed to
 * finish(): the document's states are queued → processing → ready | failed (| queued again for a
 * retry); embedding is a later stage that never changes the status.
 */
export type Outcome =
  /** The chunks are committed: the document is ready (and its embedding stage is queued). */
  | { kind: 'ready'; pages: number; chunks: number }
  /** The file itself cannot be indexed (a limit, corrupt bytes, no text): failed at once, not retried. */
  | { kind: 'failed'; reason: string; cause: IngestFailureReason }
  /** Anything else: retried with backoff, unless this was the last attempt (`final`). */
  | { kind: 'retry'; reason: string; cause: IngestFailureReason; attempt: number; final: boolean }
  /** The job gave up (dead letter: retries exhausted or the workers kept dying). */
  | { kind: 'dead'; reason: string }
  /** The document was deleted meanwhile: nothing to set or say. */
  | { kind: 'gone' };

/** What finish() needs: the database, the log, the metrics, the progress channel, the embedding stage. */
export interface FinishDeps {
  em: () => EntityManager;
  logger: Logger;
  metrics: Metrics;
  /** Publishes the document's current state to watchers (best effort). */
  announce: (em: EntityManager, documentId: string) => Promise<void>;
  /** The search wing: a ready document is handed to it (its embedding stage is queued; best effort). */
  search: Pick<SearchWing, 'index' | 'forget'>;
}

/**
 * The one exit of an ingestion attempt. finish(outcome) sets the status, writes the log line,
 * records the metric and notifies progress — each exactly once, whatever the outcome. It returns
 * true when the attempt is to be retried (the job host then fails the job into its backoff).
 */
export class Finisher {
  constructor(private readonly deps: FinishDeps) {}

  async finish(documentId: string, outcome: Outcome, startedAt = performance.now()): Promise<boolean> {
    const { metrics } = this.deps;
    // the job's own logger (its lines carry the job, the document and the request that queued it)
    const logger = scopedLogger(this.deps.logger);
    const em = this.deps.em();
    const ms = Math.round(performance.now() - startedAt);
    const seconds = ms / 1000;
    switch (outcome.kind) {
      case 'gone':
        // no state to set and nobody to tell (watchers heard the deletion); no attempt outcome either
        logger.info({ documentId, ms }, 'document deleted while it was ingested');
        return false;
      case 'ready': {
        await query(
          em,
          `update documents set status = 'ready', pages_done = page_count, pages_total = page_count, error = null, updated_at = now()
            where id = ? and status = 'processing'`,
          [documentId],
        );
        metrics.ingestJobDuration.observe({ outcome: 'ready' }, seconds);
        metrics.ingestPages.inc(outcome.pages);
        metrics.ingestChunks.inc(outcome.chunks);
        logger.info({ documentId, pages: outcome.pages, chunks: outcome.chunks, ms }, 'document ingested');
        await this.deps.announce(em, documentId);
        await this.deps.search.index(documentId);
        return false;
      }
      case 'failed':
      case 'dead': {
        const dead = outcome.kind === 'dead';
        // a dead letter for a document that finished meanwhile (e.g. a later reindex) changes nothing
        if (!(await this.markFailed(em, documentId, outcome.reason, dead))) return false;
        if (dead) metrics.ingestFailures.inc({ reason: 'dead_letter' });
        else {
          metrics.ingestJobDuration.observe({ outcome: 'failed' }, seconds);
          metrics.ingestFailures.inc({ reason: outcome.cause });
        }
        logger.info({ documentId, reason: outcome.reason, ms }, dead ? 'document failed (job gave up)' : 'document failed');
        await this.deps.announce(em, documentId);
        return false;
      }
      case 'retry': {
        const { attempt, final } = outcome;
        if (final) {
          await this.markFailed(
            em,
            documentId,
            `ingestion failed after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${outcome.reason}`,
            false,
          );
        } else {
          await query(em, `update documents set status = 'queued', error = ?, updated_at = now() where id = ? and status = 'processing'`, [
            `attempt ${attempt} failed (${outcome.reason}); retrying`,
            documentId,
          ]).catch(() => undefined);
        }
        metrics.ingestJobDuration.observe({ outcome: final ? 'failed' : 'retry' }, seconds);
        metrics.ingestFailures.inc({ reason: outcome.cause });
        logger.warn(
          { documentId, attempt, reason: outcome.reason, ms },
          final ? 'ingestion failed on its last attempt' : 'ingestion attempt failed; it will be retried',
        );
        await this.deps.announce(em, documentId);
        // the last attempt's failure is final here, so the job completes (no dead letter follows)
        return !final;
      }
    }
  }

  /**
   * Marks a document failed with a readable reason and takes any chunks it had out of the index
   * (a failed document answers no questions). `onlyIfUnfinished` leaves documents that finished
   * meanwhile (e.g. a later reindex succeeded) alone.
   */
  private async markFailed(em: EntityManager, documentId: string, reason: string, onlyIfUnfinished: boolean): Promise<boolean> {
    return em.transactional(async (tx) => {
      const [doc] = await query<{ project_id: string; status: string }>(tx, 'select project_id, status from documents where id = ?', [
        documentId,
      ]);
      if (!doc || (onlyIfUnfinished && doc.status !== 'queued' && doc.status !== 'processing')) return false;
      await this.deps.search.forget(documentId, { em: tx, projectId: doc.project_id });
      await query(tx, `update documents set status = 'failed', error = ?, chunk_count = 0, updated_at = now() where id = ?`, [
        reason.slice(0, 2000),
        documentId,
      ]);
      return true;
    });
  }
}
