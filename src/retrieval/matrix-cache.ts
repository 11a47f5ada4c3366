// The in-memory matrix cache of the portable vector path: loading, growing, freshness by max(seq), LRU eviction.
import type { EntityManager } from '@mikro-orm/postgresql';
import { endianness } from 'node:os';
import { query } from '../db/sql';
import { allocateWasmMatrix, WasmMatrix } from './simd-kernel';

export interface CacheEntry {
  ids: string[];
  /** Row of each chunk id (a row is never loaded twice). */
  rows: Map<string, number>;
  dims: number;
  /** Rows × dims, on a SharedArrayBuffer the scoring threads read in place. */
  matrix: Float32Array;
  /** The shared WebAssembly.Memory `matrix` lies in (the SIMD kernel's); absent without WebAssembly SIMD. */
  wasm?: WasmMatrix;
  count: number;
  maxSeq: bigint;
  dead: Set<number>;
  bytes: number;
  lastUsed: number;
}

export const LOAD_PAGE = 5000;
/** Cache bytes per row besides the vector: its chunk id (string, array slot) and its Map entry. */
const ROW_OVERHEAD = 128;

/**
 * A matrix the scoring threads can read without a copy: in a shared WebAssembly.Memory with one
 * scratch slot per scoring thread (the SIMD kernel's, src/retrieval/simd-kernel.ts), else on a
 * plain SharedArrayBuffer (the JavaScript kernel).
 */
function sharedMatrix(floats: number, dims: number, threads: number): { matrix: Float32Array; wasm?: WasmMatrix } {
  return allocateWasmMatrix(floats, dims, threads) ?? { matrix: new Float32Array(new SharedArrayBuffer(Math.max(1, floats) * 4)) };
}

/** Copies a stored little-endian float32 vector into `target` (a byte copy on little-endian hosts). */
export function readInto(target: Float32Array, b: Buffer): void {
  const n = Math.min(target.length * 4, b.length);
  if (LITTLE_ENDIAN) new Uint8Array(target.buffer, target.byteOffset, n).set(b.subarray(0, n));
  else for (let i = 0; i * 4 < n; i++) target[i] = b.readFloatLE(i * 4);
}

const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * Per-(project, model) matrices of stored vectors (see VectorStore's comment, src/retrieval/vector-store.ts):
 * current when their `max(seq)` equals the table's, new rows appended incrementally, evicted
 * least-recently-used past `cacheBytes`.
 */
export class MatrixCache {
  private readonly cache = new Map<string, CacheEntry>();
  private readonly loading = new Map<string, Promise<CacheEntry | null>>();
  private cachedBytes = 0;

  /** `threads`: scoring threads (one scratch slot each in a SIMD kernel's matrix). */
  constructor(
    private readonly cacheBytes: number,
    private readonly threads: number,
  ) {}

  /** The cache's state (tests and diagnostics). */
  stats(): { cachedBytes: number; limitBytes: number; matrices: number } {
    return { cachedBytes: this.cachedBytes, limitBytes: this.cacheBytes, matrices: this.cache.size };
  }

  /** Chunks a search found gone (deleted since the matrix was loaded) leave the cached matrix. */
  forget(projectId: string, model: string, chunkIds: string[]): void {
    const entry = this.cache.get(cacheKey(projectId, model));
    if (!entry || !chunkIds.length) return;
    const gone = new Set(chunkIds);
    entry.ids.forEach((id, i) => gone.has(id) && entry.dead.add(i));
    if (entry.dead.size > entry.count / 4) this.drop(cacheKey(projectId, model));
  }

  private async maxSeq(em: EntityManager, projectId: string, model: string): Promise<bigint> {
    const [row] = await query<{ m: string | null }>(
      em,
      'select max(seq)::text as m from chunk_embeddings where project_id = ? and model = ?',
      [projectId, model],
    );
    return BigInt(row?.m ?? '0');
  }

  /** The current matrix of (project, model), loading what is new; null when it would not fit the cache. */
  async entry(em: EntityManager, projectId: string, model: string): Promise<CacheEntry | null> {
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
    const [stat] = await query<{ n: number; dims: number | null }>(
      em,
      'select count(*)::int as n, max(dims)::int as dims from chunk_embeddings where project_id = ? and model = ? and seq > ?',
      [projectId, model, (base?.maxSeq ?? 0n).toString()],
    );
    const dims = base?.dims ?? stat.dims ?? 0;
    const rowBytes = dims * 4 + ROW_OVERHEAD;
    if (((base?.count ?? 0) + stat.n) * rowBytes > this.cacheBytes) {
      this.drop(key);
      return null;
    }
    let entry = base;
    if (!entry) {
      entry = {
        ids: [],
        rows: new Map(),
        dims,
        ...sharedMatrix(stat.n * dims, dims, this.threads),
        count: 0,
        maxSeq: 0n,
        dead: new Set(),
        bytes: 0,
        lastUsed: Date.now(),
      };
    } else this.grow(entry, entry.count + stat.n);
    let after = entry.maxSeq;
    for (;;) {
      const rows = await query<{ id: string; vec: Buffer; dims: number; seq: string }>(
        em,
        // order by the column, e.seq: a bare `seq` would name the text output column (lexical order skips rows)
        'select e.chunk_id as id, e.vec, e.dims, e.seq::text as seq from chunk_embeddings e where e.project_id = ? and e.model = ? and e.seq > ? order by e.seq limit ?',
        [projectId, model, after.toString(), LOAD_PAGE],
      );
      for (const r of rows) {
        if (r.dims !== dims) continue;
        const at = entry.rows.get(r.id);
        if (at !== undefined) {
          // a chunk embedded again under its id (chunk ids are derived from the document, position
          // and text, so a re-analysis keeps them): its row is rewritten, and alive again
          readInto(entry.matrix.subarray(at * dims, (at + 1) * dims), r.vec);
          entry.dead.delete(at);
          continue;
        }
        this.grow(entry, entry.count + 1);
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
    if (entry.count * rowBytes > this.cacheBytes) {
      // rows committed since the count above took it past the budget
      this.drop(key);
      return null;
    }
    this.cachedBytes -= entry.bytes;
    entry.bytes = entry.matrix.byteLength + entry.count * ROW_OVERHEAD;
    this.cachedBytes += entry.bytes;
    this.cache.set(key, entry);
    this.evict(key);
    return entry;
  }

  /**
   * Room for `rows` rows: a new shared buffer (doubling, but not past the cache's budget), the old
   * one left to tasks still reading it.
   */
  private grow(entry: CacheEntry, rows: number): void {
    const { dims } = entry;
    if (entry.matrix.length >= rows * dims) return;
    const budgetRows = Math.floor(this.cacheBytes / (dims * 4 + ROW_OVERHEAD));
    const grown = sharedMatrix(Math.max(rows, Math.min((entry.matrix.length / dims) * 2, budgetRows)) * dims, dims, this.threads);
    grown.matrix.set(entry.matrix.subarray(0, entry.count * entry.dims));
    entry.matrix = grown.matrix;
    entry.wasm = grown.wasm;
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
