import http from 'node:http';
import https from 'node:https';
import { checkLiteralHost, guardedLookup, NetworkPolicy } from './network-guard';

/**
 * A failed call to an upstream (language model or search API). `status` is the HTTP status, or 0
 * when no response arrived; `message` says what went wrong in words an operator can act on.
 */
export class UpstreamError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly upstreamMessage?: string,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** The caller (client disconnect, shutdown) aborted the call; not an upstream failure. */
export class UpstreamAbortedError extends Error {
  constructor(readonly reason: unknown) {
    super('the request to the upstream was aborted');
    this.name = 'UpstreamAbortedError';
  }
}

export interface OutgoingRequest {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** When given, the SSRF guard applies to this call. */
  policy?: NetworkPolicy;
}

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'EPROTO',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'CERT_REVOKED',
  'ERR_TLS_HANDSHAKE_TIMEOUT',
]);

/** Turns a socket-level failure into a sentence naming the cause (DNS, refused, TLS, reset, ...). */
export function describeNetworkError(e: unknown, url: URL): string {
  const err = e as NodeJS.ErrnoException & { code?: string };
  const code = String(err?.code ?? '');
  const host = url.hostname;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (code === 'EBLOCKEDADDRESS') return err.message;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME' || code === 'EAI_FAIL') {
    return `DNS lookup failed: host "${host}" could not be resolved (${code})`;
  }
  if (code === 'ECONNREFUSED') return `Connection refused by ${host}:${port}; is the server running and the baseUrl right?`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `Host ${host} is unreachable (${code})`;
  if (code === 'ETIMEDOUT') return `Connecting to ${host}:${port} timed out`;
  if (
    TLS_CODES.has(code) ||
    code.startsWith('ERR_TLS') ||
    code.startsWith('ERR_SSL') ||
    /ssl|tls|certificate/i.test(String(err?.message))
  ) {
    return `TLS error talking to ${host}: ${err.message}${code ? ` (${code})` : ''}`;
  }
  if (code === 'ECONNRESET' || code === 'EPIPE' || /aborted|socket hang up|premature close/i.test(String(err?.message))) {
    return `The connection to ${host} was closed unexpectedly (${code || err.message})`;
  }
  return `Request to ${host} failed: ${err?.message ?? String(e)}${code ? ` (${code})` : ''}`;
}

/** The error message inside an upstream error body (OpenAI `{error:{message}}`, `{error}`, `{message}`, or text). */
export function upstreamMessageOf(body: string): string {
  const text = body.trim();
  if (!text) return '';
  try {
    const j = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const e = j.error as { message?: unknown } | string | undefined;
    if (e && typeof e === 'object' && typeof e.message === 'string') return e.message;
    if (typeof e === 'string') return e;
    if (typeof j.message === 'string') return j.message;
    if (typeof j.detail === 'string') return j.detail;
    const d = j.detail as { error?: unknown } | undefined;
    if (d && typeof d === 'object' && typeof d.error === 'string') return d.error;
  } catch {
    /* not JSON */
  }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** Names the likely cause of a non-2xx answer, carrying the upstream's own message. */
export function describeHttpError(status: number, body: string, ctx: { model?: string; keyGiven?: boolean } = {}): UpstreamError {
  const msg = upstreamMessageOf(body);
  const tail = msg ? `: ${msg}` : '';
  let text: string;
  if (status === 401) {
    text =
      ctx.keyGiven === false
        ? `Upstream rejected the request (HTTP 401): no API key is configured${tail}`
        : `Upstream rejected the API key (HTTP 401)${tail}`;
  } else if (status === 403) text = `Upstream refused access (HTTP 403)${tail}`;
  else if (status === 404) {
    text = `Not found (HTTP 404): check the model name${ctx.model ? ` "${ctx.model}"` : ''} and that baseUrl ends before /chat/completions (e.g. https://api.openai.com/v1)${tail}`;
  } else if (status === 429) text = `Upstream rate limit or quota exceeded (HTTP 429)${tail}`;
  else if (status >= 500) text = `Upstream server error (HTTP ${status})${tail}`;
  else text = `Upstream returned HTTP ${status}${tail}`;
  return new UpstreamError(status, text, msg || undefined);
}

/**
 * Keep-alive pools, so a chat does not pay a new TCP/TLS handshake to its provider each time. Calls
 * under the SSRF guard get pools of their own: a socket opened without the guard (an operator's
 * LLM_BASE_URL on a private host) must never be reused by a guarded call to that host.
 */
const agentOptions = { keepAlive: true, keepAliveMsecs: 15_000, maxSockets: 256, maxFreeSockets: 32, timeout: 60_000 };
const agents = {
  plain: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
  guarded: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
};

/**
 * Sends one request with node:http(s) and resolves with the response once headers arrive. The
 * SSRF guard (when a policy is given) runs in the socket's DNS lookup; abort via `signal`
 * (an aborted request's socket is destroyed, never returned to the pool).
 */
export function sendRequest(req: OutgoingRequest): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (req.url.protocol !== 'http:' && req.url.protocol !== 'https:') {
      reject(new UpstreamError(0, `Unsupported URL scheme ${req.url.protocol}`));
      return;
    }
    if (req.policy) {
      try {
        checkLiteralHost(req.policy, req.url);
      } catch (e) {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes on checkLiteralHost's error unchanged
        reject(e);
        return;
      }
    }
    const secure = req.url.protocol === 'https:';
    const mod = secure ? https : http;
    const pool = req.policy ? agents.guarded : agents.plain;
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined) headers['content-length'] = String(Buffer.byteLength(req.body));
    const r = mod.request(req.url, {
      method: req.method,
      headers,
      signal: req.signal,
      lookup: req.policy ? guardedLookup(req.policy) : undefined,
      agent: secure ? pool.https : pool.http,
    });
    r.once('response', resolve);
    r.once('error', reject);
    r.end(req.body);
  });
}

/** Reads a (small) response body as text, up to `limit` bytes. */
export async function readBody(res: http.IncomingMessage, limit = 256 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) {
      chunks.push(b.subarray(0, Math.max(0, limit - (size - b.length))));
      res.destroy();
      break;
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}
