import { performance } from 'node:perf_hooks';
import { query } from '../db/sql';
import { embedTexts } from '../llm/embeddings-client';
import { UpstreamAbortedError, UpstreamError } from '../llm/upstream-http';
import { SearchStages, stopwatch } from './stages';
import { Neighbour, VectorStore } from './vector-store';
import { Backoff } from '../util/backoff';
import { EMBED_QUEUE, ModelSources, SearchContext, SearchJobs, SearchPart } from './context';
import type { EmbeddingTarget } from '../llm/provider-targets';
import { LATE, within } from '../util/within';

/** Vector neighbours a question takes into fusion. */
export const VECTOR_NEIGHBOURS = 50;
/** After a failed question embedding, queries skip the embedder this long (lexical only) instead of each waiting for it. */
const QUERY_BACKOFF_MS = 15_000;
/** Chunks read per round of an embedding job (each round is embedded in EMBEDDING_BATCH_SIZE requests, then written). */
const ROUND_BATCHES = 4;
/** Documents enqueued per model by one sweep. */
const SWEEP_LIMIT = 1000;

export interface QueryNeighbours {
  model: string;
  neighbours: Neighbour[];
  /** Time spent waiting for the embeddings provider (the question's vector). */
  embeddingMs: number;
}

/**
 * The semantic stage: chunk vectors from the project's embedding source (providers.service
 * resolves it and decrypts the key), stored and searched by VectorStore. Ingestion enqueues a job
 * once a document's text is committed; a periodic sweep fills in whatever lacks vectors of the
 * current model (an embedder that was down, a changed model) and drops other models' vectors once
 * a project is complete. Query time embeds the question once with a short time-out; any failure
 * means lexical retrieval for that question, never an error.
 */
export class EmbeddingsService extends SearchPart {
  constructor(
    ctx: SearchContext,
    private readonly providers: ModelSources,
  ) {
    super(ctx);
  }

  /** The portable path's vector indexes live in one thread of their own: the event loop stays free. */
  readonly store = new VectorStore(this.config.embeddingCacheMb * 1024 * 1024, this.logger, {
    exactBelow: this.config.vectorExactBelow,
    quantization: this.config.vectorQuantization,
  });
  /** The process's one job host (the document pipeline's): embedding jobs and the sweep run on it. */
  private queue: SearchJobs | null = null;
  private readonly failingUntil = new Backoff(QUERY_BACKOFF_MS);

  /** `warm`: rebuild the vector indexes from PostgreSQL, in the background (processes that answer questions). */
  async start(opts: { workers: boolean; jobs: SearchJobs; warm?: boolean }): Promise<void> {
    await this.store.detect(this.freshEm());
    this.queue = opts.jobs;
    if (opts.warm) void this.warm();
    if (opts.workers) {
      opts.jobs.work(EMBED_QUEUE, 2, async (job) => {
        try {
          await this.embedDocument(job.documentId);
        } catch (e) {
          const reason = e instanceof Error ? e.message : String(e);
          this.logger.warn({ documentId: job.documentId, reason }, 'embedding attempt failed; it will be retried');
          throw e;
        }
      });
      opts.jobs.every(this.config.embeddingSweepSeconds, 'embedding sweep', () => this.sweep());
    }
  }

  /**
   * Each project's index of its current model, rebuilt one project at a time; never awaited by
   * start, so no project waits for another's (a question waits only for its own project's load).
   */
  private async warm(): Promise<void> {
    try {
      const em = this.freshEm();
      const projects = await query<{ id: string }>(em, 'select distinct project_id as id from chunk_embeddings');
      const sources = await this.sourcesForProjects(projects.map((p) => p.id));
      const current = new Map([...sources].flatMap(([id, s]) => (s ? [[id, s.key] as [string, string]] : [])));
      const n = await this.store.warm(em, current);
      this.logger.debug({ indexes: n }, 'vector indexes rebuilt from PostgreSQL');
    } catch (err) {
      this.logger.warn({ err }, 'rebuilding the vector indexes failed; each is loaded by its first question');
    }
  }

  /** The job host stops the embedding workers and the sweep (with the document pipeline); this closes the vector index thread. */
  async stop(): Promise<void> {
    this.queue = null;
    await this.store.close();
  }

  /** Queues the embedding stage of documents (reindex: the wing has found what lacks vectors). */
  async enqueue(documentIds: string[]): Promise<void> {
    for (const id of documentIds) await this.queue?.send(EMBED_QUEUE, id);
  }

