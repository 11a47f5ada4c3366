import type { EntityManager } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { Actor } from '../access/actor';
import { requireTier } from '../access/read-rules';
import { Document, Project, User } from '../entities';
import type { Tier } from '../entities/base';
import { NotFoundError, ValidationError } from '../errors';
import { detectFormat, mimeTypeFor, UNSUPPORTED } from '../ingest/detect';
import { type ChunkLocation, locationsWithText } from '../ingest/chunk-locations';
import { query } from '../db/sql';
import { removeOriginal, storeOriginal } from '../ingest/originals';
import { DocumentProgress, IngestPipeline, SUPPORTED } from '../ingest/pipeline';
import { isUuid } from '../validation';
import { type Batch, one } from './batch';
import { BaseService, ServiceContext } from '../db/service-context';
import type { SearchWing } from '../search';
import type { ListDocumentsInput, UploadFileInput } from './documents.inputs';

export { ANALYSIS_VERSION } from '../ingest/pipeline';
export type { DocumentProgress } from '../ingest/progress';
import type { ChunkSource, UploadResult } from '../presenters/document.presenter';
import { listPerProject } from './project-batch';
export type { ChunkSource, UploadResult };

/** Options of an upload that apply to all its files. */
export interface UploadOptions {
  /** The documents' language as the client states it (ISO 639-1, or a BCP 47 tag whose language part is used). */
  language?: string;
}

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

/** A stated language → its ISO 639-1 code; 400 for anything that is not a known language. */
function parseLanguage(value: string): string {
  const code = /^([a-z]{2})(?:[-_][a-z0-9]{1,8})*$/i.exec(value.trim())?.[1]?.toLowerCase();
  if (!code || languageNames.of(code) === code)
    throw ValidationError.field('language', 'must be an ISO 639-1 language code such as "de", "fr" or "zh"');
  return code;
}

/** Files per upload request (each still bounded by MAX_UPLOAD_MB). */
export const MAX_FILES_PER_UPLOAD = 20;

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
 * Documents as requests see them: reads (get, list, the chunk source view, progress) and commands
 * (upload, delete, reindex). Ingestion itself — its states, jobs, parsing and indexing — belongs
 * to the document pipeline (src/ingest/pipeline), which these commands call.
 */
export class DocumentsService extends BaseService {
  constructor(
    ctx: ServiceContext,
    private readonly search: SearchWing,
  ) {
    super(ctx);
    // a document whose text is committed is handed to the search wing (SearchWing.index)
    this.pipeline = new IngestPipeline({
      url: this.ctx.orm.config.get<'clientUrl', string>('clientUrl'),
      config: this.config,
      logger: this.logger,
      metrics: this.metrics,
      shutdown: this.ctx.shutdown,
      em: () => this.freshEm(),
      search,
    });
  }

  /** The document pipeline: its state machine, jobs, parser pool and progress (see src/ingest/pipeline). */
  readonly pipeline: IngestPipeline;

  /** Starts the pipeline (and its workers when `workers`). */
  async start(opts: { workers: boolean }): Promise<void> {
    await this.pipeline.start(opts);
  }

  /** Stops the pipeline's workers; unfinished jobs are retried later (by this or another process). */
  async stop(): Promise<void> {
    await this.pipeline.stop();
  }

  /** The ingestion queue, for operators and tests (e.g. expiring dead jobs at once). */
  get ingestQueue(): IngestPipeline['ingestQueue'] {
    return this.pipeline.ingestQueue;
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
    await this.search.embeddingProgress(em, [doc]);
    return doc;
  }

  /** GET /projects/:projectId/documents (`use`), newest first: `listMany` of one project. */
  async list(actor: Actor, projectId: string, input: ListDocumentsInput = {}): Promise<Document[]> {
    return one(await this.listMany(actor, [projectId], input), projectId);
  }

  /**
   * `use` on each project: the documents of many projects (GraphQL's Project.documents loader), each
   * answered as `list` answers it alone, in one read after the access check.
   */
  async listMany(actor: Actor, projectIds: readonly string[], input: ListDocumentsInput = {}): Promise<Batch<Document[]>> {
    const em = this.em();
    const read = async (allowed: string[]) => {
      const docs = await em.find(
        Document,
        { project: { $in: allowed }, ...(input.status ? { status: input.status } : {}) },
        { orderBy: { createdAt: 'desc', id: 'asc' } },
      );
      await this.search.embeddingProgress(em, docs);
      return docs;
    };
    return listPerProject(em, actor, projectIds, read, (d) => d.project.id);
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
      locations: ChunkLocation[] | null;
      page_starts: number[] | null;
    }>(
      em,
      `select c.project_id, c.document_id, d.name, c.page_number, c.text, c.context, c.locations, c.page_starts
         from chunks c join documents d on d.id = c.document_id where c.id = ?`,
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
      locations: row.locations && locationsWithText(row.locations, row.text, row.page_number, row.page_starts),
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
      const { kind, reason } = await detectFormat(
        file.name,
        file.mimeType,
        file.stored?.head ?? content,
        file.stored ? { path: file.stored.path } : { buffer: content },
      );
      try {
        const document = await em.transactional(async (tx) => {
          // the original goes into a large object in slices (never whole in memory), in this
          // transaction: the document, its original and its job commit together or not at all
          const contentOid = await storeOriginal(tx, file.stored ? { path: file.stored.path } : content);
          const doc = tx.create(Document, {
            project: tx.getReference(Project, projectId),
            name: cleanName(file.name),
            mimeType: mimeTypeFor(kind, file.mimeType),
            format: kind,
            size: file.stored?.size ?? content.length,
            sha256,
            contentOid,
            status: kind ? 'queued' : 'failed',
            error: kind ? null : reason === UNSUPPORTED ? `${UNSUPPORTED}; upload ${SUPPORTED}` : reason,
            language,
            languageStated: language !== null,
            uploadedBy: actor.system ? null : tx.getReference(User, actor.id),
          });
          await tx.flush();
          if (kind) await this.pipeline.submit(tx, doc.id);
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
    if (queued) this.pipeline.nudge();
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
      await this.search.forget(id, { em: tx, projectId });
      await removeOriginal(tx, id);
      await query(tx, 'delete from documents where id = ?', [id]);
    });
    em.getUnitOfWork().unsetIdentity(doc);
    await this.pipeline.gone(em, id);
    return { id };
  }

  /**
   * POST /documents/:id/reindex (`edit`): reads the stored original again. The current chunks
   * stay searchable until the new ones replace them in one transaction.
   */
  async reindex(actor: Actor, id: string): Promise<Document> {
    const em = this.em();
    const doc = await this.load(em, actor, id, 'edit');
    await this.pipeline.requeue(em, id, () => em.refresh(doc).then(() => undefined));
    return doc;
  }

  // ---------------------------------------------------------------- progress

  /** Listens to one document's progress events (any process's); returns the unsubscribe function. */
  onProgress(documentId: string, listener: (event: DocumentProgress) => void): () => void {
    return this.pipeline.onProgress(documentId, listener);
  }

  /**
   * A document's progress as a stream (`use` on its project, checked before the stream is
   * returned): the current state first, then every change, ending after `ready` or `failed`, when
   * the document is deleted, or when the process shuts down (see IngestPipeline.watch).
   */
  async watch(actor: Actor, documentId: string): Promise<AsyncIterable<DocumentProgress>> {
    const doc = await this.load(this.em(), actor, documentId, 'use');
    return this.pipeline.watch(doc.id);
  }
}
