import { VectorIndex } from '../../src/search/vector-index';
import { exactPage, IndexBook } from '../../src/search/vector-index-core';

/**
 * The usearch indexes of the index thread (src/search/vector-index-core.ts), in process: exact
 * below the threshold, HNSW past it (each quantisation), rows found before they reach the graph,
 * removed rows never returned, and two keys (two models) never mixed.
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

/** Exact top-k rows by dot product, computed here in float64. */
function bruteTop(m: Float32Array, dims: number, q: Float32Array, k: number): number[] {
  const n = m.length / dims;
  const s = Array.from({ length: n }, (_, r) => {
    let a = 0;
    for (let d = 0; d < dims; d++) a += m[r * dims + d] * q[d];
    return { r, a };
  });
  return s
    .sort((x, y) => y.a - x.a || x.r - y.r)
    .slice(0, k)
    .map((x) => x.r);
}

const drainAll = (book: IndexBook) => {
  while (book.step());
};

describe('the vector index (usearch)', () => {
  it.each([4, 17, 64, 512])('below the threshold, ranks exactly at %i dimensions (the same rows and scores as a float64 scan)', (dims) => {
    const next = rng(dims);
    const rows = normalised(2000, dims, next);
    const book = new IndexBook({ exactBelow: 10_000, quantization: 'f16' });
    book.append('p/m', dims, 0, rows.slice(0, 1000 * dims));
    book.append('p/m', dims, 1000, rows.slice(1000 * dims));
    drainAll(book);
    expect(book.stats()).toMatchObject({ rows: 2000, graphRows: 0 });
    for (let i = 0; i < 5; i++) {
      const q = normalised(1, dims, next);
      const got = book.search('p/m', q, 20);
      const want = bruteTop(rows, dims, q, 20);
      // the same set (order may differ only between float32 near-ties)
      expect(new Set(got.rows)).toEqual(new Set(want));
      got.rows.forEach((r, j) => {
        let a = 0;
        for (let d = 0; d < dims; d++) a += rows[r * dims + d] * q[d];
        expect(got.scores[j]).toBeCloseTo(a, 5);
      });
    }
  });

  it.each(['f32', 'f16', 'i8'] as const)(
    'past the threshold, searches an HNSW graph (%s) with recall@20 ≥ 0.9 against exact',
    (quantization) => {
      const dims = 32;
      const next = rng(7);
      const rows = normalised(4000, dims, next);
      const book = new IndexBook({ exactBelow: 1000, quantization, slice: 500, stepMs: Infinity });
      book.append('p/m', dims, 0, rows);
      expect(book.pending()).toBe(true);
      drainAll(book);
      expect(book.stats()).toMatchObject({ rows: 4000, graphRows: 4000, tailRows: 0 });
      let hits = 0;
      for (let i = 0; i < 20; i++) {
        const q = normalised(1, dims, next);
        const want = new Set(bruteTop(rows, dims, q, 20));
        hits += book.search('p/m', q, 20).rows.filter((r) => want.has(r)).length;
      }
      expect(hits / 400).toBeGreaterThanOrEqual(0.9);
    },
  );

  it('finds rows appended after the graph at once (scored exactly until they are moved in), and removed rows never', () => {
    const dims = 16;
    const next = rng(3);
    const rows = normalised(3000, dims, next);
    const book = new IndexBook({ exactBelow: 1000, quantization: 'f32', slice: 256, stepMs: Infinity });
    book.append('p/m', dims, 0, rows.slice(0, 2000 * dims));
    drainAll(book);
    book.append('p/m', dims, 2000, rows.slice(2000 * dims));
    expect(book.stats()).toMatchObject({ graphRows: 2000, tailRows: 1000 });
    // a new row's own vector finds it first, before and after it reaches the graph
    const own = rows.slice(2500 * dims, 2501 * dims);
    expect(book.search('p/m', own, 5).rows[0]).toBe(2500);
    // the tail drains from its end: two slices move rows 2488–2999, row 2500 among them
    book.step();
    book.step();
    expect(book.stats().graphRows).toBe(2512);
    expect(book.search('p/m', own, 5).rows[0]).toBe(2500);
    // removed: one in the graph, one in the tail
    const inGraph = rows.slice(10 * dims, 11 * dims);
    book.remove('p/m', [10, 2500]);
    expect(book.search('p/m', inGraph, 50).rows).not.toContain(10);
    expect(book.search('p/m', own, 50).rows).not.toContain(2500);
    drainAll(book);
    expect(book.search('p/m', own, 50).rows).not.toContain(2500);
    expect(book.stats().tailRows).toBe(0);
  });

  it('moves fewer rows per step when adding a row costs more than the step time (a search waits about one step)', () => {
    const dims = 64;
    const book = new IndexBook({ exactBelow: 0, quantization: 'f16', slice: 256, stepMs: 0.001 });
    book.append('p/m', dims, 0, normalised(600, dims, rng(4)));
    // far below one row's cost: one row a step
    for (let i = 0; i < 5; i++) book.step();
    expect(book.stats().graphRows).toBe(5);
  });

  it('keeps each key (project, model) apart: another model of another size is never compared', () => {
    const book = new IndexBook({ exactBelow: 10, quantization: 'f16' });
    const a = normalised(50, 8, rng(1));
    const b = normalised(50, 12, rng(2));
    book.append('p/a', 8, 0, a);
    book.append('p/b', 12, 0, b);
    drainAll(book);
    expect(book.search('p/a', a.slice(0, 8), 60).rows).toHaveLength(50);
    // a query of the wrong size finds nothing instead of mixing models
    expect(book.search('p/a', b.slice(0, 12), 10).rows).toEqual([]);
    expect(book.search('p/c', a.slice(0, 8), 10).rows).toEqual([]);
    expect(() => book.append('p/a', 8, 7, a.slice(0, 8))).toThrow(/out of order/);
  });

  it('scores a streamed page exactly, its rows numbered from the page base', () => {
    const dims = 24;
    const rows = normalised(500, dims, rng(9));
    const q = normalised(1, dims, rng(10));
    const got = exactPage(rows, dims, q, 10, 5000);
    expect(got.rows).toEqual(bruteTop(rows, dims, q, 10).map((r) => r + 5000));
  });

  it('bounds the rows held outside the graph: past the bound the tail drains before more is taken', () => {
    const dims = 16;
    const rows = normalised(3000, dims, rng(11));
    // 256 rows of 16 float32s
    const book = new IndexBook({ exactBelow: 500, quantization: 'f16', maxTailBytes: 256 * dims * 4 });
    book.append('p/m', dims, 0, rows.slice(0, 1000 * dims));
    expect(book.overTail('p/m')).toBe(true);
    while (book.overTail('p/m')) expect(book.step()).toBe(true);
    expect(book.stats().tailRows).toBeLessThanOrEqual(256);
    // below exactBelow nothing is held: the whole index is its exact tail
    const small = new IndexBook({ exactBelow: 10_000, quantization: 'f16', maxTailBytes: 256 * dims * 4 });
    small.append('p/m', dims, 0, rows.slice(0, 3000 * dims));
    expect(small.overTail('p/m')).toBe(false);
  });

  it('in its thread, answers an append past the bound only once the graph has taken the excess, and other requests meanwhile', async () => {
    const dims = 32;
    const n = 6000;
    const rows = normalised(n, dims, rng(12));
    const index = new VectorIndex({ exactBelow: 1000, quantization: 'f16', maxTailBytes: 500 * dims * 4 });
    try {
      await index.append('other/m', dims, 0, normalised(10, dims, rng(13)));
      const page = 2000;
      for (let first = 0; first < n; first += page) {
        const appended = index.append('p/m', dims, first, rows.slice(first * dims, (first + page) * dims));
        // the other index is searched while this append waits for the graph
        const other = await index.search('other/m', normalised(1, dims, rng(first)), 3);
        expect(other.rows).toHaveLength(3);
        await appended;
        const s = await index.stats();
        expect(s.rows - 10).toBe(first + page);
        expect(s.tailRows - 10).toBeLessThanOrEqual(500);
      }
      const q = normalised(1, dims, rng(14));
      const found = await index.search('p/m', q, 10);
      const want = bruteTop(rows, dims, q, 10);
      expect(found.rows.filter((r) => want.includes(r)).length).toBeGreaterThanOrEqual(8);
    } finally {
      await index.close();
    }
  });
});
