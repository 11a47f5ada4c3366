import type { UpstreamTarget } from './openai-client';
import { CallControl, jsonHeaders } from './upstream-call';
import { describeHttpError, UpstreamError } from './upstream-http';

/**
 * Reranking through the `/rerank` protocol Cohere defined and Jina, vLLM, LocalAI, Infinity and
 * text-embeddings-inference serve: `POST {baseUrl}/rerank` with `{model, query, documents, top_n}`
 * answers `{results: [{index, relevance_score}]}`, best first. Calls go through the same request
 * path as chat and embeddings (keep-alive pools, the SSRF guard when the target carries a policy,
 * described errors).
 *
 * Variants read as well: text-embeddings-inference's native answer, a bare `[{index, score}]`; a
 * `score` instead of `relevance_score`; `data` instead of `results`. TEI's native endpoint wants
 * `texts` instead of `documents`: when a server answers 4xx naming `texts`, the request is sent
 * again in that form once, and the endpoint is remembered as speaking it.
 */
export interface RerankOptions {
  /** Time-out of the whole call (both forms, when the endpoint needs the second one). */
  timeoutMs: number;
  signal?: AbortSignal;
  /** How many of the best results to ask for (default: all). */
  topN?: number;
}

export interface RerankResult {
  /** Index into the documents sent, with its relevance score, best first. */
  index: number;
  score: number;
}

/** An answer is small (an index and a score per document, or the documents when a server echoes them). */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** Endpoints (rerank URLs) seen to want TEI's native `{query, texts}` form. */
const textsEndpoints = new Set<string>();

export function rerankUrl(baseUrl: string): URL {
  return new URL(`${baseUrl.replace(/\/+$/, '')}/rerank`);
}

/**
 * The documents' relevance to `query`, best first (at most `topN`). Throws UpstreamError (or
 * UpstreamAbortedError when the caller aborted) when the call fails or the answer is unusable.
 */
export async function rerankDocuments(
  target: UpstreamTarget,
  query: string,
  documents: string[],
  opts: RerankOptions,
): Promise<RerankResult[]> {
  if (!documents.length) return [];
  const topN = Math.min(documents.length, Math.max(1, opts.topN ?? documents.length));
  const url = rerankUrl(target.baseUrl);
  const ctl = new CallControl(opts.signal, {
    totalMs: opts.timeoutMs,
    timeoutMessage: `The rerank request timed out after ${opts.timeoutMs} ms`,
  });
  const send = async (texts: boolean): Promise<{ status: number; body: string }> => {
    const payload = texts
      ? { model: target.model, query, texts: documents, truncate: true }
      : { model: target.model, query, documents, top_n: topN };
    const res = await ctl.post(url, jsonHeaders(target.apiKey), payload, target.policy);
    return { status: res.statusCode ?? 0, body: await ctl.read(res, url, MAX_RESPONSE_BYTES) };
  };
  try {
    const key = url.href;
    let texts = textsEndpoints.has(key);
    let answer = await send(texts);
    if (!texts && answer.status >= 400 && answer.status < 500 && /\btexts\b/.test(answer.body)) {
      // text-embeddings-inference's native endpoint: "missing field `texts`"
      texts = true;
      answer = await send(true);
      if (answer.status >= 200 && answer.status < 300) textsEndpoints.add(key);
    }
    if (answer.status < 200 || answer.status >= 300) {
      throw describeHttpError(answer.status, answer.body, { model: target.model, keyGiven: !!target.apiKey });
    }
    return parseRerank(answer.body, documents.length, answer.status).slice(0, topN);
  } finally {
    ctl.dispose();
  }
}

/**
 * Reads a rerank answer: `{results: [{index, relevance_score}]}` (Cohere, Jina, vLLM, LocalAI),
 * `{data: [...]}`, or a bare list (text-embeddings-inference), with `relevance_score` or `score`.
 * Every index must name a document sent, once; scores must be finite numbers. Sorted best first
 * (ties by index), whatever order the server listed them in.
 */
export function parseRerank(body: string, documents: number, status = 200): RerankResult[] {
  const bad = (why: string) => new UpstreamError(status, `The rerank answer is not usable: ${why}`);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw bad('not JSON');
  }
  const obj = json as { results?: unknown; data?: unknown } | null;
  const list: unknown = Array.isArray(json) ? json : Array.isArray(obj?.results) ? obj.results : obj?.data;
  if (!Array.isArray(list)) throw bad('no results array');
  if (list.length > documents) throw bad(`${list.length} results for ${documents} documents`);
  const seen = new Set<number>();
  const out = list.map((item: unknown): RerankResult => {
    const r = item as { index?: unknown; relevance_score?: unknown; score?: unknown } | null;
    const index = r?.index;
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= documents || seen.has(index)) {
      throw bad(`bad or repeated index ${JSON.stringify(index) ?? 'undefined'}`);
    }
    seen.add(index);
    const score = r?.relevance_score ?? r?.score;
    if (typeof score !== 'number' || !Number.isFinite(score)) throw bad(`no numeric score for index ${index}`);
    return { index, score };
  });
  return out.sort((a, b) => b.score - a.score || a.index - b.index);
}
