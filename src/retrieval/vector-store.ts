import type { EntityManager } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';
import { endianness } from 'node:os';
import type { Logger } from '../logger';

/**
 * Chunk vectors in PostgreSQL (`chunk_embeddings`), one row per (chunk, model). Vectors are stored
 * L2-normalised, so cosine similarity is a dot product.
 *
 * Two ways to search:
 *  - pgvector, when `create extension vector` succeeds at start: an `embedding vector` column and
 *    one HNSW index per (model, dimensions) (a partial expression index, so models of different
 *    sizes share the column). PostgreSQL finds the neighbours.
 *  - portable (the embedded PostgreSQL has no pgvector): exact scoring in this process over a
 *    per-(project, model) Float32Array matrix kept in memory. The matrix is current when its
 *    `max(seq)` equals the table's (one index probe per search); new rows are appended
 *    incrementally. Writers of one project serialise on an advisory lock and take their `seq`
 *    under it, so rows commit in `seq` order and none is skipped. Deleted chunks (cascade) are
 *    noticed when a search meets them and dropped from the matrix; too many such gaps reload it.
 *    Matrices are evicted least-recently-used past EMBEDDING_CACHE_MB; a project whose matrix
 *    alone exceeds it is scored by streaming its rows from the database.
 */
export interface Neighbour {
  id: string;
  score: number;
}

interface CacheEntry {
  ids: string[];
  /** Row of each chunk id (a row is never loaded twice). */
  rows: Map<string, number>;
  dims: number;
  matrix: Float32Array;
  count: number;
  maxSeq: bigint;
  dead: Set<number>;
  bytes: number;
  lastUsed: number;
}

const LOAD_PAGE = 5000;

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

/** Copies a stored little-endian float32 vector into `target` (a byte copy on little-endian hosts). */
function readInto(target: Float32Array, b: Buffer): void {
  const n = Math.min(target.length * 4, b.length);
  if (LITTLE_ENDIAN) new Uint8Array(target.buffer, target.byteOffset, n).set(b.subarray(0, n));
  else for (let i = 0; i * 4 < n; i++) target[i] = b.readFloatLE(i * 4);
}

const LITTLE_ENDIAN = endianness() === 'LE';

const vectorLiteral = (v: Float32Array) => `[${Array.from(v).join(',')}]`;

/** Keeps the k best (id index, score) pairs: a small min-heap on score. */
class TopK {
  readonly idx: number[] = [];
  readonly score: number[] = [];
  constructor(private readonly k: number) {}
  push(i: number, s: number): void {
    const { idx, score } = this;
    if (idx.length < this.k) {
      idx.push(i);
      score.push(s);
      let c = idx.length - 1;
      while (c > 0) {
        const p = (c - 1) >> 1;
        if (score[p] <= score[c]) break;
        [idx[p], idx[c]] = [idx[c], idx[p]];
        [score[p], score[c]] = [score[c], score[p]];
        c = p;
      }
      return;
    }
    if (s <= score[0]) return;
    idx[0] = i;
    score[0] = s;
    let c = 0;
    for (;;) {
      const l = 2 * c + 1;
      const r = l + 1;
      let m = c;
      if (l < idx.length && score[l] < score[m]) m = l;
      if (r < idx.length && score[r] < score[m]) m = r;
      if (m === c) break;
      [idx[m], idx[c]] = [idx[c], idx[m]];
      [score[m], score[c]] = [score[c], score[m]];
      c = m;
    }
  }
  sorted(): Array<{ i: number; s: number }> {
    return this.idx.map((i, n) => ({ i, s: this.score[n] })).sort((a, b) => b.s - a.s || a.i - b.i);
  }
}

async function sql<T = Record<string, unknown>>(em: EntityManager, text: string, params: unknown[] = []): Promise<T[]> {
  return await em.getConnection().execute<T[]>(text, params, 'all', em.getTransactionContext());
}

export class VectorStore {
  /** True when the pgvector extension is usable (decided by detect()). */
  pgvector = false;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly loading = new Map<string, Promise<CacheEntry | null>>();
  private readonly hnswReady = new Set<string>();
  private cachedBytes = 0;

