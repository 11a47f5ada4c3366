import { parentPort, workerData } from 'node:worker_threads';
import { EmbedderName, loadEmbedder } from './models';

/** Worker thread of one embedder server: loads the model once, then answers {id, texts} with {id, vectors}. */
export type WorkerRequest = { id: number; texts: string[] };
export type WorkerReply = { ready: true; dims: number } | { id: number; vectors: Float32Array[] } | { id: number; error: string };

async function main(): Promise<void> {
  const port = parentPort!;
  const embedder = await loadEmbedder((workerData as { name: EmbedderName }).name);
  port.postMessage({ ready: true, dims: embedder.dims } satisfies WorkerReply);
  // one request at a time, in order: the model is single-threaded anyway
  let chain: Promise<unknown> = Promise.resolve();
  port.on('message', (m: WorkerRequest) => {
    chain = chain.then(async () => {
      try {
        port.postMessage({ id: m.id, vectors: await embedder.embed(m.texts) } satisfies WorkerReply);
      } catch (e) {
        port.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) } satisfies WorkerReply);
      }
    });
  });
}

main().catch((e) => {
  process.stderr.write(`embedder worker failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
