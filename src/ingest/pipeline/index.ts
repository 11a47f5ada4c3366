import type { EntityManager } from '@mikro-orm/postgresql';
import { performance } from 'node:perf_hooks';
import type { Config } from '../../config';
import type { Logger } from '../../logger';
import { ingestFailureReason } from './failure-reason';
import { scopedLogger } from '../../observability/request-context';
import type { Metrics } from '../../observability/metrics';
import { query } from '../../db/sql';
import { type OriginalRef, sweepOrphanOriginals } from '../originals';
import { ParserPool } from '../parsers/pool';
import { DocumentProgress, ProgressHub } from '../progress';
import { type DocumentKind, IngestError, type ParsedPage } from '../types';
import { Finisher, Outcome } from './finish';
import { IngestRow, indexDocument } from './index-document';
import { HostJob, JobHost } from './job-host';
import { INGEST_DEAD_QUEUE, INGEST_QUEUE, REANALYSE_QUEUE } from './queues';
import { announce, progressStream, snapshot } from './progress-stream';
import { reanalyseStale } from './reanalysis';
import type { SearchWing } from '../../search';

export { ANALYSIS_VERSION, SUPPORTED } from './index-document';

/** How often originals left behind by project deletions are unlinked. */
const ORIGINALS_SWEEP_SECONDS = 600;
export type { Outcome } from './finish';
export type { DocumentProgress } from '../progress';

export interface PipelineDeps {
  url: string;
  config: Config;
  logger: Logger;
  metrics: Metrics;
  shutdown: AbortSignal;
  /** A fresh entity manager (its own identity map). */
  em: () => EntityManager;
  /** The search wing, which a document whose text is committed is handed to (SearchWing.index). */
  search: Pick<SearchWing, 'index' | 'forget' | 'writer'>;
}

/**
 * The document pipeline, the one owner of a document's ingestion state:
 *
 *   upload → queued → processing → ready | failed      (a retry goes back to queued)
 *                                    └→ embedding stage (vectors; never changes the status)
 *
 * It owns the process's one job host (ingest, dead letters, re-analysis, embedding, sweeps), the
 * parser pool and the progress hub. Each ingestion attempt ends in exactly one Outcome, handed to
 * Finisher.finish(), the only place that sets the final status, logs, counts and notifies.
 */
export class IngestPipeline {
  private host: JobHost | null = null;
  private hub: ProgressHub | null = null;
  private parsers: ParserPool | null = null;
  private readonly finisher: Finisher;

  constructor(private readonly deps: PipelineDeps) {
    this.finisher = new Finisher({
      em: deps.em,
      logger: deps.logger,
      metrics: deps.metrics,
      announce: (em, id) => this.announce(em, id),
      search: deps.search,
    });
  }

  /** Starts the job host (and, with `workers`, every job kind's workers) and the progress listener. */
  async start(opts: { workers: boolean }): Promise<void> {
    const c = this.deps.config;
    const host = new JobHost(
      this.deps.url,
      {
        ingestRetryLimit: c.ingestRetryLimit,
        ingestRetryDelaySeconds: c.ingestRetryDelaySeconds,
        jobTimeoutSeconds: c.ingestJobTimeoutSeconds,
        embedRetryLimit: c.embeddingRetryLimit,
        embedRetryDelaySeconds: c.embeddingRetryDelaySeconds,
        maintenanceSeconds: c.jobMaintenanceSeconds,
        pollingSeconds: c.jobPollingSeconds,
      },
      this.deps.logger,
    );
    await host.start();
    const hub = new ProgressHub(this.deps.url, this.deps.logger);
    await hub.start();
    this.host = host;
    this.hub = hub;
    this.parsers = new ParserPool(c.parseLimits, c.parserPool, this.deps.url);
    if (opts.workers) {
      this.parsers.warm();
      host.work(INGEST_QUEUE, c.workerConcurrency, (job, signal) => this.runIngest(job, signal));
      host.work(INGEST_DEAD_QUEUE, 1, (job) => this.deadLetter(job));
      host.work(REANALYSE_QUEUE, 1, async (_job, signal) => {
        await this.reanalyseStale(signal);
      });
      // documents indexed by an older version of the analysis are re-analysed in the background
      await host.send(REANALYSE_QUEUE);
      // originals of documents that went with their project (one node at a time would do; it is idempotent)
      host.every(ORIGINALS_SWEEP_SECONDS, 'originals sweep', () => this.sweepOriginals());
      this.deps.logger.info({ concurrency: c.workerConcurrency }, 'ingestion workers started');
    }
  }

  /** Stops every job kind's workers; unfinished jobs are retried later (by this or another process). */
  async stop(): Promise<void> {
    const { host, hub, parsers } = this;
    this.host = null;
    this.hub = null;
    await host?.stop(this.deps.config.shutdownGraceMs);
    await hub?.stop();
    this.parsers = null;
    await parsers?.destroy();
  }

  /** The process's one job host (the embedding stage registers its workers and sweep on it). */
  get jobs(): JobHost {
    if (!this.host) throw new Error('the document pipeline is not started');
    return this.host;
  }

  /**
   * A stored document's converted text, page by page, read again from its original in the parser
   * pool (with its limits), for the reader view (GET /documents/:id/text).
   */
  async convertedPages(kind: DocumentKind, ref: OriginalRef, signal?: AbortSignal): Promise<ParsedPage[]> {
    if (!this.parsers) throw new Error('the document pipeline is not started');
    return this.parsers.parse(kind, ref, { signal });
  }

