// The search wing: the knowledge side of DocQA behind four calls (index, forget, search, reindex). See README.md here.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../access/actor';
import { requireTier } from '../access/read-rules';
import { query } from '../db/sql';
import type { Document } from '../entities';
import { NotFoundError } from '../errors';
import { EMBED_QUEUE, ModelSources, SearchContext, SearchJobs } from './context';
import { attachEmbeddingProgress } from './embedding-progress';
import { EmbeddingsService } from './embeddings';
import { configForLanguage } from './analysis';
import { commitStagedChunks, lockProjectIndex, removeDocumentChunks, resolveTextSearchConfig, stageRows } from './index-writer';
import { RerankService } from './rerank';
import { RetrievalHit, RetrievalService, SearchOptions } from './retrieval';

export { EMBED_QUEUE };
export type { ModelSources, RetrievalHit, SearchContext, SearchJobs, SearchOptions };

/**
 * A document's chunk index as the ingest pipeline writes it, inside the pipeline's transaction:
 * the configuration of its language, batches of analysed rows staged while later pages are read,
 * then, under the project's index lock, the old chunks swapped for the staged ones.
 */
export interface ChunkWriter {
  /** The text-search configuration for a detected language (SEARCH_LANGUAGE when unknown). */
  configFor(language: string | null): Promise<string>;
  /** Stages a batch of rows (JSON text from the parser pool) analysed with `config`. */
  stage(config: string, rows: string): Promise<void>;
  /** Takes the project's index lock (writers of one project's statistics take turns). */
  lock(projectId: string): Promise<void>;
  /** Under the lock: the document's old chunks and their statistics out, the staged ones in; returns the chunks. */
  replace(projectId: string, documentId: string): Promise<number>;
}

/** A project whose `use` the caller has already checked for this question (chat checks before it streams). */
export interface CheckedProject {
  id: string;
}

/**
 * Analysis, the chunk index, embeddings, the vector index, reranking and ranking, built once per
 * process (createServices) and used through these calls only (a dependency-cruiser rule keeps
 * services and transports out of the folder's other files):
 *
 * - `writer(tx)`: the ingest pipeline writes a parsed document's chunk index with it;
 * - `index(documentId)`: a document's chunks are committed (the ingest pipeline calls it): its
 *   embedding stage is queued, and its vectors reach the vector index as they are written;
 * - `forget(documentId)`: its chunks, postings and vectors leave the index;
 * - `search(actor, projectId, question)`: the best chunks for a question, access checked once;
 * - `reindex(projectId)`: the project's vector index is read again and missing vectors are queued.
 */
export class SearchWing {
  private readonly embeddings: EmbeddingsService;
  private readonly retrieval: RetrievalService;
  /** The parts themselves, for benches and tests that measure one of them (the rest of the code uses the calls). */
  readonly parts: { embeddings: EmbeddingsService; retrieval: RetrievalService };

  constructor(
    private readonly ctx: SearchContext,
    sources: ModelSources,
  ) {
    this.embeddings = new EmbeddingsService(ctx, sources);
    this.retrieval = new RetrievalService(ctx, this.embeddings, new RerankService(ctx, sources));
    this.parts = { embeddings: this.embeddings, retrieval: this.retrieval };
  }

  /**
   * After the job host exists: the embedding stage's workers and sweep when `workers`, and (`warm`,
   * processes that answer questions) the vector indexes rebuilt from PostgreSQL in the background.
   */
  async start(opts: { workers: boolean; jobs: SearchJobs; warm: boolean }): Promise<void> {
    await this.embeddings.start(opts);
  }

  /** After the job host has stopped its workers: the vector index thread closes. */
  async stop(): Promise<void> {
    await this.embeddings.stop();
  }

  /** The chunk index writer of one transaction (the ingest pipeline hands each parsed document to it). */
  writer(tx: EntityManager): ChunkWriter {
    return {
      configFor: (language) => resolveTextSearchConfig(tx, configForLanguage(language, this.ctx.config.searchLanguage)),
      stage: (config, rows) => stageRows(tx, config, rows),
      lock: (projectId) => lockProjectIndex(tx, projectId),
      replace: async (projectId, documentId) => {
        await removeDocumentChunks(tx, projectId, documentId);
        return commitStagedChunks(tx, projectId, documentId);
      },
    };
  }

  /** A document's chunks are committed: queue its embedding stage (best effort; the sweep is the safety net). */
  async index(documentId: string): Promise<void> {
    await this.embeddings.documentIndexed(documentId);
  }

  /**
   * A document's chunks, their postings and (by cascade) their vectors leave the index; with
   * `within`, inside the caller's transaction (a delete that removes the document row with them).
   * Vector indexes drop the rows when a search next meets them. Returns the chunks removed.
   */
  async forget(documentId: string, within?: { em: EntityManager; projectId: string }): Promise<number> {
    const remove = async (em: EntityManager, projectId: string) => {
      await lockProjectIndex(em, projectId);
      return removeDocumentChunks(em, projectId, documentId);
    };
    if (within) return remove(within.em, within.projectId);
    return this.ctx.orm.em.fork().transactional(async (tx) => {
      const [doc] = await query<{ project_id: string }>(tx, 'select project_id from documents where id = ?', [documentId]);
      if (!doc) throw new NotFoundError('not_found', 'Document not found');
      return remove(tx, doc.project_id);
    });
  }

  /**
   * The best chunks of the project for `question`, for `actor`, who must hold `use` on it
   * (background jobs and tools pass `Actor.system()`). `checked`: the caller checked that access
   * for this question already (chat), so it is not checked twice.
   */
  async search(
    actor: Actor,
    projectId: string,
    question: string,
    opts: SearchOptions & { checked?: CheckedProject } = {},
  ): Promise<RetrievalHit[]> {
    if (opts.checked?.id !== projectId) await requireTier(this.ctx.orm.em.fork(), actor, projectId, 'use');
    return this.retrieval.search(projectId, question, opts);
  }

  /**
   * The project's vector index is read again from PostgreSQL, and its ready documents lacking
   * vectors of its current model are queued for the embedding stage. Returns the documents queued
   * (0 when the project has no embedding source).
   */
  async reindex(projectId: string): Promise<number> {
    const source = (await this.embeddings.sourcesForProjects([projectId])).get(projectId);
    if (!source) return 0;
    await this.embeddings.store.reload(projectId, source.key);
    const rows = await query<{ id: string }>(
      this.ctx.orm.em.fork(),
      `select d.id from documents d
        where d.project_id = ? and d.status = 'ready'
          and exists (select 1 from chunks c where c.document_id = d.id
                       and not exists (select 1 from chunk_embeddings e where e.chunk_id = c.id and e.model = ?))`,
      [projectId, source.key],
    );
    await this.embeddings.enqueue(rows.map((r) => r.id));
    return rows.length;
  }

  /** Sets each document's `embeddings` progress ({model, chunksEmbedded, chunksTotal}, or null). */
  async embeddingProgress(em: EntityManager, documents: Document[]): Promise<void> {
    await attachEmbeddingProgress(this.embeddings, em, documents);
  }

  /** One embedding sweep now (operators and tests; it also runs every EMBEDDING_SWEEP_SECONDS). */
  sweep(): Promise<number> {
    return this.embeddings.sweep();
  }

  /** The vector index's state: rows held, rows in HNSW graphs, the cache (diagnostics, benches, tests). */
  async vectorStats(): Promise<ReturnType<EmbeddingsService['store']['stats']> & { graphRows: number; tailRows: number; rows: number }> {
    return { ...this.embeddings.store.stats(), ...(await this.embeddings.store.indexStats()) };
  }
}