  /** The ingestion job calls this once a document's chunks are committed (best effort: the sweep is the safety net). */
  async documentIndexed(documentId: string): Promise<void> {
    try {
      const [source] = await this.sourcesForDocuments([documentId]);
      if (source) await this.queue?.send(EMBED_QUEUE, documentId);
    } catch (err) {
      this.logger.warn({ err, documentId }, 'enqueuing the embedding stage failed; the sweep will pick the document up');
    }
  }

  // ---------------------------------------------------------------- sources

  /** Each project's embedding source (null: none configured). */
  async sourcesForProjects(projectIds: string[]): Promise<Map<string, EmbeddingTarget | null>> {
    if (!projectIds.length) return new Map();
    const rows = await query<{ id: string; m: string | null }>(
      this.freshEm(),
      `select id, settings->>'embeddingModel' as m from projects where id in (select (jsonb_array_elements_text(?::jsonb))::uuid)`,
      [JSON.stringify(projectIds)],
    );
    const targets = await this.providers.resolveForEmbeddings(rows.map((r) => r.m));
    return new Map(rows.map((r, i) => [r.id, targets[i]]));
  }

  private async sourcesForDocuments(documentIds: string[]): Promise<Array<EmbeddingTarget | null>> {
    const rows = await query<{ id: string; project_id: string }>(
      this.freshEm(),
      'select id, project_id from documents where id in (select (jsonb_array_elements_text(?::jsonb))::uuid)',
      [JSON.stringify(documentIds)],
    );
    const byProject = await this.sourcesForProjects([...new Set(rows.map((r) => r.project_id))]);
    const projectOf = new Map(rows.map((r) => [r.id, r.project_id]));
    return documentIds.map((id) => (projectOf.has(id) ? (byProject.get(projectOf.get(id)!) ?? null) : null));
  }

  // ---------------------------------------------------------------- the embedding job

  /**
   * Embeds the document's chunks that lack a vector of its project's current model, in rounds
   * (read, embed in batches, write). A failure throws, so the job is retried with backoff; the
   * document's status is never touched.
   */
  async embedDocument(documentId: string): Promise<void> {
    const em = this.freshEm();
    const [doc] = await query<{ project_id: string; status: string }>(em, 'select project_id, status from documents where id = ?', [
      documentId,
    ]);
    if (!doc || doc.status !== 'ready') return; // not indexed yet (its ingestion enqueues again) or gone
    const source = (await this.sourcesForProjects([doc.project_id])).get(doc.project_id);
    if (!source) return;
    const batch = this.config.embeddingBatchSize;
    for (;;) {
      const chunks = await query<{ id: string; text: string }>(
        em,
        `select c.id, c.text from chunks c
          where c.document_id = ? and not exists (select 1 from chunk_embeddings e where e.chunk_id = c.id and e.model = ?)
          order by c.ordinal limit ?`,
        [documentId, source.key, batch * ROUND_BATCHES],
      );
      if (!chunks.length) return;
      const { vectors } = await embedTexts(
        source.target,
        chunks.map((c) => c.text),
        {
          timeoutMs: this.config.embeddingTimeoutMs,
          batchSize: batch,
          retries: 2,
          signal: this.ctx.shutdown,
        },
      );
      const written = await this.store.write(
        em,
        doc.project_id,
        source.key,
        chunks.map((c, i) => ({ chunkId: c.id, vector: vectors[i] })),
      );
      if (written === 0) return; // the chunks went away meanwhile (reindex or delete)
    }
  }

