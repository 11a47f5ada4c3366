// The vector indexes of the portable path, per (project, model): loading from PostgreSQL, keeping current by max(seq), LRU eviction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { endianness } from 'node:os';
import { query } from '../db/sql';
import { IdTable } from './id-table';
import { rowBytes } from './vector-index-core';
import type { VectorIndex } from './vector-index';

export interface CacheEntry {
  /** The index thread's key: vectors of two models never share one. */
  key: string;
  /** Chunk id of each row (row numbers are the index's keys), and the row of each id (a row is never loaded twice). */
  ids: IdTable;
  dims: number;
  maxSeq: bigint;
  dead: Set<number>;
  bytes: number;
  lastUsed: number;
}

export const LOAD_PAGE = 5000;
/** Cache bytes per row besides the index's: its chunk id and its slot in the id table (id-table.ts). */
const ROW_OVERHEAD = 24;

/** Copies a stored little-endian float32 vector into `target` (a byte copy on little-endian hosts). */
export function readInto(target: Float32Array, b: Buffer): void {
  const n = Math.min(target.length * 4, b.length);
  if (LITTLE_ENDIAN) new Uint8Array(target.buffer, target.byteOffset, n).set(b.subarray(0, n));
  else for (let i = 0; i * 4 < n; i++) target[i] = b.readFloatLE(i * 4);
}

const LITTLE_ENDIAN = endianness() === 'LE';

/** True when the chunk has a row in the index that was not forgotten. */
function isAlive(entry: CacheEntry, chunkId: string): boolean {
  const row = entry.ids.get(chunkId);
  return row !== undefined && !entry.dead.has(row);
}

/**
 * Per-(project, model) indexes in the index thread (see VectorStore's comment, src/search/vector-store.ts):
 * current when their `max(seq)` equals the table's, new rows appended as they are read (the thread
 * scores them exactly until they are in the graph), evicted least-recently-used past `cacheBytes`.
 */
export class IndexCache {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly loading = new Map<string, Promise<CacheEntry | null>>();
  /** Bumped by every drop of a key: a load that a drop overtook does not install what it read. */
  private readonly generation = new Map<string, number>();
  private cachedBytes = 0;
  /** Rows read from PostgreSQL into an index (tests: what a question had to load). */
  rowsLoaded = 0;

  constructor(
    private readonly cacheBytes: number,
    private readonly index: VectorIndex,
  ) {}

  stats(): { cachedBytes: number; limitBytes: number; matrices: number; rowsLoaded: number } {
    return { cachedBytes: this.cachedBytes, limitBytes: this.cacheBytes, matrices: this.cache.size, rowsLoaded: this.rowsLoaded };
  }

  /** True when (project, model) has an index here (its writes are then appended at once). */
  has(projectId: string, model: string): boolean {
    return this.cache.has(cacheKey(projectId, model));
  }

  /** Drops the index of (project, model): its next question (or warm) reads it again from PostgreSQL. */
  async reload(projectId: string, model: string): Promise<void> {
    await this.drop(cacheKey(projectId, model));
  }

  /** Chunks a search found gone (deleted since they were loaded) leave the index. */
  async forget(projectId: string, model: string, chunkIds: string[]): Promise<void> {
    const entry = this.cache.get(cacheKey(projectId, model));
    if (!entry || !chunkIds.length) return;
    const rows = chunkIds.map((id) => entry.ids.get(id)).filter((r): r is number => r !== undefined && !entry.dead.has(r));
    rows.forEach((r) => entry.dead.add(r));
    if (entry.dead.size > entry.ids.length / 4) await this.drop(entry.key);
    else if (rows.length) await this.index.remove(entry.key, rows);
  }

  private async maxSeq(em: EntityManager, projectId: string, model: string): Promise<bigint> {
    const [row] = await query<{ m: string | null }>(
      em,
      'select max(seq)::text as m from chunk_embeddings where project_id = ? and model = ?',
      [projectId, model],
    );
    return BigInt(row?.m ?? '0');
  }

  /** The current index of (project, model), loading what is new; null when it would not fit the cache. */
  async entry(em: EntityManager, projectId: string, model: string): Promise<CacheEntry | null> {
    const key = cacheKey(projectId, model);
    const pending = this.loading.get(key);
    if (pending) return pending;
    // one load per index at a time: two appending the same rows would duplicate them
    const p = (async () => {
      const seq = await this.maxSeq(em, projectId, model);
      const cached = this.cache.get(key);
      if (cached && cached.maxSeq === seq) return cached;
      // an index of no rows has no dimensions yet: it is loaded anew
      const base = cached && cached.ids.length > 0 && cached.maxSeq < seq ? cached : null;
      try {
        return await this.load(em, key, projectId, model, base);
      } catch (err) {
        // the thread and this side may no longer agree on the rows: the next load reads them anew
        await this.drop(key).catch(() => undefined);
        throw err;
      }
    })();
    this.loading.set(key, p);
    const clear = () => {
      if (this.loading.get(key) === p) this.loading.delete(key);
    };
    p.then(clear, clear);
    return p;
  }

