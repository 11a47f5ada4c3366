import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A Tavily-compatible `POST /search` server for tests: fixed results, recorded requests. */
export interface SearchResultStub {
  title: string;
  url: string;
  content: string;
}

export interface SearchStub {
  /** The SEARCH_API_URL to configure (no trailing /search). */
  url: string;
  requests: Array<{ authorization: string | null; body: any }>;
  setResults(results: SearchResultStub[]): void;
  /** Answer every request with this status (and an error body) until set back to 200. */
  setStatus(status: number): void;
  close(): Promise<void>;
}

export async function startSearchStub(opts: { apiKey?: string; results?: SearchResultStub[] } = {}): Promise<SearchStub> {
  let results: SearchResultStub[] = opts.results ?? [];
  let status = 200;
  const requests: SearchStub['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      } catch {
        body = null;
      }
      const authorization = req.headers.authorization ?? null;
      requests.push({ authorization, body });
      const reply = (code: number, payload: unknown) => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      if (req.method !== 'POST' || req.url !== '/search') return reply(404, { detail: 'not found' });
      if (opts.apiKey && authorization !== `Bearer ${opts.apiKey}`)
        return reply(401, { detail: { error: 'Unauthorized: missing or invalid API key.' } });
      if (status !== 200) return reply(status, { detail: { error: `search stub failure ${status}` } });
      const max = typeof body?.max_results === 'number' ? body.max_results : 5;
      reply(200, {
        query: body?.query,
        answer: null,
        results: results.slice(0, max).map((r, i) => ({ ...r, score: 0.9 - i * 0.1, raw_content: null })),
        response_time: 0.01,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setResults: (r) => {
      results = r;
    },
    setStatus: (s) => {
      status = s;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
