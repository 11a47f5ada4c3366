import { CallControl } from './upstream-call';
import { describeHttpError, UpstreamError } from './upstream-http';

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
  const ctl = new CallControl(opts.signal, {
    totalMs: opts.timeoutMs,
    timeoutMessage: `The web search timed out after ${Math.round(opts.timeoutMs / 1000)} s`,
    networkPrefix: 'Web search failed: ',
  });
  try {
    // the key is sent as given: a search API always wants one
    const headers = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${target.apiKey}` };
    const res = await ctl.post(url, headers, { query: query.query, search_depth: query.depth, max_results: query.maxResults }, undefined);
    const status = res.statusCode ?? 0;
    const text = await ctl.read(res, url, 2 * 1024 * 1024, status);
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
    ctl.dispose();
  }
}
