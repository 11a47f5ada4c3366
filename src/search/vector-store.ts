// The chunk vector store: pgvector detection, writes, HNSW indexes and neighbour search (pgvector, a usearch index or streamed).
import type { EntityManager } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';
import { query } from '../db/sql';
import type { Logger } from '../logger';
import { IndexCache, LOAD_PAGE, readInto } from './index-cache';
import { VectorIndex } from './vector-index';
import type { Found, IndexOptions } from './vector-index-core';

/**
 * Chunk vectors in PostgreSQL (`chunk_embeddings`), one row per (chunk, model). Vectors are stored
 * L2-normalised, so cosine similarity is a dot product.
 *
 * Two ways to search:
 *  - pgvector, when `create extension vector` succeeds at start: an `embedding vector` column and
 *    one HNSW index per (model, dimensions) (a partial expression index, so models of different
 *    sizes share the column). PostgreSQL finds the neighbours.
 *  - portable (the embedded PostgreSQL has no pgvector): a usearch index per (project, model) in
 *    one worker thread (VectorIndex; src/search/vector-index-core.ts): exact below
 *    `exactBelow` rows, an HNSW graph (f32, f16 or i8) past it, and rows not yet in the graph
 *    scored exactly, so a row is found as soon as it is appended. An index is current when its
 *    `max(seq)` equals the table's (one index probe per search); new rows are appended as they
 *    are read, and this process's own writes are appended when they commit, so a question after
 *    growth loads nothing. Writers of one project serialise on an advisory lock and take their
 *    `seq` under it, so rows commit in `seq` order and none is skipped. Deleted chunks (cascade)
 *    are noticed when a search meets them and removed from the index; too many such gaps reload
 *    it. Indexes, with their ids, are evicted least-recently-used past EMBEDDING_CACHE_MB; a
 *    project whose index alone exceeds it is scored exactly by streaming its rows from the
 *    database, each page in the index thread. `warm()` rebuilds every index from PostgreSQL at
 *    start, in the background, one project at a time (ADR 0004).
 */
export interface Neighbour {
  id: string;
  score: number;
}

/** Streamed pages being scored at once (bounds the memory of a streamed search). */
const STREAM_IN_FLIGHT = 2;

/** L2-normalised copy (a zero vector stays zero). */
export function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  const out = new Float32Array(v.length);
  if (n === 0) return out;
  const inv = 1 / Math.sqrt(n);
  for (let i = 0; i < v.length; i++) out[i] = v[i] * inv;
  return out;
}

export function toBytes(v: Float32Array): Buffer {
  const b = Buffer.allocUnsafe(v.length * 4);
  for (let i = 0; i < v.length; i++) b.writeFloatLE(v[i], i * 4);
  return b;
}

const vectorLiteral = (v: Float32Array) => `[${Array.from(v).join(',')}]`;

export class VectorStore {
  /** True when the pgvector extension is usable (decided by detect()). */
  pgvector = false;
  private readonly hnswReady = new Set<string>();
  private readonly index: VectorIndex;
  private readonly cache: IndexCache;

  /** `index`: the portable path's index options (started on first use). */
  constructor(
    cacheBytes: number,
    private readonly logger: Logger,
    index: Partial<IndexOptions> = {},
  ) {
    this.index = new VectorIndex({ exactBelow: index.exactBelow ?? 20_000, quantization: index.quantization ?? 'f16', slice: index.slice });
    this.cache = new IndexCache(cacheBytes, this.index);
  }

  /** Stops the index thread (at shutdown). */
  async close(): Promise<void> {
    await this.index.close();
  }

  /** The cache's and the index thread's state (tests and diagnostics). */
  stats(): { cachedBytes: number; limitBytes: number; matrices: number; rowsLoaded: number; indexRequests: number; indexThreadId: number } {
    return { ...this.cache.stats(), indexRequests: this.index.requests, indexThreadId: this.index.threadId };
  }

  /** Rows held by the index thread, and how many are in HNSW graphs (the rest are scored exactly). */
  indexStats(): Promise<{ indexes: number; rows: number; graphRows: number; tailRows: number }> {
    return this.index.stats();
  }

  /**
   * Rebuilds the indexes of every (project, model) with vectors from PostgreSQL, one at a time
   * (portable path; started at start, not awaited: a project's questions wait only for its own
   * index, and one still loading is scored from what is loaded once it is there).
   */
  async warm(em: EntityManager, models?: Map<string, string>): Promise<number> {
    if (this.pgvector) return 0;
    const pairs = await query<{ project_id: string; model: string }>(em, 'select distinct project_id, model from chunk_embeddings');
    let n = 0;
    for (const p of pairs) {
      if (models && models.get(p.project_id) !== p.model) continue;
      if ((await this.cache.entry(em, p.project_id, p.model)) !== null) n++;
    }
    return n;
  }

