import type http from 'node:http';
import type { NetworkPolicy } from './network-guard';
import { describeNetworkError, readBody, sendRequest, UpstreamAbortedError, UpstreamError } from './upstream-http';

/**
 * One call to an upstream (chat completions, embeddings, reranking, web search): the time-outs and
 * the caller's abort as one signal, and the request and answer body read under it, so every client
 * words a time-out, an abort and a network failure alike.
 */

export const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);

export interface CallLimits {
  /** Longest wait for the response headers or between two pieces of the body; none when omitted. */
  idleMs?: number;
  /** Longest the whole call may take. */
  totalMs: number;
  /** What the error says when `totalMs` runs out. */
  timeoutMessage: string;
  /** Put before a described network failure (e.g. `Web search failed: `). */
  networkPrefix?: string;
}

/**
 * Owns an AbortController fed by the caller's signal and by time-outs, and remembers which one
 * fired so the error can say it.
 */
export class CallControl {
  readonly controller = new AbortController();
  private idle?: NodeJS.Timeout;
  private total?: NodeJS.Timeout;
  private readonly onCallerAbort = () => this.controller.abort(new UpstreamAbortedError(this.caller?.reason));

  constructor(
    private readonly caller: AbortSignal | undefined,
    private readonly limits: CallLimits,
  ) {
    if (caller?.aborted) this.onCallerAbort();
    caller?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.total = setTimeout(() => this.controller.abort(new UpstreamError(0, limits.timeoutMessage)), limits.totalMs);
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Restarts the idle timer (called whenever bytes arrive). */
  touch(): void {
    const ms = this.limits.idleMs;
    if (ms === undefined) return;
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(
      () => this.controller.abort(new UpstreamError(0, `Timed out: the upstream sent nothing for ${seconds(ms)}`)),
      ms,
    );
  }

  /** The error to throw for a failure: the abort reason when we aborted, else a described network error. */
  explain(e: unknown, url: URL, status = 0): Error {
    if (this.signal.aborted) {
      const reason: unknown = this.signal.reason;
      if (reason instanceof UpstreamError || reason instanceof UpstreamAbortedError) return reason;
    }
    if (e instanceof UpstreamError) return e;
    return new UpstreamError(status, `${this.limits.networkPrefix ?? ''}${describeNetworkError(e, url)}`);
  }

  /** Sends a JSON body; a failure before the response arrives is explained (status 0). */
  async post(
    url: URL,
    headers: Record<string, string>,
    payload: unknown,
    policy: NetworkPolicy | undefined,
  ): Promise<http.IncomingMessage> {
    try {
      return await sendRequest({ url, method: 'POST', headers, body: JSON.stringify(payload), signal: this.signal, policy });
    } catch (e) {
      throw this.explain(e, url);
    }
  }

  /** Reads a response body up to `limit` bytes; a failure is explained with `status`. */
  async read(res: http.IncomingMessage, url: URL, limit?: number, status = 0): Promise<string> {
    try {
      return await readBody(res, limit);
    } catch (e) {
      throw this.explain(e, url, status);
    }
  }

  dispose(): void {
    if (this.idle) clearTimeout(this.idle);
    if (this.total) clearTimeout(this.total);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}

/** Headers of a JSON request to an OpenAI-compatible upstream; the key as a bearer token when there is one. */
export function jsonHeaders(apiKey: string, accept = 'application/json'): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', accept };
  if (apiKey) h.authorization = `Bearer ${apiKey}`;
  return h;
}
