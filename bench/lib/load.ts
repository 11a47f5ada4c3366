import http from 'node:http';

export interface LoadResult {
  name: string;
  medianMs: number;
  p95Ms: number;
  p99Ms: number;
  rps: number;
  requests: number;
  errors: number;
  non2xx: number;
}

export interface Req {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadOptions {
  baseUrl: string;
  /** A fixed request, or a function giving the i-th request (e.g. rotating logins). */
  request: Req | ((i: number) => Req);
  connections?: number;
  durationMs?: number;
  /** Stop after this many requests instead of after durationMs. */
  amount?: number;
  warmupMs?: number;
  /** Expected status (default 200); anything else counts as non2xx. */
  expect?: number;
}

/** Latency percentiles of a list of samples (ms). */
export function percentiles(samples: number[]): { median: number; p95: number; p99: number } {
  const s = Float64Array.from(samples).sort();
  const at = (q: number) => (s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] : NaN);
  return { median: at(0.5), p95: at(0.95), p99: at(0.99) };
}

export const round = (n: number, d = 2): number => Math.round(n * 10 ** d) / 10 ** d;

/** One HTTP request over a keep-alive agent; resolves with the status and elapsed ms. */
function send(agent: http.Agent, base: URL, r: Req): Promise<{ status: number; ms: number; body: string }> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method: r.method ?? 'GET',
        path: r.path,
        headers: { ...(r.body ? { 'content-type': 'application/json' } : {}), ...r.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - t0) / 1e6, body }));
      },
    );
    req.on('error', reject);
    if (r.body) req.write(r.body);
    req.end();
  });
}

/**
 * A closed-loop load generator: `connections` workers each send one request at a time over
 * keep-alive connections, for `durationMs` (or `amount` requests). Exact per-request latencies.
 */
export async function load(name: string, o: LoadOptions): Promise<LoadResult> {
  const base = new URL(o.baseUrl);
  const connections = o.connections ?? 10;
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const reqAt = typeof o.request === 'function' ? o.request : () => o.request as Req;
  const expect = o.expect ?? 200;
  let i = 0;
  // warm-up: connections, JIT, caches
  const warmEnd = Date.now() + (o.warmupMs ?? 1000);
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < warmEnd) await send(agent, base, reqAt(i++)).catch(() => undefined);
    }),
  );
  const samples: number[] = [];
  let errors = 0;
  let non2xx = 0;
  let sent = 0;
  const start = process.hrtime.bigint();
  const deadline = Date.now() + (o.durationMs ?? 6000);
  const more = () => (o.amount !== undefined ? sent < o.amount : Date.now() < deadline);
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (more()) {
        sent++;
        try {
          const r = await send(agent, base, reqAt(i++));
          samples.push(r.ms);
          if (r.status !== expect) non2xx++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsedS = Number(process.hrtime.bigint() - start) / 1e9;
  agent.destroy();
  const p = percentiles(samples);
  return {
    name,
    medianMs: round(p.median),
    p95Ms: round(p.p95),
    p99Ms: round(p.p99),
    rps: Math.round(samples.length / elapsedS),
    requests: samples.length,
    errors,
    non2xx,
  };
}

export { send };
