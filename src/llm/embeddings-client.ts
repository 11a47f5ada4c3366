import type http from 'node:http';
import type { UpstreamTarget } from './openai-client';
import { CallControl, jsonHeaders } from './upstream-call';
import { describeHttpError, UpstreamAbortedError, UpstreamError } from './upstream-http';

/**
 * OpenAI-compatible embeddings: `POST {baseUrl}/embeddings` with `{model, input: [...]}` answers
 * `{data: [{index, embedding}], usage?}` — what OpenAI, Azure, Ollama, vLLM, LocalAI and
 * text-embeddings-inference speak. Calls go through the same request path as chat (keep-alive
 * pools, the SSRF guard when the target carries a policy, described errors).
 */
export interface EmbedOptions {
  /** Time-out of one request (each batch, each attempt). */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Inputs per request. */
  batchSize?: number;
  /** Extra attempts of a request after a 429, a 5xx or a network failure. */
  retries?: number;
  /** First backoff delay; doubles per attempt (with jitter), or the upstream's Retry-After. */
  retryBaseMs?: number;
}

export interface EmbedResult {
  vectors: Float32Array[];
  totalTokens: number;
}

/** An answer body may be large (a batch of 1,536-dimension vectors is a few MB of JSON). */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
const MAX_BACKOFF_MS = 30_000;

export function embeddingsUrl(baseUrl: string): URL {
  return new URL(`${baseUrl.replace(/\/+$/, '')}/embeddings`);
}

/** Embeds `inputs` in batches, in order; throws UpstreamError (or UpstreamAbortedError) when a batch fails for good. */
export async function embedTexts(target: UpstreamTarget, inputs: string[], opts: EmbedOptions): Promise<EmbedResult> {
  const size = Math.max(1, opts.batchSize ?? 64);
  const vectors: Float32Array[] = [];
  let totalTokens = 0;
  for (let i = 0; i < inputs.length; i += size) {
    const r = await withRetries(() => embedOnce(target, inputs.slice(i, i + size), opts), opts);
    vectors.push(...r.vectors);
    totalTokens += r.totalTokens;
  }
  return { vectors, totalTokens };
}

/** 429, 5xx and failures without a response (network, time-out) are worth another attempt. */
function retryable(e: unknown): boolean {
  return e instanceof UpstreamError && (e.status === 0 || e.status === 429 || e.status >= 500);
}

async function withRetries<T>(fn: () => Promise<T>, opts: EmbedOptions): Promise<T> {
  const retries = opts.retries ?? 0;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (attempt >= retries || !retryable(e) || opts.signal?.aborted) throw e;
      const hinted = (e as UpstreamError & { retryAfterMs?: number }).retryAfterMs;
      const base = (opts.retryBaseMs ?? 500) * 2 ** attempt;
      await sleep(Math.min(MAX_BACKOFF_MS, hinted ?? base * (0.75 + Math.random() * 0.5)), opts.signal);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new UpstreamAbortedError(signal.reason));
    const onAbort = () => {
      clearTimeout(t);
      reject(new UpstreamAbortedError(signal?.reason));
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Retry-After in seconds or as an HTTP date, in milliseconds (capped). */
function retryAfterMs(res: http.IncomingMessage): number | undefined {
  const raw = res.headers['retry-after'];
  if (typeof raw !== 'string') return undefined;
  const secs = Number(raw);
  const ms = Number.isFinite(secs) ? secs * 1000 : Date.parse(raw) - Date.now();
  return Number.isFinite(ms) && ms >= 0 ? Math.min(ms, MAX_BACKOFF_MS) : undefined;
}

/** One request: the vectors of `inputs`, ordered by the answer's `index`. */
async function embedOnce(target: UpstreamTarget, inputs: string[], opts: EmbedOptions): Promise<EmbedResult> {
  const url = embeddingsUrl(target.baseUrl);
  const ctl = new CallControl(opts.signal, {
    totalMs: opts.timeoutMs,
    timeoutMessage: `The embeddings request timed out after ${opts.timeoutMs} ms`,
  });
  try {
    const res = await ctl.post(url, jsonHeaders(target.apiKey), { model: target.model, input: inputs }, target.policy);
    const body = await ctl.read(res, url, MAX_RESPONSE_BYTES);
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      const err = describeHttpError(status, body, { model: target.model, keyGiven: !!target.apiKey });
      throw Object.assign(err, { retryAfterMs: retryAfterMs(res) });
    }
    return parseEmbeddings(body, inputs.length, status);
  } finally {
    ctl.dispose();
  }
}

/** Checks the answer's shape: one finite vector per input, all of one dimension, placed by `index`. */
export function parseEmbeddings(body: string, expected: number, status = 200): EmbedResult {
  const bad = (why: string) => new UpstreamError(status, `The embeddings answer is not usable: ${why}`);
  let json: { data?: Array<{ index?: unknown; embedding?: unknown }>; usage?: { total_tokens?: unknown } };
  try {
    json = JSON.parse(body) as typeof json;
  } catch {
    throw bad('not JSON');
  }
  if (!Array.isArray(json?.data)) throw bad('no data array');
  if (json.data.length !== expected) throw bad(`${json.data.length} vectors for ${expected} inputs`);
  const vectors = new Array<Float32Array>(expected);
  let dims = -1;
  json.data.forEach((item, position) => {
    const index = item?.index === undefined ? position : item.index;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= expected || vectors[index]) {
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- index is any JSON value from the answer; String() is the intended rendering in the message
      throw bad(`bad or repeated index ${String(index)}`);
    }
    const e = item.embedding;
    if (!Array.isArray(e) || e.length === 0 || e.length > 16_000) throw bad('an embedding is not a list of numbers');
    if (dims === -1) dims = e.length;
    else if (e.length !== dims) throw bad('embeddings of different lengths');
    const v = new Float32Array(e.length);
    for (let i = 0; i < e.length; i++) {
      const x: unknown = e[i];
      if (typeof x !== 'number' || !Number.isFinite(x)) throw bad('an embedding holds a non-number');
      v[i] = x;
    }
    vectors[index] = v;
  });
  const tokens = Number(json.usage?.total_tokens);
  return { vectors, totalTokens: Number.isFinite(tokens) ? tokens : 0 };
}
