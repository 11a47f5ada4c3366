// The main thread's side of the vector index thread (vector-index-worker.ts): requests as promises, started on first use.
import { Worker } from 'node:worker_threads';
import type { Found, IndexOptions } from './vector-index-core';
import type { IndexReply, IndexRequest } from './vector-index-worker';
import { workerFile } from '../util/worker-file';

/** Requests without their id (VectorIndex numbers them). */
type Request = IndexRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/**
 * Every vector index of the process lives in ONE worker thread (usearch's calls are synchronous:
 * building a graph on the event loop would stall requests). The thread is started on first use
 * (processes that never search start none) and answers in order; between requests it moves rows
 * into the graphs a slice at a time.
 */
export class VectorIndex {
  private worker: Worker | null = null;
  private closed = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  /** Requests answered, and the thread that answered (tests and diagnostics). */
  requests = 0;
  threadId = -1;

  constructor(readonly options: IndexOptions) {}

  append(key: string, dims: number, first: number, rows: Float32Array): Promise<void> {
    return this.call({ op: 'append', key, dims, first, rows }, [rows.buffer as ArrayBuffer]) as Promise<void>;
  }

  search(key: string, query: Float32Array, k: number): Promise<Found> {
    return this.call({ op: 'search', key, query, k }) as Promise<Found>;
  }

  /** Exact top-k of a page of rows (transferred), row numbers from `base`. */
  page(dims: number, rows: Float32Array, query: Float32Array, k: number, base: number): Promise<Found> {
    return this.call({ op: 'page', dims, rows, query, k, base }, [rows.buffer as ArrayBuffer]) as Promise<Found>;
  }

  remove(key: string, rows: number[]): Promise<void> {
    return this.call({ op: 'remove', key, rows }) as Promise<void>;
  }

  drop(key: string): Promise<void> {
    return this.call({ op: 'drop', key }) as Promise<void>;
  }

  stats(): Promise<{ indexes: number; rows: number; graphRows: number; tailRows: number }> {
    return this.call({ op: 'stats' }) as Promise<{ indexes: number; rows: number; graphRows: number; tailRows: number }>;
  }

  /** Stops the thread (at shutdown); later requests fail (and retrieval falls back to lexical). */
  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
    for (const p of this.waiting.values()) p.reject(new Error('the vector index is closed'));
    this.waiting.clear();
  }

  private call(req: Request, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the vector index is closed'));
    const w = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      w.ref();
      w.postMessage({ ...req, id }, transfer);
    });
  }

  private start(): Worker {
    const w = new Worker(workerFile(__dirname, 'search', 'vector-index-worker.js'), { workerData: this.options });
    this.threadId = w.threadId;
    w.on('message', (reply: IndexReply) => {
      const p = this.waiting.get(reply.id);
      if (!p) return;
      this.waiting.delete(reply.id);
      this.requests++;
      // the thread keeps the process alive only while a request waits for it
      if (!this.waiting.size) this.worker?.unref();
      if (reply.ok) p.resolve(reply.value);
      else p.reject(new Error(reply.error));
    });
    w.on('error', (err) => {
      for (const p of this.waiting.values()) p.reject(err);
      this.waiting.clear();
      if (this.worker === w) this.worker = null;
    });
    w.unref();
    return w;
  }
}