  constructor(
    private readonly cacheBytes: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Tries `create extension vector` (needs the extension installed and the right to create it) and
   * adds the `embedding` column. Failure means the portable path; never an error.
   */
  async detect(em: EntityManager): Promise<boolean> {
    try {
      await em.transactional(async (tx) => {
        await sql(tx, 'create extension if not exists vector');
        await sql(tx, 'alter table chunk_embeddings add column if not exists embedding vector');
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
      await sql(tx, `select pg_advisory_xact_lock(hashtextextended('docqa-vectors:' || ?::text, 0))`, [projectId]);
      const payload = JSON.stringify(
        normalised.map((r) => ({ id: r.id, b: toBytes(r.v).toString('base64'), ...(this.pgvector ? { e: vectorLiteral(r.v) } : {}) })),
      );
      const [res] = await sql<{ n: number }>(
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
    return written;
  }

  /** One HNSW index per (model, dims), built once (pgvector caps indexed vectors at 2,000 dimensions). */
  private async ensureHnsw(em: EntityManager, model: string, dims: number): Promise<void> {
    const name = `chunk_embeddings_hnsw_${createHash('sha256').update(`${model}\u0000${dims}`).digest('hex').slice(0, 16)}`;
    if (this.hnswReady.has(name) || dims > 2000) return;
    try {
      const lit = `'${model.replace(/'/g, "''")}'`;
      await sql(
        em,
        `create index if not exists ${name} on chunk_embeddings using hnsw ((embedding::vector(${dims})) vector_cosine_ops) where model = ${lit} and dims = ${dims}`,
      );
      this.hnswReady.add(name);
    } catch (err) {
      this.logger.warn({ err, model, dims }, 'creating the HNSW index failed; searches of this model scan exactly');
    }
  }

  /** The `k` stored chunks of the project closest to `query` (cosine), best first; only vectors of `model`. */
  async neighbours(em: EntityManager, projectId: string, model: string, query: Float32Array, k: number): Promise<Neighbour[]> {
    const q = normalize(query);
    if (this.pgvector) return this.neighboursPg(em, projectId, model, q, k);
    const entry = await this.entry(em, projectId, model);
    if (entry === null) return this.neighboursStreamed(em, projectId, model, q, k);
    if (entry.dims !== q.length) return [];
    entry.lastUsed = Date.now();
    const top = new TopK(k);
    const { matrix, dims, count, dead } = entry;
    const tail = dims - (dims % 4);
    for (let r = 0, off = 0; r < count; r++, off += dims) {
      if (dead.size && dead.has(r)) continue;
      // four accumulators: about 1.5× faster than one in V8 (measured at 100k × 384)
      let a = 0,
        b = 0,
        c = 0,
        e = 0;
      for (let d = 0; d < tail; d += 4) {
        a += matrix[off + d] * q[d];
        b += matrix[off + d + 1] * q[d + 1];
        c += matrix[off + d + 2] * q[d + 2];
        e += matrix[off + d + 3] * q[d + 3];
      }
      for (let d = tail; d < dims; d++) a += matrix[off + d] * q[d];
      top.push(r, a + b + c + e);
    }
    return top.sorted().map(({ i, s }) => ({ id: entry.ids[i], score: s }));
  }

  /** Chunks a search found gone (deleted since the matrix was loaded) leave the cached matrix. */
  forget(projectId: string, model: string, chunkIds: string[]): void {
    const entry = this.cache.get(cacheKey(projectId, model));
    if (!entry || !chunkIds.length) return;
    const gone = new Set(chunkIds);
    entry.ids.forEach((id, i) => gone.has(id) && entry.dead.add(i));
    if (entry.dead.size > entry.count / 4) this.drop(cacheKey(projectId, model));
  }

  private async neighboursPg(em: EntityManager, projectId: string, model: string, q: Float32Array, k: number): Promise<Neighbour[]> {
    const dims = q.length;
    const lit = vectorLiteral(q);
    return em.transactional(async (tx) => {
      // a project filter after an HNSW scan: look further than k, and keep scanning (pgvector ≥ 0.8) until k are found
      await sql(tx, `set local hnsw.ef_search = ${Math.max(100, k * 4)}`);
      await sql(
        tx,
        `select set_config('hnsw.iterative_scan', 'relaxed_order', true) where exists (select 1 from pg_settings where name = 'hnsw.iterative_scan')`,
      );
      const rows = await sql<{ id: string; d: number }>(
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

  private async maxSeq(em: EntityManager, projectId: string, model: string): Promise<bigint> {
    const [row] = await sql<{ m: string | null }>(
      em,
      'select max(seq)::text as m from chunk_embeddings where project_id = ? and model = ?',
      [projectId, model],
    );
    return BigInt(row?.m ?? '0');
  }

  /** The current matrix of (project, model), loading what is new; null when it would not fit the cache. */
  private async entry(em: EntityManager, projectId: string, model: string): Promise<CacheEntry | null> {
    const key = cacheKey(projectId, model);
    const pending = this.loading.get(key);
    if (pending) return pending;
    // one load per matrix at a time: two appending the same rows would duplicate them
    const p = (async () => {
      const seq = await this.maxSeq(em, projectId, model);
      const cached = this.cache.get(key);
      if (cached && cached.maxSeq === seq) return cached;
      return this.load(em, projectId, model, cached && cached.count > 0 && cached.maxSeq < seq ? cached : null);
    })();
    this.loading.set(key, p);
    const clear = () => {
      if (this.loading.get(key) === p) this.loading.delete(key);
    };
    p.then(clear, clear);
    return p;
  }

  private async load(em: EntityManager, projectId: string, model: string, base: CacheEntry | null): Promise<CacheEntry | null> {
    const key = cacheKey(projectId, model);
    const [stat] = await sql<{ n: number; dims: number | null }>(
      em,
      'select count(*)::int as n, max(dims)::int as dims from chunk_embeddings where project_id = ? and model = ? and seq > ?',
      [projectId, model, (base?.maxSeq ?? 0n).toString()],
    );
    const dims = base?.dims ?? stat.dims ?? 0;
    const needed = ((base?.count ?? 0) + stat.n) * dims * 4;
    if (needed > this.cacheBytes) {
      this.drop(key);
      return null;
    }
    let entry = base;
    if (!entry) {
      entry = {
        ids: [],
        rows: new Map(),
        dims,
        matrix: new Float32Array(Math.max(1, stat.n) * dims),
        count: 0,
        maxSeq: 0n,
        dead: new Set(),
        bytes: 0,
        lastUsed: Date.now(),
      };
    } else if (entry.matrix.length < needed / 4) {
      const grown = new Float32Array(Math.max(needed / 4, entry.matrix.length * 2));
      grown.set(entry.matrix.subarray(0, entry.count * dims));
      entry.matrix = grown;
    }
    let after = entry.maxSeq;
    for (;;) {
      const rows = await sql<{ id: string; vec: Buffer; dims: number; seq: string }>(
        em,
        'select chunk_id as id, vec, dims, seq::text as seq from chunk_embeddings where project_id = ? and model = ? and seq > ? order by seq limit ?',
        [projectId, model, after.toString(), LOAD_PAGE],
      );
      for (const r of rows) {
        if (r.dims !== dims || entry.rows.has(r.id)) continue;
        if (entry.matrix.length < (entry.count + 1) * dims) {
          const grown = new Float32Array(Math.max((entry.count + 1) * dims, entry.matrix.length * 2));
          grown.set(entry.matrix.subarray(0, entry.count * dims));
          entry.matrix = grown;
        }
        readInto(entry.matrix.subarray(entry.count * dims, (entry.count + 1) * dims), r.vec);
        entry.ids.push(r.id);
        entry.rows.set(r.id, entry.count);
        entry.count++;
      }
      if (rows.length) after = BigInt(rows[rows.length - 1].seq);
      if (rows.length < LOAD_PAGE) break;
    }
    entry.maxSeq = after;
    entry.lastUsed = Date.now();
    this.cachedBytes -= entry.bytes;
    entry.bytes = entry.matrix.byteLength;
    this.cachedBytes += entry.bytes;
    this.cache.set(key, entry);
    this.evict(key);
    return entry;
  }

  /** Exact scoring without the cache, page by page (a matrix larger than EMBEDDING_CACHE_MB). */
  private async neighboursStreamed(em: EntityManager, projectId: string, model: string, q: Float32Array, k: number): Promise<Neighbour[]> {
    const top = new TopK(k);
    const ids: string[] = [];
    const v = new Float32Array(q.length);
    let after = '0';
    for (;;) {
      const rows = await sql<{ id: string; vec: Buffer; seq: string }>(
        em,
        'select chunk_id as id, vec, seq::text as seq from chunk_embeddings where project_id = ? and model = ? and dims = ? and seq > ? order by seq limit ?',
        [projectId, model, q.length, after, LOAD_PAGE],
      );
      for (const r of rows) {
        readInto(v, r.vec);
        let s = 0;
        for (let d = 0; d < v.length; d++) s += v[d] * q[d];
        ids.push(r.id);
        top.push(ids.length - 1, s);
      }
      if (rows.length < LOAD_PAGE) break;
      after = rows[rows.length - 1].seq;
    }
    return top.sorted().map(({ i, s }) => ({ id: ids[i], score: s }));
  }

  private drop(key: string): void {
    const e = this.cache.get(key);
    if (!e) return;
    this.cachedBytes -= e.bytes;
    this.cache.delete(key);
  }

  private evict(keep: string): void {
    if (this.cachedBytes <= this.cacheBytes) return;
    const byAge = [...this.cache.entries()].filter(([k]) => k !== keep).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [k] of byAge) {
      if (this.cachedBytes <= this.cacheBytes) break;
      this.drop(k);
    }
  }
}

const cacheKey = (projectId: string, model: string) => `${projectId}\u0000${model}`;
