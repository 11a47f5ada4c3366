// The vector indexes of one thread: usearch HNSW per (project, model), exact search below a size threshold and over rows not yet in the graph.
import { performance } from 'node:perf_hooks';
import { exactSearch, Index, MetricKind, ScalarKind } from 'usearch';

/** How stored vectors are held in the HNSW graph (ADR 0004, "a vector index from a library"). */
export type Quantization = 'f32' | 'f16' | 'i8';

export interface IndexOptions {
  /** A (project, model) index with fewer rows is searched exactly, without a graph. */
  exactBelow: number;
  quantization: Quantization;
  /** At most this many rows move from the exact tail into the graph per step (searches run between steps). */
  slice?: number;
  /**
   * Time a step aims at (ms, 5 by default): the rows per step follow the measured cost of adding a
   * row, so a search waits about this long behind a graph being built, whatever the load.
   */
  stepMs?: number;
  /** Threads usearch adds with (1 in the server: the other core answers requests and runs PostgreSQL; benches may use more). */
  addThreads?: number;
  /**
   * Bytes of float32 rows an index past `exactBelow` may hold outside its graph (256 MiB by
   * default: 131,072 rows of 512 dimensions, so a load of 100,000 rows is taken at once and its
   * questions are scored exactly while the graph grows). Past it, an append is answered only once
   * the tail has drained below it, so a load of a million rows waits for the graph instead of
   * holding them all as float32 (2 KiB each at 512 dimensions, 2 GiB in all) beside it.
   */
  maxTailBytes?: number;
}

/** See IndexOptions.maxTailBytes. */
const MAX_TAIL_BYTES = 256 * 1024 * 1024;

/** Best first; `rows` are the row numbers the caller appended (its chunk ids' positions). */
export interface Found {
  rows: number[];
  scores: number[];
}

/** HNSW parameters: usearch's defaults for the graph, a wider beam at search time for k = 50. */
const CONNECTIVITY = 16;
const EXPANSION_ADD = 128;
const EXPANSION_SEARCH = 160;
const SCALAR_BYTES: Record<Quantization, number> = { f32: 4, f16: 2, i8: 1 };
/** Graph bytes per row besides its vector: level-0 links (2 × connectivity × 4), key, upper levels. */
const GRAPH_ROW_BYTES = 2 * CONNECTIVITY * 4 + 32;

/** Bytes a row of `dims` floats costs in an index (the graph's when past `exactBelow`). */
export function rowBytes(dims: number, rows: number, opts: IndexOptions): number {
  return rows < opts.exactBelow ? dims * 4 : dims * SCALAR_BYTES[opts.quantization] + GRAPH_ROW_BYTES;
}

/**
 * usearch's exactSearch reads a typed array from the start of its buffer, whatever its byteOffset
 * (2.26.2): a view that does not start there is copied first.
 */
const atZero = (a: Float32Array): Float32Array => (a.byteOffset === 0 ? a : a.slice());

/**
 * One (project, model): rows in the HNSW graph, and rows waiting in `tail` (float32, row-major,
 * from the buffer's start; `tailIds` are their row numbers) that are scored exactly. Below
 * `exactBelow` rows there is no graph at all; past it, the tail drains into the graph a slice at a
 * time (from its end, so the tail never moves), so a search never waits for more than one slice
 * and rows just written are found at once (exactly).
 */
class Entry {
  graph: Index | null = null;
  graphRows = 0;
  count = 0;
  tail: Float32Array;
  tailIds: Int32Array;
  tailRows = 0;
  readonly dead = new Set<number>();

  constructor(
    readonly dims: number,
    /** The tail's bound in rows (IndexOptions.maxTailBytes): its buffer does not double past it. */
    readonly maxTailRows: number,
  ) {
    this.tail = new Float32Array(dims * 1024);
    this.tailIds = new Int32Array(1024);
  }

  append(first: number, rows: Float32Array): void {
    if (first !== this.count) throw new Error(`rows appended out of order (${first}, expected ${this.count})`);
    const n = rows.length / this.dims;
    const need = this.tailRows + n;
    if (need > this.tailIds.length) {
      const cap = Math.max(need, Math.min(this.tailIds.length * 2, this.maxTailRows));
      const tail = new Float32Array(cap * this.dims);
      tail.set(this.tail.subarray(0, this.tailRows * this.dims));
      const ids = new Int32Array(cap);
      ids.set(this.tailIds.subarray(0, this.tailRows));
      this.tail = tail;
      this.tailIds = ids;
    }
    this.tail.set(rows, this.tailRows * this.dims);
    for (let i = 0; i < n; i++) this.tailIds[this.tailRows + i] = first + i;
    this.tailRows = need;
    this.count += n;
  }

  /** Moves up to `n` tail rows into the graph; false when nothing was left to move. */
  drain(n: number, quantization: Quantization, threads = 1): boolean {
    const moving = Math.min(n, this.tailRows);
    if (moving <= 0) return false;
    this.graph ??= new Index({
      dimensions: this.dims,
      metric: MetricKind.IP,
      quantization: quantization as ScalarKind,
      connectivity: CONNECTIVITY,
      expansion_add: EXPANSION_ADD,
      expansion_search: EXPANSION_SEARCH,
      multi: false,
    });
    const at = this.tailRows - moving;
    const ids = this.tailIds.subarray(at, this.tailRows);
    const keys = BigUint64Array.from(ids, (r) => BigInt(r));
    this.graph.add(keys, this.tail.slice(at * this.dims, this.tailRows * this.dims), threads);
    for (const r of ids) if (this.dead.has(r)) this.graph.remove(BigInt(r));
    this.graphRows += moving;
    this.tailRows = at;
    if (this.tailRows === 0 && this.tailIds.length > 1024) {
      // the tail's memory goes back once it is empty
      this.tail = new Float32Array(this.dims * 1024);
      this.tailIds = new Int32Array(1024);
    }
    return true;
  }

