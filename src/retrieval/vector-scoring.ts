/**
 * Exact cosine scoring over row-major matrices of L2-normalised float32 vectors (cosine is then a
 * dot product), shared by the scoring worker (src/retrieval/vector-worker.ts) and VectorStore
 * (which merges the workers' partial results). No imports: it runs in worker threads.
 */

/** One scoring task: rows [from, to) of a matrix. */
export interface ScoreTask {
  /**
   * The vectors, row-major: the cached matrix's SharedArrayBuffer (shared with the worker, never
   * copied) or a streamed page's ArrayBuffer (transferred).
   */
  buffer: SharedArrayBuffer | ArrayBuffer;
  dims: number;
  from: number;
  to: number;
  /** Added to the row numbers returned (a streamed page's first row in the whole scan). */
  base: number;
  query: Float32Array;
  k: number;
  /** Rows to skip (chunks found deleted); row numbers of the buffer, before `base`. */
  dead?: Int32Array;
}

/** The task's k best rows, best first (equal scores: lower row first). */
export interface ScoreResult {
  rows: Int32Array;
  scores: Float64Array;
  /** The thread that scored (0 is the main thread; worker threads are > 0). */
  threadId: number;
}

/** Keeps the k best (row, score) pairs: a min-heap on score; of equal scores the earlier row stays. */
export class TopK {
  private readonly rows: Int32Array;
  private readonly scores: Float64Array;
  size = 0;
  constructor(private readonly k: number) {
    this.rows = new Int32Array(Math.max(0, k));
    this.scores = new Float64Array(Math.max(0, k));
  }
  /** The score a row must beat to enter (−∞ until k are held). */
  get floor(): number {
    return this.size < this.k ? -Infinity : this.scores[0];
  }
  push(row: number, s: number): void {
    const { rows, scores } = this;
    if (this.size < this.k) {
      let c = this.size++;
      while (c > 0) {
        const p = (c - 1) >> 1;
        if (worse(scores[p], rows[p], s, row)) break;
        rows[c] = rows[p];
        scores[c] = scores[p];
        c = p;
      }
      rows[c] = row;
      scores[c] = s;
      return;
    }
    if (this.k === 0 || !worse(scores[0], rows[0], s, row)) return;
    let c = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * c + 1;
      if (l >= n) break;
      const r = l + 1;
      const m = r < n && worse(scores[r], rows[r], scores[l], rows[l]) ? r : l;
      if (!worse(scores[m], rows[m], s, row)) break;
      rows[c] = rows[m];
      scores[c] = scores[m];
      c = m;
    }
    rows[c] = row;
    scores[c] = s;
  }
  /** Best first. */
  result(threadId: number): ScoreResult {
    const order = Array.from({ length: this.size }, (_, i) => i).sort(
      (a, b) => this.scores[b] - this.scores[a] || this.rows[a] - this.rows[b],
    );
    return {
      rows: Int32Array.from(order, (i) => this.rows[i]),
      scores: Float64Array.from(order, (i) => this.scores[i]),
      threadId,
    };
  }
}

/** True when (sa, ra) ranks below (sb, rb): a lower score, or an equal score and a later row. */
const worse = (sa: number, ra: number, sb: number, rb: number) => sa < sb || (sa === sb && ra > rb);

/** Exact top-k of rows [from, to) of the task's matrix. */
export function scoreRows(task: ScoreTask, threadId: number): ScoreResult {
  const { dims, from, to, base, query: q, k } = task;
  const matrix = new Float32Array(task.buffer, 0, to * dims);
  const top = new TopK(k);
  const dead = task.dead?.length ? new Set(task.dead) : null;
  const tail = dims - (dims % 4);
  for (let r = from, off = from * dims; r < to; r++, off += dims) {
    if (dead !== null && dead.has(r)) continue;
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
    top.push(base + r, a + b + c + e);
  }
  return top.result(threadId);
}

/** The k best of several tasks' results (rows are global), best first; equal scores: lower row first. */
export function mergeTop(results: ScoreResult[], k: number): Array<{ row: number; score: number }> {
  const all: Array<{ row: number; score: number }> = [];
  for (const r of results) for (let i = 0; i < r.rows.length; i++) all.push({ row: r.rows[i], score: r.scores[i] });
  return all.sort((a, b) => b.score - a.score || a.row - b.row).slice(0, k);
}