  private async load(
    em: EntityManager,
    key: string,
    projectId: string,
    model: string,
    base: CacheEntry | null,
  ): Promise<CacheEntry | null> {
    const [stat] = await query<{ n: number; dims: number | null }>(
      em,
      'select count(*)::int as n, max(dims)::int as dims from chunk_embeddings where project_id = ? and model = ? and seq > ?',
      [projectId, model, (base?.maxSeq ?? 0n).toString()],
    );
    // rows committed after the count may be the first: then the first row read says the dimensions
    let dims = base?.dims ?? stat.dims ?? 0;
    const fits = (rows: number) => rows * (rowBytes(dims, rows, this.index.options) + ROW_OVERHEAD) <= this.cacheBytes;
    if (!fits((base?.ids.length ?? 0) + stat.n)) {
      await this.drop(key);
      return null;
    }
    if (!base) await this.drop(key);
    const generation = this.generation.get(key) ?? 0;
    const entry: CacheEntry = base ?? { key, ids: new IdTable(), dims, maxSeq: 0n, dead: new Set(), bytes: 0, lastUsed: Date.now() };
    let after = entry.maxSeq;
    for (;;) {
      const rows = await query<{ id: string; vec: Buffer; dims: number; seq: string }>(
        em,
        // order by the column, e.seq: a bare `seq` would name the text output column (lexical order skips rows)
        'select e.chunk_id as id, e.vec, e.dims, e.seq::text as seq from chunk_embeddings e where e.project_id = ? and e.model = ? and e.seq > ? order by e.seq limit ?',
        [projectId, model, after.toString(), LOAD_PAGE],
      );
      // a row already here is not loaded twice, unless its row was forgotten (a chunk deleted and
      // embedded again under its id: ids are derived from the document, position and text, so a
      // re-analysis keeps them): it comes back as a new row
      if (entry.dims === 0 && rows.length) entry.dims = dims = rows[0].dims;
      const fresh = rows.filter((r) => r.dims === dims && !isAlive(entry, r.id));
      if (fresh.length) {
        const page = new Float32Array(fresh.length * dims);
        fresh.forEach((r, i) => readInto(page.subarray(i * dims, (i + 1) * dims), r.vec));
        const first = entry.ids.length;
        for (const r of fresh) entry.ids.push(r.id);
        await this.index.append(key, dims, first, page);
        this.rowsLoaded += fresh.length;
      }
      if (rows.length) after = BigInt(rows[rows.length - 1].seq);
      if (rows.length < LOAD_PAGE) break;
    }
    entry.maxSeq = after;
    entry.lastUsed = Date.now();
    if ((this.generation.get(key) ?? 0) !== generation) {
      // dropped meanwhile (reindex, eviction): what this load appended may sit in the thread beside
      // nothing here, so it goes too; the question is scored by streaming, the next load starts anew
      await this.drop(key);
      return null;
    }
    if (!fits(entry.ids.length)) {
      // rows committed since the count above took it past the budget
      await this.drop(key);
      return null;
    }
    this.cachedBytes -= entry.bytes;
    entry.bytes = entry.ids.length * (rowBytes(dims, entry.ids.length, this.index.options) + ROW_OVERHEAD);
    this.cachedBytes += entry.bytes;
    this.cache.set(key, entry);
    await this.evict(key);
    return entry;
  }

  private async drop(key: string): Promise<void> {
    this.generation.set(key, (this.generation.get(key) ?? 0) + 1);
    const e = this.cache.get(key);
    if (e) {
      this.cachedBytes -= e.bytes;
      this.cache.delete(key);
    }
    await this.index.drop(key);
  }

  private async evict(keep: string): Promise<void> {
    if (this.cachedBytes <= this.cacheBytes) return;
    const byAge = [...this.cache.entries()].filter(([k]) => k !== keep).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [k] of byAge) {
      if (this.cachedBytes <= this.cacheBytes) break;
      await this.drop(k);
    }
  }
}

const cacheKey = (projectId: string, model: string) => `${projectId}\u0000${model}`;
