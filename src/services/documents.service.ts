import type { EntityManager } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Actor } from '../access/actor';
import { requireTier } from '../access/read-rules';
import { Document, Project, User } from '../entities';
import type { Tier } from '../entities/base';
import { NotFoundError, ValidationError } from '../errors';
import { detectKind, kindOfMime, mimeTypeFor } from '../ingest/detect';
import { configForLanguage, detectLanguage } from '../ingest/analysis';
import { commitStagedChunks, IndexAnalysis, lockProjectIndex, removeDocumentChunks, resolveTextSearchConfig } from '../ingest/index-writer';
import { ParserPool } from '../ingest/parsers/pool';
import { query } from '../db/sql';
import { DocumentProgress, ProgressHub } from '../ingest/progress';
import { IngestJob, IngestQueue } from '../ingest/queue';
import { PageStager } from '../ingest/stager';
import { IngestError, ParsedPage } from '../ingest/types';
import { isUuid } from '../validation';
import { ingestFailureReason } from '../observability/ingest-metrics';
import { attachEmbeddingProgress } from './embedding-progress';
import { BaseService, ServiceContext } from './context';
import type { EmbeddingsService } from './embeddings.service';
import type { ListDocumentsInput, UploadFileInput } from './documents.inputs';

export type { DocumentProgress } from '../ingest/progress';
import type { ChunkSource, UploadResult } from '../presenters/document.presenter';
export type { ChunkSource, UploadResult };

/** What an ingestion needs of the document row. */
interface IngestRow {
  project_id: string;
  name: string;
  mime_type: string;
  content: Buffer;
  language: string | null;
  language_stated: boolean;
}

/** Options of an upload that apply to all its files. */
export interface UploadOptions {
  /** The documents' language as the client states it (ISO 639-1, or a BCP 47 tag whose language part is used). */
  language?: string;
}

/**
 * Bumped when the text analysis changes (chunking, language handling, contextual headers): ready
 * documents indexed with an older version are re-analysed by a background job (see reanalyseStale).
 */
export const ANALYSIS_VERSION = 2;

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

/** A stated language → its ISO 639-1 code; 400 for anything that is not a known language. */
function parseLanguage(value: string): string {
  const code = /^([a-z]{2})(?:[-_][a-z0-9]{1,8})*$/i.exec(value.trim())?.[1]?.toLowerCase();
  if (!code || languageNames.of(code) === code)
    throw ValidationError.field('language', 'must be an ISO 639-1 language code such as "de", "fr" or "zh"');
  return code;
}

/** The title a document is indexed under: its file name without extension, separators as spaces. */
function titleOf(name: string): string {
  return name
    .replace(/\.[a-z0-9]{1,5}$/i, '')
    .replace(/[_.-]+/g, ' ')
    .trim();
}

/** Files per upload request (each still bounded by MAX_UPLOAD_MB). */
export const MAX_FILES_PER_UPLOAD = 20;
/** Progress is written to the row (and announced) at most this often while pages are read. */
const PROGRESS_EVERY_MS = 200;
/** A watcher re-reads the row this often when no event arrives. */
const WATCH_RECHECK_MS = 5000;
const SUPPORTED = 'PDF, DOCX, Markdown, plain text or HTML';

/** A file name safe to store and show: no directories, no control characters, bounded length. */
function cleanName(name: string): string {
  const base = path
    .basename(name.replace(/\\/g, '/'))
    // eslint-disable-next-line no-control-regex -- removes control characters from the file name on purpose
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  return (base || 'untitled').slice(0, 255);
}

/**
 * Documents: upload, listing, deletion, reindexing, the chunk source view, and the ingestion
 * pipeline that runs as durable pg-boss jobs (in-process, or in `npm run worker` processes).
 */
export class DocumentsService extends BaseService {
  constructor(
    ctx: ServiceContext,
    private readonly embeddings: EmbeddingsService,
  ) {
    super(ctx);
  }

  private queue: IngestQueue | null = null;
  private hub: ProgressHub | null = null;
  /** Every parse runs in this pool of worker threads (heap and time limits per document). */
  private parsers: ParserPool | null = null;

