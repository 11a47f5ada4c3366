import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { allocateWasmMatrix } from '../src/retrieval/simd-kernel';
import { scoreRows, scoreRowsJs, ScoreTask } from '../src/retrieval/vector-scoring';

/**
 * The exact vector scan alone, on one thread: the JavaScript kernel against the WebAssembly SIMD128
 * kernel (src/retrieval/simd-kernel.ts), top-50 included, over ROWS × DIMS normalised random
 * float32 rows in the shared WebAssembly.Memory the cache uses. Reports min and median of REPS
 * scans per kernel (interleaved, so a busy machine slows both alike) and the load average.
 *
 *   node dist/bench/vector-scan.js [--rows 100000] [--dims 512] [--reps 21]
 */
const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

function main(): void {
  const rows = arg('rows', 100_000);
  const dims = arg('dims', 512);
  const reps = arg('reps', 21);
  const m = allocateWasmMatrix(rows * dims, dims, 1);
  if (m === null) throw new Error('WebAssembly SIMD is unavailable here');
  let s = 1;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
  for (let i = 0; i < m.matrix.length; i++) m.matrix[i] = next();
  const query = Float32Array.from({ length: dims }, next);
  const task: ScoreTask = { buffer: m.matrix.buffer, wasm: m.wasm, dims, from: 0, to: rows, base: 0, query, k: 50 };
  const times = { js: [] as number[], simd: [] as number[] };
  const load0 = loadavg()[0];
  for (let i = 0; i < reps + 2; i++) {
    for (const kernel of ['js', 'simd'] as const) {
      const t = performance.now();
      const res = kernel === 'js' ? scoreRowsJs(task, 0) : scoreRows(task, 0);
      if (res.kernel !== kernel) throw new Error(`expected the ${kernel} kernel`);
      if (i >= 2) times[kernel].push(performance.now() - t); // two warm-ups
    }
  }
  const stat = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return { min: +sorted[0].toFixed(2), median: +sorted[sorted.length >> 1].toFixed(2) };
  };
  const js = stat(times.js);
  const simd = stat(times.simd);
  console.log(
    JSON.stringify({
      rows,
      dims,
      reps,
      jsMs: js,
      simdMs: simd,
      speedup: { min: +(js.min / simd.min).toFixed(2), median: +(js.median / simd.median).toFixed(2) },
      loadAverage: [load0, loadavg()[0]].map((x) => +x.toFixed(2)),
    }),
  );
}

main();