  /**
   * Tries `create extension vector` (needs the extension installed and the right to create it) and
   * adds the `embedding` column. Failure means the portable path; never an error.
   */
  async detect(em: EntityManager): Promise<boolean> {
    try {
      await em.transactional(async (tx) => {
        await query(tx, 'create extension if not exists vector');
        await query(tx, 'alter table chunk_embeddings add column if not exists embedding vector');
      });
      this.pgvector = true;
    } catch (err) {
      this.logger.debug({ err }, 'pgvector is not available; vectors are scored exactly in the process');
      this.pgvector = false;
    }
    return this.pgvector;
  }

  /**
   * Stores vectors of `model` for chunks of one project (normalised here), in one transaction under
   * the project's vector lock. Chunks deleted meanwhile are skipped; a vector already stored is
   * kept. Returns the number of rows written.
   */
  async write(
    em: EntityManager,
    projectId: string,
    model: string,
    rows: Array<{ chunkId: string; vector: Float32Array }>,
  ): Promise<number> {
    if (!rows.length) return 0;
    const dims = rows[0].vector.length;
    if (rows.some((r) => r.vector.length !== dims)) throw new Error('vectors of one model must have one dimension');
    const normalised = rows.map((r) => ({ id: r.chunkId, v: normalize(r.vector) }));
    const written = await em.transactional(async (tx) => {
      // serialises this project's writers so that seq order is commit order (see the class comment)
      await query(tx, `select pg_advisory_xact_lock(hashtextextended('docqa-vectors:' || ?::text, 0))`, [projectId]);
      const payload = JSON.stringify(
        normalised.map((r) => ({ id: r.id, b: toBytes(r.v).toString('base64'), ...(this.pgvector ? { e: vectorLiteral(r.v) } : {}) })),
      );
      const [res] = await query<{ n: number }>(
        tx,
        `with ins as (
           insert into chunk_embeddings (chunk_id, model, project_id, dims, vec${this.pgvector ? ', embedding' : ''})
           select c.id, ?, c.project_id, ?, decode(x.b, 'base64')${this.pgvector ? ', x.e::vector' : ''}
             from jsonb_to_recordset(?::jsonb) as x(id uuid, b text, e text)
             join chunks c on c.id = x.id and c.project_id = ?
           on conflict (chunk_id, model) do nothing
           returning 1)
         select count(*)::int as n from ins`,
        [model, dims, payload, projectId],
      );
      return res.n;
    });
    if (this.pgvector) await this.ensureHnsw(em, model, dims);
    // kept current as vectors are written: the next question finds nothing to load
    else if (written > 0 && this.cache.has(projectId, model))
      // best effort: the rows are committed, and a failed append leaves the index to be read anew
      await this.cache
        .entry(em, projectId, model)
        .catch((err) => this.logger.warn({ err, projectId }, 'appending to the vector index failed'));
    return written;
  }

  /** One HNSW index per (model, dims), built once (pgvector caps indexed vectors at 2,000 dimensions). */
  private async ensureHnsw(em: EntityManager, model: string, dims: number): Promise<void> {
    const name = `chunk_embeddings_hnsw_${createHash('sha256').update(`${model}\u0000${dims}`).digest('hex').slice(0, 16)}`;
    if (this.hnswReady.has(name) || dims > 2000) return;
    try {
      const lit = `'${model.replace(/'/g, "''")}'`;
      await query(
        em,
        `create index if not exists ${name} on chunk_embeddings using hnsw ((embedding::vector(${dims})) vector_cosine_ops) where model = ${lit} and dims = ${dims}`,
      );
      this.hnswReady.add(name);
    } catch (err) {
      this.logger.warn({ err, model, dims }, 'creating the HNSW index failed; searches of this model scan exactly');
    }
  }