  private get dbUrl(): string {
    return this.ctx.orm.config.get<'clientUrl', string>('clientUrl');
  }

  /** Starts the ingestion queue (and in-process workers when `workers`) and the progress listener. */
  async start(opts: { workers: boolean }): Promise<void> {
    const c = this.config;
    const queue = new IngestQueue(
      this.dbUrl,
      {
        retryLimit: c.ingestRetryLimit,
        retryDelaySeconds: c.ingestRetryDelaySeconds,
        jobTimeoutSeconds: c.ingestJobTimeoutSeconds,
        maintenanceSeconds: c.jobMaintenanceSeconds,
        pollingSeconds: c.jobPollingSeconds,
      },
      this.logger,
    );
    await queue.start();
    const hub = new ProgressHub(this.dbUrl, this.logger);
    await hub.start();
    this.queue = queue;
    this.hub = hub;
    this.parsers = new ParserPool(c.parseLimits, c.parserPool);
    if (opts.workers) {
      queue.work(c.workerConcurrency, (job, signal) => this.runJob(job, signal));
      queue.workDead((documentId, reason) => this.giveUp(documentId, reason));
      queue.workReanalysis(async (signal) => {
        await this.reanalyseStale(signal);
      });
      // documents indexed by an older version of the analysis are re-analysed in the background
      await queue.enqueueReanalysis();
      this.logger.info({ concurrency: c.workerConcurrency }, 'ingestion workers started');
    }
  }

  /** Stops workers; unfinished jobs are retried later (by this or another process). */
  async stop(): Promise<void> {
    const queue = this.queue;
    const hub = this.hub;
    const parsers = this.parsers;
    this.queue = null;
    this.hub = null;
    await queue?.stop(this.config.shutdownGraceMs);
    await hub?.stop();
    this.parsers = null;
    await parsers?.destroy();
  }

  private get jobs(): IngestQueue {
    if (!this.queue) throw new Error('documents service not started');
    return this.queue;
  }

  /** The ingestion queue, for operators and tests (e.g. expiring dead jobs at once). */
  get ingestQueue(): IngestQueue {
    return this.jobs;
  }

  // ---------------------------------------------------------------- reading and access

  /** Loads a document and checks the caller's tier on its project: 404 when missing, 403 when denied. */
  private async load(em: EntityManager, actor: Actor, id: string, tier: Tier): Promise<Document> {
    if (!isUuid(id)) throw new NotFoundError('not_found', 'Document not found');
    const doc = await em.findOne(Document, { id });
    if (!doc) throw new NotFoundError('not_found', 'Document not found');
    await requireTier(em, actor, doc.project.id, tier);
    return doc;
  }

  /** GET /documents/:id (`use` on its project). */
  async get(actor: Actor, id: string): Promise<Document> {
    const em = this.em();
    const doc = await this.load(em, actor, id, 'use');
    await attachEmbeddingProgress(this.embeddings, em, [doc]);
    return doc;
  }

  /** GET /projects/:projectId/documents (`use`), newest first. */
  async list(actor: Actor, projectId: string, input: ListDocumentsInput = {}): Promise<Document[]> {
    const em = this.em();
    await requireTier(em, actor, projectId, 'use');
    const docs = await em.find(
      Document,
      { project: projectId, ...(input.status ? { status: input.status } : {}) },
      { orderBy: { createdAt: 'desc', id: 'asc' } },
    );
    await attachEmbeddingProgress(this.embeddings, em, docs);
    return docs;
  }

  /** GET /chat/chunks/:chunkId/source (`use` on the chunk's project). */
  async chunkSource(actor: Actor, chunkId: string): Promise<ChunkSource> {
    if (!isUuid(chunkId)) throw new NotFoundError('not_found', 'Chunk not found');
    const em = this.em();
    const [row] = await query<{
      project_id: string;
      document_id: string;
      name: string;
      page_number: number;
      text: string;
      context: string;
    }>(
      em,
      'select c.project_id, c.document_id, d.name, c.page_number, c.text, c.context from chunks c join documents d on d.id = c.document_id where c.id = ?',
      [chunkId],
    );
    if (!row) throw new NotFoundError('not_found', 'Chunk not found');
    await requireTier(em, actor, row.project_id, 'use');
    return {
      documentId: row.document_id,
      documentName: row.name,
      pageNumber: row.page_number,
      chunkId,
      snippet: row.text,
      context: row.context,
    };
  }

