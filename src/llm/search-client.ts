import { describeHttpError, readBody, sendRequest, UpstreamAbortedError, UpstreamError, describeNetworkError } from './upstream-http';

/** A Tavily-compatible web search: `POST {SEARCH_API_URL}/search`, key as `Authorization: Bearer`. */
export interface WebResult {
  title: string;
  url: string;
  content: string;
}

export interface SearchTarget {
  /** Base URL (SEARCH_API_URL), without `/search`. */
  baseUrl: string;
  apiKey: string;
}

export async function webSearch(
  target: SearchTarget,
  query: { query: string; depth: 'basic' | 'advanced'; maxResults: number },
  opts: { signal?: AbortSignal; timeoutMs: number },
): Promise<WebResult[]> {
  const url = new URL(`${target.baseUrl.replace(/\/+$/, '')}/search`);
  const ctl = new AbortController();
  const onAbort = () => ctl.abort(new UpstreamAbortedError(opts.signal?.reason));
  if (opts.signal?.aborted) onAbort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => ctl.abort(new UpstreamError(0, `The web search timed out after ${Math.round(opts.timeoutMs / 1000)} s`)),
    opts.timeoutMs,
  );
  const explain = (e: unknown, status = 0): Error => {
    const reason: unknown = ctl.signal.reason;
    if (ctl.signal.aborted && (reason instanceof UpstreamError || reason instanceof UpstreamAbortedError)) return reason;
    if (e instanceof UpstreamError) return e;
    return new UpstreamError(status, `Web search failed: ${describeNetworkError(e, url)}`);
  };
  try {
    let status = 0;
    let text: string;
    try {
      const res = await sendRequest({
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${target.apiKey}` },
        body: JSON.stringify({ query: query.query, search_depth: query.depth, max_results: query.maxResults }),
        signal: ctl.signal,
      });
      status = res.statusCode ?? 0;
      text = await readBody(res, 2 * 1024 * 1024);
    } catch (e) {
      throw explain(e, status);
    }
    if (status < 200 || status >= 300) {
      const err = describeHttpError(status, text);
      throw new UpstreamError(status, `Web search failed: ${err.message}`, err.upstreamMessage);
    }
    let json: { results?: Array<{ title?: unknown; url?: unknown; content?: unknown }> };
    try {
      json = JSON.parse(text) as typeof json;
    } catch {
      throw new UpstreamError(status, 'Web search answered with something that is not JSON');
    }
    return (json.results ?? [])
      .filter((r) => typeof r.url === 'string' && /^https?:\/\//i.test(r.url))
      .map((r) => ({
        title: typeof r.title === 'string' && r.title.trim() ? r.title.trim() : String(r.url),
        url: String(r.url),
        content: typeof r.content === 'string' ? r.content : '',
      }))
      .slice(0, query.maxResults);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}
