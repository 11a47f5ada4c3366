// The vector index thread: owns every (project, model) index of the process (vector-index-core.ts) and answers the main thread's requests.
import { parentPort, workerData } from 'node:worker_threads';
import { exactPage, IndexBook, IndexOptions } from './vector-index-core';

/** A request from VectorIndex (src/search/vector-index.ts); each is answered with its `id`. */
export type IndexRequest =
  | { id: number; op: 'append'; key: string; dims: number; first: number; rows: Float32Array }
  | { id: number; op: 'search'; key: string; query: Float32Array; k: number }
  | { id: number; op: 'page'; dims: number; rows: Float32Array; query: Float32Array; k: number; base: number }
  | { id: number; op: 'remove'; key: string; rows: number[] }
  | { id: number; op: 'drop'; key: string }
  | { id: number; op: 'stats' };

export type IndexReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

const book = new IndexBook(workerData as IndexOptions);
const port = parentPort!;
let draining = false;

/**
 * Moves the tails into their graphs one slice per turn of the event loop, so a search that arrives
 * meanwhile waits for one slice at most (never for a whole graph being built).
 */
function drain(): void {
  if (draining || !book.pending()) return;
  draining = true;
  setImmediate(function next() {
    if (book.step() && book.pending()) setImmediate(next);
    else draining = false;
  });
}

function handle(req: IndexRequest): unknown {
  switch (req.op) {
    case 'append':
      book.append(req.key, req.dims, req.first, req.rows);
      drain();
      return null;
    case 'search':
      return book.search(req.key, req.query, req.k);
    case 'page':
      return exactPage(req.rows, req.dims, req.query, req.k, req.base);
    case 'remove':
      book.remove(req.key, req.rows);
      return null;
    case 'drop':
      book.drop(req.key);
      return null;
    case 'stats':
      return book.stats();
  }
}

port.on('message', (req: IndexRequest) => {
  let reply: IndexReply;
  try {
    reply = { id: req.id, ok: true, value: handle(req) };
  } catch (e) {
    reply = { id: req.id, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(reply);
});