  search(query: Float32Array, k: number): Found {
    const q = atZero(query);
    const found: Array<{ row: number; score: number }> = [];
    if (this.graph !== null && this.graphRows > 0) {
      const m = this.graph.search(q, Math.min(k, this.graphRows), 1);
      for (let i = 0; i < m.keys.length; i++) found.push({ row: Number(m.keys[i]), score: 1 - m.distances[i] });
    }
    if (this.tailRows > 0) {
      const want = Math.min(this.tailRows, k + this.dead.size);
      const m = exactSearch(new Float32Array(this.tail.buffer, 0, this.tailRows * this.dims), q, this.dims, want, MetricKind.IP, 1);
      for (let i = 0; i < m.keys.length; i++) {
        const row = this.tailIds[Number(m.keys[i])];
        if (!this.dead.has(row)) found.push({ row, score: 1 - m.distances[i] });
      }
    }
    found.sort((a, b) => b.score - a.score || a.row - b.row);
    const top = found.slice(0, k);
    return { rows: top.map((f) => f.row), scores: top.map((f) => f.score) };
  }

  remove(rows: number[]): void {
    for (const r of rows) {
      if (r >= this.count || this.dead.has(r)) continue;
      this.dead.add(r);
      // a row still in the tail is skipped there, and removed when it reaches the graph
      if (this.graph !== null && this.graph.contains(BigInt(r))) this.graph.remove(BigInt(r));
    }
  }
}

/**
 * The indexes a thread holds, keyed by the caller ((project, model) never share a key, so vectors of
 * two models are never compared). `pending()` says whether tails wait for the graph; `step()` moves
 * one slice, and the owner calls it between requests.
 */
export class IndexBook {
  private readonly entries = new Map<string, Entry>();
  private readonly slice: number;
  private readonly stepMs: number;
  /** Measured cost of adding one row (ms; a moving average), from a cautious start. */
  private msPerRow = 1;

  constructor(private readonly opts: IndexOptions) {
    this.slice = opts.slice ?? 256;
    this.stepMs = opts.stepMs ?? 5;
  }

  append(key: string, dims: number, first: number, rows: Float32Array): void {
    let e = this.entries.get(key);
    if (e === undefined || e.dims !== dims) this.entries.set(key, (e = new Entry(dims, this.maxTailRows(dims))));
    e.append(first, rows);
  }

  /** The tail's bound in rows of `dims` float32s (IndexOptions.maxTailBytes). */
  private maxTailRows(dims: number): number {
    return Math.max(1, Math.floor((this.opts.maxTailBytes ?? MAX_TAIL_BYTES) / (dims * 4)));
  }

  /** True when the key's index is past `exactBelow` and holds more rows outside its graph than its bound allows. */
  overTail(key: string): boolean {
    const e = this.entries.get(key);
    return e !== undefined && e.count >= this.opts.exactBelow && e.tailRows > e.maxTailRows;
  }

  search(key: string, query: Float32Array, k: number): Found {
    const e = this.entries.get(key);
    if (e === undefined || e.dims !== query.length) return { rows: [], scores: [] };
    return e.search(query, k);
  }

  remove(key: string, rows: number[]): void {
    this.entries.get(key)?.remove(rows);
  }

  drop(key: string): void {
    this.entries.delete(key);
  }

  /** True when some index has reached the threshold and still has rows outside its graph. */
  pending(): boolean {
    for (const e of this.entries.values()) if (e.count >= this.opts.exactBelow && e.tailRows > 0) return true;
    return false;
  }

  /** Moves one step's rows of one index's tail into its graph. */
  step(): boolean {
    const rows = Math.max(1, Math.min(this.slice, Math.floor(this.stepMs / this.msPerRow)));
    for (const e of this.entries.values()) {
      if (e.count < this.opts.exactBelow) continue;
      const before = e.graphRows;
      const t = performance.now();
      if (!e.drain(rows, this.opts.quantization, this.opts.addThreads)) continue;
      const per = (performance.now() - t) / (e.graphRows - before);
      this.msPerRow = 0.8 * this.msPerRow + 0.2 * per;
      return true;
    }
    return false;
  }

  /** Every index's rows, and how many of them are in a graph (tests and diagnostics). */
  stats(): { indexes: number; rows: number; graphRows: number; tailRows: number } {
    let rows = 0;
    let graphRows = 0;
    for (const e of this.entries.values()) {
      rows += e.count;
      graphRows += e.graphRows;
    }
    return { indexes: this.entries.size, rows, graphRows, tailRows: rows - graphRows };
  }
}

/** Exact top-k of a page of rows (a project streamed from the database), row numbers from `base`. */
export function exactPage(rows: Float32Array, dims: number, query: Float32Array, k: number, base: number): Found {
  const n = rows.length / dims;
  if (n === 0) return { rows: [], scores: [] };
  const m = exactSearch(atZero(rows), atZero(query), dims, Math.min(k, n), MetricKind.IP, 1);
  return { rows: Array.from(m.keys, (x) => base + Number(x)), scores: Array.from(m.distances, (d) => 1 - d) };
}
