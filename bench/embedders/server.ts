import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EmbedderName } from './models';
import type { WorkerReply } from './embedder-worker';

export type { EmbedderName } from './models';
export const EMBEDDERS: readonly EmbedderName[] = ['glove-sif', 'use-lite'];

/** The model name each embedder server answers with (and that EMBEDDING_MODEL names). */
export const EMBEDDER_MODELS: Record<EmbedderName, string> = {
  'glove-sif': 'glove-sif-100d',
  'use-lite': 'use-lite-512d',
};

export interface EmbedderServer {
  /** Base URL for EMBEDDING_BASE_URL (the server answers POST {url}/embeddings). */
  url: string;
  model: string;
  dims: number;
  /** Texts embedded so far. */
  texts(): number;
  close(): Promise<void>;
}

/** The compiled worker (under ts-jest this module is TypeScript; worker threads need the build's JavaScript). */
function workerFile(): string {
  const here = path.join(__dirname, 'embedder-worker.js');
  if (existsSync(here)) return here;
  const built = path.resolve(__dirname, '../../dist/bench/embedders/embedder-worker.js');
  if (existsSync(built)) return built;
  throw new Error(`embedder worker not built (${built}): run npm run build`);
}

const MAX_BODY = 64 * 1024 * 1024;
const CACHE_DIR = path.resolve(
  __dirname,
  existsSync(path.join(__dirname, 'embedder-worker.js')) ? '../../..' : '../..',
  'node_modules/.cache/docqa-embedders',
);
/** Bump when an embedder's output changes (pooling, weighting): cached vectors of older versions are not read. */
const MODEL_VERSION: Record<EmbedderName, number> = { 'glove-sif': 1, 'use-lite': 2 };

/**
 * Vectors already computed, on disk (one JSON line per text: sha256 of the text, base64 Float32):
 * the models are deterministic, and the benchmarks embed the same corpus again and again (the
 * Universal Sentence Encoder takes minutes for it on two shared cores).
 */
function vectorCache(name: EmbedderName) {
  const file = path.join(CACHE_DIR, `${name}-v${MODEL_VERSION[name]}.vectors.jsonl`);
  const map = new Map<string, Float32Array>();
  if (existsSync(file))
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        const { h, v } = JSON.parse(line) as { h: string; v: string };
        const b = Buffer.from(v, 'base64');
        map.set(h, new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4));
      } catch {
        // a torn last line: ignore it
      }
    }
  const key = (text: string) => createHash('sha256').update(text).digest('hex');
  return {
    get: (text: string) => map.get(key(text)),
    put(texts: string[], vectors: Float32Array[]) {
      mkdirSync(CACHE_DIR, { recursive: true });
      const lines = texts.map((t, i) => {
        const h = key(t);
        map.set(h, vectors[i]);
        return JSON.stringify({ h, v: Buffer.from(vectors[i].buffer, vectors[i].byteOffset, vectors[i].byteLength).toString('base64') });
      });
      appendFileSync(file, lines.map((l) => `${l}\n`).join(''));
    },
  };
}

/**
 * A local embedder speaking OpenAI's wire protocol: `POST /embeddings` (or `/v1/embeddings`) with
 * `{model, input: string | string[]}` answers `{object: 'list', data: [{object: 'embedding', index,
 * embedding}], model, usage}`. The model runs in a worker thread (loaded before this resolves);
 * requests are answered in arrival order. Vectors are cached on disk under
 * node_modules/.cache/docqa-embedders (`cache: false` computes every text).
 */
export async function startEmbedder(name: EmbedderName, opts: { cache?: boolean } = {}): Promise<EmbedderServer> {
  const cache = opts.cache === false ? null : vectorCache(name);
  const worker = new Worker(workerFile(), { workerData: { name } });
  const pending = new Map<number, { resolve(v: Float32Array[]): void; reject(e: Error): void }>();
  let nextId = 1;
  let embedded = 0;
  let failed: Error | null = null;
  const dims = await new Promise<number>((resolve, reject) => {
    worker.on('message', (m: WorkerReply) => {
      if ('ready' in m) return resolve(m.dims);
      const p = pending.get(m.id);
      pending.delete(m.id);
      if ('error' in m) p?.reject(new Error(m.error));
      else p?.resolve(m.vectors);
    });
    const fail = (e: Error) => {
      failed = e;
      reject(e);
      for (const p of pending.values()) p.reject(e);
      pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`${name} embedder worker exited (${code})`)));
  });
  const compute = (texts: string[]) =>
    new Promise<Float32Array[]>((resolve, reject) => {
      if (failed) return reject(failed);
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, texts });
    });
  /** Cached vectors where there are, the model for the rest. */
  const embed = async (texts: string[]): Promise<Float32Array[]> => {
    const out = texts.map((t) => cache?.get(t));
    const missing = [...new Set(texts.filter((_, i) => !out[i]))];
    if (missing.length) {
      const computed = await compute(missing);
      cache?.put(missing, computed);
      const byText = new Map(missing.map((t, i) => [t, computed[i]]));
      texts.forEach((t, i) => (out[i] ??= byText.get(t)));
    }
    return out as Float32Array[];
  };
  const model = EMBEDDER_MODELS[name];
  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = http.createServer((req, res) => {
    const route = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || !/^(\/v1)?\/embeddings$/.test(route))
      return send(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (d: Buffer) => {
      size += d.length;
      if (size > MAX_BODY) req.destroy();
      else parts.push(d);
    });
    req.on('end', () => {
      void (async () => {
        let body: { input?: unknown };
        try {
          body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { input?: unknown };
        } catch {
          return send(res, 400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
        }
        const input = typeof body.input === 'string' ? [body.input] : body.input;
        if (!Array.isArray(input) || !input.length || input.some((s) => typeof s !== 'string'))
          return send(res, 400, {
            error: { message: 'input must be a string or a non-empty array of strings', type: 'invalid_request_error' },
          });
        try {
          const vectors = await embed(input as string[]);
          embedded += input.length;
          const tokens = (input as string[]).reduce((n, s) => n + (s.match(/\S+/g)?.length ?? 0), 0);
          send(res, 200, {
            object: 'list',
            data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: Array.from(v) })),
            model,
            usage: { prompt_tokens: tokens, total_tokens: tokens },
          });
        } catch (e) {
          send(res, 500, { error: { message: e instanceof Error ? e.message : String(e), type: 'server_error' } });
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    model,
    dims,
    texts: () => embedded,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      worker.removeAllListeners('exit');
      await worker.terminate();
    },
  };
}
