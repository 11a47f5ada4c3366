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
/** Appends answered once their index's tail is back within its bound (backpressure on loads). */
const held: Array<{ key: string; reply: IndexReply }> = [];

/** Answers the held appends whose tail has drained within its bound (all of them once nothing is pending). */
function release(): void {
  for (let i = 0; i < held.length; i++) {
    if (book.pending() && book.overTail(held[i].key)) continue;
    port.postMessage(held[i].reply);
    held.splice(i--, 1);
  }
}

/**
 * Moves the tails into their graphs one slice per turn of the event loop, so a search that arrives
 * meanwhile waits for one slice at most (never for a whole graph being built).
 */
function drain(): void {
  if (draining || !book.pending()) return;
  draining = true;
  setImmediate(function next() {
    const more = book.step() && book.pending();
    if (held.length) release();
    if (more) setImmediate(next);
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
  // an append past the tail's bound is answered once the graph has taken enough of it (the drain
  // runs a slice per turn, so other requests are answered meanwhile); a drop releases it at once
  if (req.op === 'append' && reply.ok && book.overTail(req.key)) held.push({ key: req.key, reply });
  else port.postMessage(reply);
  if (req.op === 'drop' && held.length) release();
});
