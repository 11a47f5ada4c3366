import { allocateWasmMatrix, kernelModule } from '../../src/retrieval/simd-kernel';
import { KERNEL_BYTES } from '../../src/retrieval/simd-kernel-bytes';
import { ScoreResult, scoreRows, scoreRowsJs, ScoreTask } from '../../src/retrieval/vector-scoring';

/**
 * The WebAssembly SIMD128 kernel against the JavaScript kernel (the reference): the same top-k,
 * up to float rounding (the kernel sums in float32, four lanes × four accumulators; JavaScript in
 * float64), on random inputs of many dimensions (multiples of 4 or 16 and odd ones: the scalar tail).
 */

/** Deterministic pseudo-random floats in [-1, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
}

function normalised(n: number, dims: number, next: () => number): Float32Array {
  const out = new Float32Array(n * dims);
  for (let r = 0; r < n; r++) {
    let sq = 0;
    for (let d = 0; d < dims; d++) sq += (out[r * dims + d] = next()) ** 2;
    const inv = 1 / Math.sqrt(sq);
    for (let d = 0; d < dims; d++) out[r * dims + d] *= inv;
  }
  return out;
}

/** A cached matrix as VectorStore allocates it (a shared WebAssembly.Memory with `slots` scratch slots). */
function wasmMatrix(rows: Float32Array, dims: number, slots = 2) {
  const m = allocateWasmMatrix(rows.length, dims, slots);
  if (m === null) throw new Error('WebAssembly SIMD is unavailable');
  m.matrix.set(rows);
  return m;
}

/**
 * The same ranking up to float rounding: the i-th row SIMD returns scores (exactly, in float64) as
 * the JavaScript kernel's i-th within rounding — so rows differ only where scores tie to ~1e-7
 * (which happens at very few dimensions) — and the scores agree within float32 rounding.
 */
function expectSame(simd: ScoreResult, js: ScoreResult, task: ScoreTask): void {
  expect(simd.kernel).toBe('simd');
  expect(js.kernel).toBe('js');
  expect(simd.rows.length).toBe(js.rows.length);
  const m = new Float32Array(task.buffer);
  const exact = (row: number) => {
    let s = 0;
    for (let d = 0; d < task.dims; d++) s += m[(row - task.base) * task.dims + d] * task.query[d];
    return s;
  };
  simd.rows.forEach((row, i) => {
    expect(Math.abs(exact(row) - js.scores[i])).toBeLessThan(1e-6);
    expect(Math.abs(simd.scores[i] - js.scores[i])).toBeLessThan(1e-6);
    // (the last row may tie with the first one left out)
    if (
      i + 1 < js.rows.length &&
      Math.abs(js.scores[i] - js.scores[i + 1]) > 1e-5 &&
      Math.abs(js.scores[i] - (js.scores[i - 1] ?? Infinity)) > 1e-5
    )
      expect(row).toBe(js.rows[i]); // no near-tie: the very same row
  });
  expect(new Set(simd.rows).size).toBe(simd.rows.length);
}

describe('the WebAssembly SIMD kernel', () => {
  it('validates and compiles on this Node (SIMD128 and shared memory)', () => {
    const wasm = (globalThis as unknown as { WebAssembly: { validate(b: Uint8Array): boolean } }).WebAssembly;
    expect(wasm.validate(KERNEL_BYTES)).toBe(true);
    expect(kernelModule()).not.toBeNull();
  });

  it.each([1, 2, 3, 4, 5, 7, 8, 12, 13, 15, 16, 17, 31, 33, 64, 100, 383, 384, 512, 515])(
    'ranks like the JavaScript kernel at %i dimensions (in place, row ranges, dead rows, transferred pages)',
    (dims) => {
      const next = rng(dims * 7919);
      const n = 3000;
      const rows = normalised(n, dims, next);
      const query = normalised(1, dims, next);
      const { matrix, wasm } = wasmMatrix(rows, dims);
      const dead = Int32Array.from([0, 5, 1500, 2999]);
      for (const [from, to, k] of [
        [0, n, 50],
        [0, n, 1],
        [1000, 2100, 20], // a range crossing a BLOCK_ROWS boundary
        [7, 9, 10], // fewer rows than k
      ]) {
        const task: ScoreTask = { buffer: matrix.buffer, wasm, dims, from, to, base: 0, query, k, dead };
        expectSame(scoreRows(task, 0), scoreRowsJs(task, 0), task);
        // a streamed page: a transferable ArrayBuffer, copied into the thread's own memory; `base` offsets rows
        const page = { ...task, buffer: rows.slice().buffer, wasm: undefined, base: 10_000 };
        expectSame(scoreRows(page, 0), scoreRowsJs(page, 0), page);
      }
    },
  );

  it('keeps recall@50 ≥ 0.999 against the JavaScript kernel over many queries at 512 dimensions', () => {
    const dims = 512;
    const next = rng(42);
    const n = 20_000;
    const { matrix, wasm } = wasmMatrix(normalised(n, dims, next), dims);
    let hits = 0;
    const queries = 40;
    for (let i = 0; i < queries; i++) {
      const task: ScoreTask = { buffer: matrix.buffer, wasm, dims, from: 0, to: n, base: 0, query: normalised(1, dims, next), k: 50 };
      const want = new Set(scoreRowsJs(task, 0).rows);
      hits += Array.from(scoreRows(task, 0).rows).filter((r) => want.has(r)).length;
    }
    expect(hits / (queries * 50)).toBeGreaterThanOrEqual(0.999);
  });

  it('breaks ties by row (identical vectors score identically: the lower row first)', () => {
    const dims = 24;
    const next = rng(3);
    const one = normalised(1, dims, next);
    const rows = normalised(2000, dims, next);
    for (const r of [1999, 3, 1024, 700]) rows.set(one, r * dims);
    const { matrix, wasm } = wasmMatrix(rows, dims);
    const res = scoreRows({ buffer: matrix.buffer, wasm, dims, from: 0, to: 2000, base: 0, query: one, k: 4 }, 0);
    expect(Array.from(res.rows)).toEqual([3, 700, 1024, 1999]);
    expect(res.kernel).toBe('simd');
  });

  it('falls back to JavaScript when every scratch slot is taken, or when asked to', () => {
    const dims = 8;
    const next = rng(5);
    const { matrix, wasm } = wasmMatrix(normalised(100, dims, next), dims, 1);
    const query = normalised(1, dims, next);
    const task: ScoreTask = { buffer: matrix.buffer, wasm, dims, from: 0, to: 100, base: 0, query, k: 5 };
    const locks = new Int32Array(wasm.memory.buffer, wasm.scratch, 1);
    Atomics.store(locks, 0, 1);
    expect(scoreRows(task, 0).kernel).toBe('js');
    Atomics.store(locks, 0, 0);
    expect(scoreRows(task, 0).kernel).toBe('simd');
    expect(Atomics.load(locks, 0)).toBe(0);
    expect(scoreRows({ ...task, kernel: 'js' }, 0).kernel).toBe('js');
  });
});
