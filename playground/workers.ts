/**
 * Monaco's workers, each bundled as its own file under /graphql/assets/ (see
 * scripts/build-playground.mjs): loaded from our origin, never from a CDN or a blob.
 */
const base = `${location.origin}/graphql/assets/`;

(globalThis as unknown as { MonacoEnvironment: unknown }).MonacoEnvironment = {
  getWorker(_id: string, label: string): Worker {
    const file = label === 'json' ? 'json.worker.js' : label === 'graphql' ? 'graphql.worker.js' : 'editor.worker.js';
    return new Worker(new URL(file, base));
  },
};