  /**
   * The `k` stored chunks of the project closest to `query` (cosine), best first; only vectors of
   * `model`. `query` may be a promise (the question's embedding still on its way): the cached
   * index's freshness check (and any load) runs meanwhile, so it costs the search no round trip.
   */
  async neighbours(
    em: EntityManager,
    projectId: string,
    model: string,
    query: Float32Array | Promise<Float32Array>,
    k: number,
  ): Promise<Neighbour[]> {
    if (this.pgvector) return this.neighboursPg(em, projectId, model, normalize(await query), k);
    const current = this.cache.entry(em, projectId, model);
    let q: Float32Array;
    try {
      q = normalize(await query);
    } finally {
      // an embedding that failed leaves no load unobserved
      current.catch(() => undefined);
    }
    const entry = await current;
    if (entry === null) return this.neighboursStreamed(em, projectId, model, q, k);
    if (entry.dims !== q.length) return [];
    entry.lastUsed = Date.now();
    // a snapshot of the ids: rows appended meanwhile are beyond it
    const ids = entry.ids;
    const found = await this.index.search(entry.key, q, k);
    return found.rows.map((row, i) => ({ id: ids.id(row), score: found.scores[i] }));
  }

  /** The index of (project, model) is read again from PostgreSQL by its next question (portable path). */
  async reload(projectId: string, model: string): Promise<void> {
    if (!this.pgvector) await this.cache.reload(projectId, model);
  }

  /** Chunks a search found gone (deleted since they were loaded) leave the index. */
  forget(projectId: string, model: string, chunkIds: string[]): void {
    this.cache
      .forget(projectId, model, chunkIds)
      .catch((err) => this.logger.warn({ err }, 'removing deleted chunks from the vector index failed'));
  }

  private async neighboursPg(em: EntityManager, projectId: string, model: string, q: Float32Array, k: number): Promise<Neighbour[]> {
    const dims = q.length;
    const lit = vectorLiteral(q);
    return em.transactional(async (tx) => {
      // a project filter after an HNSW scan: look further than k, and keep scanning (pgvector ≥ 0.8) until k are found
      await query(tx, `set local hnsw.ef_search = ${Math.max(100, k * 4)}`);
      await query(
        tx,
        `select set_config('hnsw.iterative_scan', 'relaxed_order', true) where exists (select 1 from pg_settings where name = 'hnsw.iterative_scan')`,
      );
      const rows = await query<{ id: string; d: number }>(
        tx,
        `select chunk_id as id, (embedding::vector(${dims}) <=> ?::vector(${dims})) as d
           from chunk_embeddings
          where model = ? and dims = ${dims} and project_id = ?
          order by embedding::vector(${dims}) <=> ?::vector(${dims})
          limit ?`,
        [lit, model, projectId, lit, k],
      );
      return rows.map((r) => ({ id: r.id, score: 1 - Number(r.d) }));
    });
  }

  /**
   * Exact scoring without an index, page by page (a project larger than EMBEDDING_CACHE_MB): each
   * page is copied into a buffer that is transferred to the index thread, while the next page is
   * read; at most STREAM_IN_FLIGHT pages are held at once.
   */
  private async neighboursStreamed(em: EntityManager, projectId: string, model: string, q: Float32Array, k: number): Promise<Neighbour[]> {
    const dims = q.length;
    const ids: string[] = [];
    const pending: Array<Promise<Found>> = [];
    const done: Found[] = [];
    let after = '0';
    try {
      for (;;) {
        const rows = await query<{ id: string; vec: Buffer; seq: string }>(
          em,
          'select e.chunk_id as id, e.vec, e.seq::text as seq from chunk_embeddings e where e.project_id = ? and e.model = ? and e.dims = ? and e.seq > ? order by e.seq limit ?',
          [projectId, model, dims, after, LOAD_PAGE],
        );
        if (rows.length) {
          const page = new Float32Array(rows.length * dims);
          rows.forEach((r, i) => readInto(page.subarray(i * dims, (i + 1) * dims), r.vec));
          const base = ids.length;
          for (const r of rows) ids.push(r.id);
          pending.push(this.index.page(dims, page, q, k, base));
          while (pending.length >= STREAM_IN_FLIGHT) done.push(await pending.shift()!);
        }
        if (rows.length < LOAD_PAGE) break;
        after = rows[rows.length - 1].seq;
      }
      done.push(...(await Promise.all(pending)));
    } finally {
      // a failed read leaves no task unobserved
      await Promise.allSettled(pending);
    }
    return mergeTop(done, k).map(({ row, score }) => ({ id: ids[row], score }));
  }
}

/** The k best of several pages' results (rows are global), best first; equal scores: lower row first. */
function mergeTop(results: Found[], k: number): Array<{ row: number; score: number }> {
  const all = results.flatMap((r) => r.rows.map((row, i) => ({ row, score: r.scores[i] })));
  return all.sort((a, b) => b.score - a.score || a.row - b.row).slice(0, k);
}