  /** Operators and tests: ask for a re-analysis sweep, wake idle workers, expire dead jobs now. */
  get ingestQueue(): { enqueueReanalysis(): Promise<void>; nudge(): void; expireNow(): Promise<void> } {
    const host = this.jobs;
    return { enqueueReanalysis: () => host.send(REANALYSE_QUEUE), nudge: () => host.nudge(), expireNow: () => host.expireNow() };
  }

  // ---------------------------------------------------------------- commands (called by documents.service)

  /** upload → queued: the ingestion job commits in the transaction that created the row. */
  async submit(tx: EntityManager, documentId: string): Promise<void> {
    await this.jobs.insert(tx, INGEST_QUEUE, documentId);
  }

  /** Wakes this process's workers once submitted jobs committed. */
  nudge(): void {
    this.jobs.nudge();
  }

  /** reindex: back to queued (the current chunks stay searchable until the new ones replace them). */
  async requeue(em: EntityManager, documentId: string, committed?: () => Promise<void>): Promise<void> {
    await em.transactional(async (tx) => {
      await query(
        tx,
        `update documents set status = 'queued', pages_done = 0, pages_total = 0, error = null, updated_at = now() where id = ?`,
        [documentId],
      );
      await this.submit(tx, documentId);
    });
    // before any worker is told: the caller reads the state this command set (queued)
    await committed?.();
    this.nudge();
    await this.announce(em, documentId);
  }

  /** Tells watchers a document was deleted (a job still queued for it finds nothing and ends). */
  async gone(em: EntityManager, documentId: string): Promise<void> {
    await this.hub?.publishGone(em, documentId).catch((err) => this.deps.logger.warn({ err, documentId }, 'announcing a deletion failed'));
  }

  // ---------------------------------------------------------------- progress

  /** Listens to one document's progress events (any process's); returns the unsubscribe function. */
  onProgress(documentId: string, listener: (event: DocumentProgress) => void): () => void {
    if (!this.hub) throw new Error('the document pipeline is not started');
    return this.hub.on(documentId, (e) => e && listener(e));
  }

  /** The document's progress as a stream (see progressStream); access is the caller's to check. */
  watch(documentId: string): AsyncIterable<DocumentProgress> {
    if (!this.hub) throw new Error('the document pipeline is not started');
    return progressStream(this.hub, documentId, () => snapshot(this.deps.em(), documentId), this.deps.shutdown);
  }

  private announce(em: EntityManager, documentId: string): Promise<void> {
    return announce(this.hub, scopedLogger(this.deps.logger), em, documentId);
  }

  // ---------------------------------------------------------------- jobs

  /**
   * One ingestion attempt: queued → processing, then read, chunk and swap the index; whatever
   * happens ends in one Outcome for finish(). A problem with the file (IngestError) fails the
   * document at once; anything else is retried with backoff until the last attempt.
   */
  private async runIngest(job: HostJob, signal: AbortSignal): Promise<void> {
    const started = performance.now();
    const em = this.deps.em();
    const [doc] = await query<IngestRow>(
      em,
      `update documents set status = 'processing', pages_done = 0, pages_total = 0, attempts = attempts + 1, updated_at = now()
        where id = ? returning project_id, name, mime_type, format, content_oid, size, language, language_stated`,
      [job.documentId],
    );
    let outcome: Outcome = { kind: 'gone' };
    let error: unknown;
    if (doc) {
      await this.announce(em, job.documentId);
      try {
        const done = await indexDocument(this.indexDeps, em, job.documentId, doc, signal, false);
        if (done) outcome = { kind: 'ready', ...done };
      } catch (e) {
        error = e;
        const reason = e instanceof Error ? e.message : String(e);
        const cause = ingestFailureReason(e, signal);
        outcome =
          e instanceof IngestError
            ? { kind: 'failed', reason, cause }
            : { kind: 'retry', reason, cause, attempt: job.retryCount + 1, final: job.retryCount >= job.retryLimit };
      }
    }
    if (await this.finisher.finish(job.documentId, outcome, started)) throw error;
  }

  /** Dead-letter handler: the job ran out of retries because its workers kept dying (or timing out). */
  private async deadLetter(job: HostJob): Promise<void> {
    const reason = /timeout/i.test(job.lastError)
      ? `ingestion did not finish within ${this.deps.config.ingestJobTimeoutSeconds} seconds (the worker may have stopped); reindex to try again`
      : `ingestion failed: ${job.lastError || 'the job failed repeatedly'}`;
    await this.finisher.finish(job.documentId, { kind: 'dead', reason });
  }

  private get indexDeps() {
    if (!this.parsers) throw new Error('the document pipeline is not started');
    return {
      parsers: this.parsers,
      search: this.deps.search,
      announce: (em: EntityManager, id: string) => this.announce(em, id),
    };
  }

  /** Unlinks originals no document refers to (see sweepOrphanOriginals); returns how many. */
  async sweepOriginals(): Promise<number> {
    const n = await sweepOrphanOriginals(this.deps.em());
    if (n) this.deps.logger.info({ originals: n }, 'orphaned originals removed');
    return n;
  }

  /** The re-analysis sweep (see reanalysis.ts); returns the number of documents re-analysed. */
  reanalyseStale(signal: AbortSignal): Promise<number> {
    return reanalyseStale(
      {
        em: this.deps.em(),
        logger: scopedLogger(this.deps.logger),
        index: this.indexDeps,
        continueLater: () => this.jobs.send(REANALYSE_QUEUE),
      },
      this.deps.config.ingestJobTimeoutSeconds,
      signal,
    );
  }
}