  // ---------------------------------------------------------------- writing

  /**
   * Checks the caller may upload to the project (`edit`). Transports call it before reading a
   * request body that may be tens of megabytes; upload() checks again.
   */
  async authorizeUpload(actor: Actor, projectId: string): Promise<void> {
    await requireTier(this.em(), actor, projectId, 'edit');
  }

  /**
   * POST /projects/:projectId/documents (`edit`). Each file becomes a queued document whose
   * ingestion job commits in the same transaction as its row. Content identical (sha256) to a
   * document already in the project is reported as that document with `duplicate: true`.
   * A file of an unsupported format is kept as a `failed` document with the reason.
   */
  async upload(actor: Actor, projectId: string, files: UploadFileInput[], opts: UploadOptions = {}): Promise<UploadResult[]> {
    if (!files.length) throw ValidationError.field('file', 'at least one file is required (multipart field "file")');
    const language = opts.language === undefined ? null : parseLanguage(opts.language);
    if (files.length > MAX_FILES_PER_UPLOAD) throw ValidationError.field('file', `at most ${MAX_FILES_PER_UPLOAD} files per upload`);
    const em = this.em();
    await requireTier(em, actor, projectId, 'edit');
    const results: UploadResult[] = [];
    let queued = false;
    for (const file of files) {
      const content = file.content ?? Buffer.alloc(0);
      const sha256 = file.stored?.sha256 ?? createHash('sha256').update(content).digest('hex');
      const existing = await em.findOne(Document, { project: projectId, sha256 });
      if (existing) {
        results.push({ document: existing, duplicate: true });
        continue;
      }
      const kind = detectKind(file.name, file.mimeType, file.stored?.head ?? content);
      try {
        const document = await em.transactional(async (tx) => {
          // documents keep their original in the database (reindex reads it again), so a streamed
          // upload is read here, one file at a time: at most MAX_UPLOAD_MB per upload in flight
          const bytes = file.stored ? await readFile(file.stored.path) : content;
          const doc = tx.create(Document, {
            project: tx.getReference(Project, projectId),
            name: cleanName(file.name),
            mimeType: mimeTypeFor(kind, file.mimeType),
            size: bytes.length,
            sha256,
            content: bytes,
            status: kind ? 'queued' : 'failed',
            error: kind ? null : `unsupported file type; upload ${SUPPORTED}`,
            language,
            languageStated: language !== null,
            uploadedBy: actor.system ? null : tx.getReference(User, actor.id),
          });
          await tx.flush();
          if (kind) await this.jobs.enqueue(tx, doc.id);
          return doc;
        });
        queued ||= kind !== null;
        results.push({ document, duplicate: false });
      } catch (e) {
        // the same content arrived concurrently: report the winner
        const winner =
          (e as { code?: string }).code === '23505' || /unique/i.test(String((e as Error).message))
            ? await this.freshEm().findOne(Document, { project: projectId, sha256 })
            : null;
        if (!winner) throw e;
        results.push({ document: winner, duplicate: true });
      }
    }
    if (queued) this.jobs.nudge();
    return results;
  }

  /**
   * DELETE /documents/:id (`edit`): the document, its chunks and their share of the project's
   * term statistics go in one transaction. A job still queued for it finds nothing and ends.
   */
  async delete(actor: Actor, id: string): Promise<{ id: string }> {
    const em = this.em();
    const doc = await this.load(em, actor, id, 'edit');
    const projectId = doc.project.id;
    await em.transactional(async (tx) => {
      await lockProjectIndex(tx, projectId);
      await removeDocumentChunks(tx, projectId, id);
      await query(tx, 'delete from documents where id = ?', [id]);
    });
    em.getUnitOfWork().unsetIdentity(doc);
    await this.hub?.publishGone(em, id).catch((err) => this.logger.warn({ err, documentId: id }, 'announcing a deletion failed'));
    return { id };
  }