  /**
   * One sweep, on one node at a time: enqueues documents whose chunks lack vectors of their
   * project's current model, and drops other models' vectors from projects that are complete.
   * Returns the number of documents enqueued.
   */
  async sweep(): Promise<number> {
    const em = this.freshEm();
    return em.transactional(async (tx) => {
      const [{ locked }] = await query<{ locked: boolean }>(
        tx,
        `select pg_try_advisory_xact_lock(hashtext('docqa:embedding-sweep')) as locked`,
      );
      if (!locked) return 0;
      const projects = await query<{ id: string }>(
        tx,
        'select p.id from projects p where exists (select 1 from chunks c where c.project_id = p.id)',
      );
      const sources = await this.sourcesForProjects(projects.map((p) => p.id));
      const groups = new Map<string, string[]>();
      for (const [projectId, source] of sources) {
        if (!source) continue;
        groups.set(source.key, [...(groups.get(source.key) ?? []), projectId]);
      }
      let enqueued = 0;
      for (const [model, projectIds] of groups) {
        const missing = await query<{ document_id: string; project_id: string }>(
          tx,
          `select distinct c.document_id, c.project_id from chunks c join documents d on d.id = c.document_id and d.status = 'ready'
            where c.project_id in (select (jsonb_array_elements_text(?::jsonb))::uuid)
              and not exists (select 1 from chunk_embeddings e where e.chunk_id = c.id and e.model = ?)
            limit ${SWEEP_LIMIT}`,
          [JSON.stringify(projectIds), model],
        );
        for (const m of missing) await this.queue?.send(EMBED_QUEUE, m.document_id, this.config.embeddingSweepSeconds);
        enqueued += missing.length;
        const incomplete = new Set(missing.map((m) => m.project_id));
        const complete = projectIds.filter((id) => !incomplete.has(id));
        // a project fully embedded with its current model no longer needs older models' vectors
        if (complete.length && missing.length < SWEEP_LIMIT) {
          await query(
            tx,
            `delete from chunk_embeddings where project_id in (select (jsonb_array_elements_text(?::jsonb))::uuid) and model <> ?`,
            [JSON.stringify(complete), model],
          );
        }
      }
      return enqueued;
    });
  }

  // ---------------------------------------------------------------- query time

  /**
   * The question's vector neighbours in the project, or null when there is no embedding source or
   * the embedder did not answer in time (retrieval is then lexical). Never throws.
   */
  async neighbours(projectId: string, question: string, stages?: SearchStages): Promise<QueryNeighbours | null> {
    const lap = stopwatch(stages);
    let t = performance.now();
    try {
      if (!(await this.mayHaveSource(projectId))) return null;
      const source = (await this.sourcesForProjects([projectId])).get(projectId);
      if (!source || this.failingUntil.active(source.key)) return null;
      const started = lap('embedSource', t);
      let embeddingMs = 0;
      const embedding = embedTexts(source.target, [question], {
        timeoutMs: this.config.embeddingQueryTimeoutMs,
        retries: 0,
        signal: this.ctx.shutdown,
      }).then(({ vectors: [vector] }) => {
        t = lap('embed', started);
        embeddingMs = t - started;
        return vector;
      });
      // the store checks its matrix is current while the question is embedded
      const found = this.store.neighbours(this.freshEm(), projectId, source.key, embedding, VECTOR_NEIGHBOURS);
      try {
        await embedding;
      } catch (e) {
        found.catch(() => undefined);
        if (e instanceof UpstreamError) this.failingUntil.failed(source.key);
        if (!(e instanceof UpstreamAbortedError))
          this.logger.warn({ err: e, model: source.key }, 'embedding the question failed; retrieval is lexical');
        return null;
      }
      this.failingUntil.succeeded(source.key);
      // an index still loading (after a restart, or streamed) is awaited as long as an embedding, then lexical
      const neighbours = await within(found, this.config.embeddingQueryTimeoutMs);
      lap('scan', t);
      if (neighbours !== LATE) return { model: source.key, neighbours, embeddingMs };
      found.catch(() => undefined);
      this.logger.info({ projectId, model: source.key }, 'the vector index is still loading; retrieval is lexical');
      return null;
    } catch (err) {
      this.logger.warn({ err, projectId }, 'vector search failed; retrieval is lexical');
      return null;
    }
  }

  /**
   * One cheap statement on the query path: false when no source can apply (no project setting, no
   * enabled provider with embedding models, no EMBEDDING_MODEL), so lexical-only retrieval pays
   * one small query and nothing else.
   */
  private async mayHaveSource(projectId: string): Promise<boolean> {
    if (this.config.embedding) return true;
    const [row] = await query<{ yes: boolean }>(
      this.freshEm(),
      `select (p.settings->>'embeddingModel') is not null
              or exists (select 1 from providers where is_enabled and jsonb_array_length(embedding_models) > 0) as yes
         from projects p where p.id = ?`,
      [projectId],
    );
    return !!row?.yes;
  }

  /** Retrieval found some neighbours' chunks gone: they leave the cached matrix. */
  forget(projectId: string, model: string, chunkIds: string[]): void {
    this.store.forget(projectId, model, chunkIds);
  }
}
