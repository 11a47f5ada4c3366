import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { exactPage, IndexBook, Quantization } from '../src/search/vector-index-core';

/**
 * The vector index alone, on one thread (src/search/vector-index-core.ts, usearch): ROWS × DIMS
 * normalised vectors drawn around CLUSTERS centres (like real embeddings, unlike uniform noise),
 * the exact scan against the HNSW graph in each quantisation: build time, search time per
 * question (median, p95; k = 50), recall@50 against the exact scan, and the process's resident
 * memory with the index held. Searches interleave with nothing (the thread's own cost).
 *
 *   node dist/bench/vector-scan.js [--rows 100000] [--dims 512] [--queries 200] [--quant f32,f16,i8] [--exact 1] [--threads 1]
 *   (--threads: threads usearch builds the graph with; the server uses 1)
 */
const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => +s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(2);
  return { median: at(0.5), p95: at(0.95) };
};

function main(): void {
  const rows = Number(arg('rows', '100000'));
  const dims = Number(arg('dims', '512'));
  const queries = Number(arg('queries', '200'));
  const exactToo = arg('exact', '1') === '1';
  const quants = arg('quant', 'f32,f16,i8').split(',') as Quantization[];
  let s = 1;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
  const clusters = 200;
  const centres = Float32Array.from({ length: clusters * dims }, next);
  const vector = (c: number, spread: number) => {
    const v = new Float32Array(dims);
    let n = 0;
    for (let d = 0; d < dims; d++) n += (v[d] = centres[c * dims + d] + spread * next()) ** 2;
    const inv = 1 / Math.sqrt(n);
    for (let d = 0; d < dims; d++) v[d] *= inv;
    return v;
  };
  const load0 = loadavg()[0];
  const qs = Array.from({ length: queries }, (_, i) => vector((i * 13) % clusters, 1));
  const page = 10_000;
  // a page's rows are drawn from a generator seeded by the page: the same rows for the exact pass and each build
  const pageOf = (p: number) => {
    s = p + 7;
    const m = new Float32Array(Math.min(page, rows - p) * dims);
    for (let r = 0; r < m.length / dims; r++) m.set(vector(((p + r) * 7919) % clusters, 0.7), r * dims);
    return m;
  };
  const out: Record<string, unknown> = { rows, dims, queries };
  let exact: number[][] | null = null;
  if (exactToo) {
    // the exact top 50 by paging through the rows (the rows are regenerated, never all held)
    const t0 = performance.now();
    const best = qs.map(() => [] as Array<{ row: number; score: number }>);
    for (let p = 0; p < rows; p += page) {
      const m = pageOf(p);
      qs.forEach((q, i) => {
        const f = exactPage(m, dims, q, 50, p);
        best[i] = best[i]
          .concat(f.rows.map((row, j) => ({ row, score: f.scores[j] })))
          .sort((a, b) => b.score - a.score)
          .slice(0, 50);
      });
    }
    exact = best.map((b) => b.map((x) => x.row));
    out.exactMsPerQuery = +((performance.now() - t0) / queries).toFixed(2);
  }
  for (const quantization of quants) {
    const book = new IndexBook({ exactBelow: 0, quantization, slice: page, stepMs: Infinity, addThreads: Number(arg('threads', '1')) });
    const t0 = performance.now();
    for (let p = 0; p < rows; p += page) {
      book.append('bench', dims, p, pageOf(p));
      while (book.step());
    }
    const buildSeconds = +((performance.now() - t0) / 1000).toFixed(1);
    const times: number[] = [];
    let hits = 0;
    qs.forEach((q, i) => {
      const t = performance.now();
      const f = book.search('bench', q, 50);
      times.push(performance.now() - t);
      if (exact) hits += f.rows.filter((r) => exact[i].includes(r)).length;
    });
    out[quantization] = {
      buildSeconds,
      searchMs: stat(times),
      recallAt50: exact ? +(hits / (50 * queries)).toFixed(3) : null,
      rssMb: Math.round(process.memoryUsage().rss / 1e6),
    };
    book.drop('bench');
  }
  out.loadAverage = [load0, loadavg()[0]].map((x) => +x.toFixed(2));
  console.log(JSON.stringify(out));
}

main();
