import { existsSync } from 'node:fs';
import path from 'node:path';
import { Piscina } from 'piscina';
import type { ScoreResult, ScoreTask } from './vector-scoring';

/**
 * The compiled worker script. Under ts-jest this module is TypeScript but worker threads need
 * JavaScript, so the build in dist/ is used (npm test builds it first).
 */
function workerFile(): string {
  const here = path.join(__dirname, 'vector-worker.js');
  if (existsSync(here)) return here;
  const built = path.resolve(__dirname, '../../dist/src/retrieval/vector-worker.js');
  if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build`);
  return built;
}

/**
 * Vector scoring off the event loop: a piscina pool of `threads` worker threads, created on first
 * use (processes that never search vectors start none) and kept warm. A cached matrix lives in a
 * SharedArrayBuffer, so a task carries only the query and a row range; a streamed page is
 * transferred. The threads hold no vectors of their own between tasks.
 */
export class VectorScorer {
  private pool: Piscina | null = null;
  private closed = false;
  /** Tasks scored, and by which threads (tests and diagnostics). */
  tasks = 0;
  readonly threadIds = new Set<number>();
  /** Tasks scored per kernel (SIMD, or the JavaScript fallback). */
  readonly kernels = { simd: 0, js: 0 };

  constructor(readonly threads: number) {}

  async score(task: ScoreTask, transfer = false): Promise<ScoreResult> {
    if (this.closed) throw new Error('the vector scorer is closed');
    this.pool ??= new Piscina({
      filename: workerFile(),
      minThreads: this.threads,
      maxThreads: this.threads,
      idleTimeout: 5 * 60_000,
    });
    const res = (await this.pool.run(task, transfer ? { transferList: [task.buffer as ArrayBuffer] } : {})) as ScoreResult;
    this.tasks++;
    this.threadIds.add(res.threadId);
    this.kernels[res.kernel]++;
    return res;
  }

  /** Stops the threads (at shutdown); later searches fail (and retrieval falls back to lexical). */
  async close(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = null;
    await pool?.destroy();
  }
}