  /**
   * POST /documents/:id/reindex (`edit`): reads the stored original again. The current chunks
   * stay searchable until the new ones replace them in one transaction.
   */
  async reindex(actor: Actor, id: string): Promise<Document> {
    const em = this.em();
    const doc = await this.load(em, actor, id, 'edit');
    await em.transactional(async (tx) => {
      await query(
        tx,
        `update documents set status = 'queued', pages_done = 0, pages_total = 0, error = null, updated_at = now() where id = ?`,
        [id],
      );
      await this.jobs.enqueue(tx, id);
    });
    this.jobs.nudge();
    await em.refresh(doc);
    await this.announce(em, doc.id);
    return doc;
  }

  // ---------------------------------------------------------------- progress

  /** Listens to one document's progress events (any process's); returns the unsubscribe function. */
  onProgress(documentId: string, listener: (event: DocumentProgress) => void): () => void {
    if (!this.hub) throw new Error('documents service not started');
    return this.hub.on(documentId, (e) => e && listener(e));
  }

  /**
   * A document's progress as a stream (`use` on its project, checked before the stream is
   * returned): the current state first, then every change, ending after `ready` or `failed`, when
   * the document is deleted, or when the process shuts down (or the consumer stops reading).
   * Events are pushed (see ProgressHub); the row is also re-read every WATCH_RECHECK_MS, so a
   * notification lost to a reconnect or a deletion never leaves a watcher waiting forever.
   */
  async watch(actor: Actor, documentId: string): Promise<AsyncIterable<DocumentProgress>> {
    const doc = await this.load(this.em(), actor, documentId, 'use');
    const hub = this.hub;
    if (!hub) throw new Error('documents service not started');
    const shutdown = this.ctx.shutdown;
    const read = () => this.snapshot(this.freshEm(), doc.id);
    const done = (e: DocumentProgress) => e.status === 'ready' || e.status === 'failed';
    const same = (a: DocumentProgress, b: DocumentProgress) => JSON.stringify(a) === JSON.stringify(b);
    return {
      [Symbol.asyncIterator]: async function* () {
        const pending: Array<DocumentProgress | null> = [];
        let wake: (() => void) | null = null;
        const off = hub.on(doc.id, (e) => {
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

  /** The document's state as a progress event, from its row (null when it no longer exists). */
  private async snapshot(em: EntityManager, documentId: string): Promise<DocumentProgress | null> {
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
  private async announce(em: EntityManager, documentId: string): Promise<void> {
    try {
      const event = await this.snapshot(em, documentId);
      if (event && this.hub) await this.hub.publish(em, event);
    } catch (err) {
      this.logger.warn({ err, documentId }, 'publishing document progress failed');
    }
  }

  // ---------------------------------------------------------------- the ingestion job

  /**
   * One ingestion attempt: read the stored file page by page (progress on the row), chunk it,
   * and replace the document's chunks and statistics in one transaction. A problem with the file
   * (IngestError) fails the document at once; anything else is retried with backoff, and the
   * last attempt's failure marks the document failed. A deleted document ends the job quietly.
   */
  private async runJob(job: IngestJob, signal: AbortSignal): Promise<void> {
    const started = performance.now();
    const outcome = (o: 'ready' | 'failed' | 'retry') =>
      this.metrics.ingestJobDuration.observe({ outcome: o }, (performance.now() - started) / 1000);
    const em = this.freshEm();
    const [doc] = await query<IngestRow>(
      em,
      `update documents set status = 'processing', pages_done = 0, pages_total = 0, attempts = attempts + 1, updated_at = now()
        where id = ? returning project_id, name, mime_type, content, language, language_stated`,
      [job.documentId],
    );
    if (!doc) return;
    await this.announce(em, job.documentId);
    try {
      const done = await this.ingest(em, job.documentId, doc, signal, false);
      // the embedding stage runs as its own job once the text is committed (searchable lexically now)
      await this.embeddings.documentIndexed(job.documentId);
      if (done) {
        this.metrics.ingestPages.inc(done.pages);
        this.metrics.ingestChunks.inc(done.chunks);
        this.logger.info({ ...done, ms: Math.round(performance.now() - started) }, 'document ingested');
      }
      outcome('ready');
      this.logger.info({ ...done, ms: Math.round(performance.now() - started) }, 'document ingested');
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.metrics.ingestFailures.inc({ reason: ingestFailureReason(e, signal) });
      if (e instanceof IngestError) {
        await this.markFailed(em, job.documentId, message, false);
        outcome('failed');
        return;
      }
      const attempt = job.retryCount + 1;
      outcome(job.retryCount >= job.retryLimit ? 'failed' : 'retry');
      if (job.retryCount >= job.retryLimit) {
        await this.markFailed(
          em,
          job.documentId,
          `ingestion failed after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${message}`,
          false,
        );
      } else {
        this.logger.warn({ err: e, documentId: job.documentId, attempt }, 'ingestion attempt failed; it will be retried');
        await query(em, `update documents set status = 'queued', error = ?, updated_at = now() where id = ? and status = 'processing'`, [
          `attempt ${attempt} failed (${message}); retrying`,
          job.documentId,
        ]).catch(() => undefined);
        await this.announce(em, job.documentId);
      }
      throw e;
    }
  }

  /**
   * Reads the stored file and replaces the document's chunks and statistics in one transaction
   * (the old chunks stay searchable until it commits). `quiet` is the background re-analysis of a
   * ready document: no progress or status changes, only the index, the page/chunk counts and the
   * language are renewed.
   */
  private async ingest(
    em: EntityManager,
    documentId: string,
    doc: IngestRow,
    signal: AbortSignal,
    quiet: boolean,
  ): Promise<{ pages: number; chunks: number } | null> {
    const kind = kindOfMime(doc.mime_type);
    if (!kind) throw new IngestError(`unsupported file type; upload ${SUPPORTED}`);
    let lastWrite = 0;
    // progress goes through `em` (its own pooled connection, committed at once), not the
    // transaction below, so watchers see it while the document is being read
    const onProgress = async (pagesDone: number, pagesTotal: number) => {
      const now = Date.now();
      if (quiet || (pagesDone < pagesTotal && now - lastWrite < PROGRESS_EVERY_MS)) return;
      lastWrite = now;
      await query(em, 'update documents set pages_done = ?, pages_total = ?, updated_at = now() where id = ?', [
        pagesDone,
        pagesTotal,
        documentId,
      ]);
      await this.announce(em, documentId);
    };
    const written = await em.transactional(async (tx) => {
      // the language is decided from the first pages (unless the client stated it); pages are
      // chunked and their vectors built (staged) while later pages are still read
      const stager = new PageStager(tx, async (sample): Promise<IndexAnalysis> => {
        const language = doc.language_stated ? doc.language : detectLanguage(sample);
        const config = await resolveTextSearchConfig(tx, configForLanguage(language, this.config.searchLanguage));
        return { config, language, title: titleOf(doc.name) };
      });
      let pages: ParsedPage[];
      try {
        if (!this.parsers) throw new Error('documents service not started');
        pages = await this.parsers.parse(kind, doc.content, { onProgress, onPage: (page) => stager.push(page), signal });
      } finally {
        await stager.settle(); // nothing of ours may still run on the connection when the transaction ends
      }
      await stager.finish();
      if (!stager.chunkCount) throw new IngestError(kind === 'pdf' ? 'no extractable text (scanned document?)' : 'no extractable text');
      signal.throwIfAborted();
      const analysis = await stager.result();
      // the swap: under the project's index lock, old chunks and statistics out, staged ones in
      await lockProjectIndex(tx, doc.project_id);
      // the row lock orders us after a concurrent delete; a deleted document gets no chunks
      const [alive] = await query<{ status: string }>(tx, 'select status from documents where id = ? for update', [documentId]);
      if (!alive || (quiet && alive.status !== 'ready')) return null; // deleted, or (re-analysis) being reindexed or failed meanwhile
      await removeDocumentChunks(tx, doc.project_id, documentId);
      const chunkCount = await commitStagedChunks(tx, doc.project_id, documentId);
      await query(
        tx,
        quiet
          ? `update documents set page_count = ?, chunk_count = ?, language = ?, analysis_version = ? where id = ?`
          : `update documents set status = 'ready', page_count = ?, pages_done = ?, pages_total = ?, chunk_count = ?, language = ?, analysis_version = ?, error = null, updated_at = now() where id = ?`,
        quiet
          ? [pages.length, chunkCount, analysis?.language ?? null, ANALYSIS_VERSION, documentId]
          : [pages.length, pages.length, pages.length, chunkCount, analysis?.language ?? null, ANALYSIS_VERSION, documentId],
      );
      return { pages: pages.length, chunks: chunkCount };
    });
    if (written && !quiet) await this.announce(em, documentId);
    return written;
  }

  /**
   * The re-analysis sweep: ready documents indexed with an older ANALYSIS_VERSION get their
   * language detected again (unless stated) and their chunks rebuilt, one document per
   * transaction, so search keeps answering from the old chunks until each swap commits. A sweep
   * works for at most half the job time-out and then queues its continuation.
   */
  async reanalyseStale(signal: AbortSignal): Promise<number> {
    const em = this.freshEm();
    const deadline = Date.now() + (this.config.ingestJobTimeoutSeconds * 1000) / 2;
    let done = 0;
    while (!signal.aborted) {
      if (Date.now() > deadline) {
        await this.jobs.enqueueReanalysis();
        break;
      }
      const [doc] = await query<IngestRow & { id: string }>(
        em,
        `select id, project_id, name, mime_type, content, language, language_stated from documents
          where status = 'ready' and analysis_version < ? order by created_at, id limit 1`,
        [ANALYSIS_VERSION],
      );
      if (!doc) break;
      try {
        await this.ingest(em, doc.id, doc, signal, true);
      } catch (e) {
        if (!(e instanceof IngestError)) throw e; // retried (the sweep resumes where it stopped)
        // the file no longer parses (e.g. a stricter parser): keep its current chunks, and do not try again
        this.logger.warn({ err: e, documentId: doc.id }, 're-analysis could not read the document; its index is kept');
        await query(em, 'update documents set analysis_version = ? where id = ?', [ANALYSIS_VERSION, doc.id]);
        continue;
      }
      done++;
    }
    if (done) this.logger.info({ documents: done }, 'documents re-analysed');
    return done;
  }

  /**
   * Marks a document failed with a readable reason and takes any chunks it had out of the index
   * (a failed document answers no questions). `onlyIfUnfinished` leaves documents that finished
   * meanwhile (e.g. a later reindex succeeded) alone.
   */
  private async markFailed(em: EntityManager, documentId: string, reason: string, onlyIfUnfinished: boolean): Promise<void> {
    await em.transactional(async (tx) => {
      const [doc] = await query<{ project_id: string; status: string }>(tx, 'select project_id, status from documents where id = ?', [
        documentId,
      ]);
      if (!doc || (onlyIfUnfinished && doc.status !== 'queued' && doc.status !== 'processing')) return;
      await lockProjectIndex(tx, doc.project_id);
      await removeDocumentChunks(tx, doc.project_id, documentId);
      await query(tx, `update documents set status = 'failed', error = ?, chunk_count = 0, updated_at = now() where id = ?`, [
        reason.slice(0, 2000),
        documentId,
      ]);
    });
    await this.announce(em, documentId);
  }

  /** Dead-letter handler: the job ran out of retries (or its workers kept dying). */
  private async giveUp(documentId: string, reason: string): Promise<void> {
    this.metrics.ingestFailures.inc({ reason: 'dead_letter' });
    const readable = /timeout/i.test(reason)
      ? `ingestion did not finish within ${this.config.ingestJobTimeoutSeconds} seconds (the worker may have stopped); reindex to try again`
      : `ingestion failed: ${reason || 'the job failed repeatedly'}`;
    await this.markFailed(this.freshEm(), documentId, readable, true);
  }
}
