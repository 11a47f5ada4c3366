import { createParser, EventSourceMessage } from 'eventsource-parser';
import type http from 'node:http';
import type { NetworkPolicy } from './network-guard';
import { describeHttpError, describeNetworkError, readBody, sendRequest, UpstreamAbortedError, UpstreamError } from './upstream-http';

/**
 * OpenAI-compatible chat completions: the streaming call the chat pipeline uses and the small
 * non-streaming call the provider test uses. Errors are UpstreamError (with a sentence naming the
 * cause) or UpstreamAbortedError when the caller's signal ended the call.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface UpstreamTarget {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** SSRF guard for user-supplied base URLs; omitted for operator-configured ones (LLM_BASE_URL). */
  policy?: NetworkPolicy;
}

export type StreamPart = { type: 'delta'; text: string } | { type: 'usage'; totalTokens: number };

export interface StreamOptions {
  signal?: AbortSignal;
  /** Longest wait for the response headers or between two pieces of the body. */
  idleTimeoutMs: number;
  /** Longest the whole answer may take. */
  totalTimeoutMs: number;
}

const seconds = (ms: number) => (ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`);

export function completionsUrl(baseUrl: string): URL {
  return new URL(`${baseUrl.replace(/\/+$/, '')}/chat/completions`);
}

function headersFor(target: UpstreamTarget, accept: string): Record<string, string> {
  const h: Record<string, string> = { 'content-type': 'application/json', accept };
  if (target.apiKey) h.authorization = `Bearer ${target.apiKey}`;
  return h;
}

/**
 * Owns an AbortController fed by the caller's signal and by time-outs, and remembers which one
 * fired so the error can say it.
 */
class CallControl {
  readonly controller = new AbortController();
  private idle?: NodeJS.Timeout;
  private total?: NodeJS.Timeout;
  private readonly onCallerAbort = () => this.controller.abort(new UpstreamAbortedError(this.caller?.reason));

  constructor(
    private readonly caller: AbortSignal | undefined,
    private readonly idleMs: number | null,
    totalMs: number,
    totalWhat: string,
  ) {
    if (caller?.aborted) this.onCallerAbort();
    caller?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.total = setTimeout(() => this.controller.abort(new UpstreamError(0, `${totalWhat} timed out after ${seconds(totalMs)}`)), totalMs);
    this.touch();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Restarts the idle timer (called whenever bytes arrive). */
  touch(): void {
    if (this.idleMs === null) return;
    if (this.idle) clearTimeout(this.idle);
    const ms = this.idleMs;
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
    return new UpstreamError(status, describeNetworkError(e, url));
  }

  dispose(): void {
    if (this.idle) clearTimeout(this.idle);
    if (this.total) clearTimeout(this.total);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}

interface CompletionChunk {
  choices?: Array<{ delta?: { content?: string | null }; message?: { content?: string | null }; finish_reason?: string | null }>;
  usage?: { total_tokens?: number } | null;
  error?: unknown;
}

/**
 * Streams `POST {baseUrl}/chat/completions` with `stream: true` (usage requested through
 * `stream_options.include_usage`), yielding text deltas in order and the usage when given.
 * Breaking out of the loop or aborting `signal` closes the upstream connection.
 */
export async function* streamChatCompletion(
  target: UpstreamTarget,
  body: { messages: ChatMessage[]; temperature?: number; maxTokens?: number },
  opts: StreamOptions,
): AsyncGenerator<StreamPart, void, undefined> {
  const url = completionsUrl(target.baseUrl);
  const ctl = new CallControl(opts.signal, opts.idleTimeoutMs, opts.totalTimeoutMs, 'The answer');
  let res: http.IncomingMessage | undefined;
  let finished = false;
  try {
    try {
      res = await sendRequest({
        url,
        method: 'POST',
        headers: headersFor(target, 'text/event-stream'),
        body: JSON.stringify({
          model: target.model,
          messages: body.messages,
          stream: true,
          stream_options: { include_usage: true },
          ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
          ...(body.maxTokens !== undefined ? { max_tokens: body.maxTokens } : {}),
        }),
        signal: ctl.signal,
        policy: target.policy,
      });
    } catch (e) {
      throw ctl.explain(e, url);
    }
    ctl.touch();
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      let text = '';
      try {
        text = await readBody(res, 64 * 1024);
      } catch {
        /* the status says enough */
      }
      throw describeHttpError(status, text, { model: target.model, keyGiven: !!target.apiKey });
    }

    // a server that ignores `stream: true` answers one JSON completion; take it whole
    if (/application\/json/i.test(String(res.headers['content-type'] ?? ''))) {
      const json = parseJson(await readBody(res), status);
      const text = json.choices?.[0]?.message?.content ?? '';
      if (text) yield { type: 'delta', text };
      if (typeof json.usage?.total_tokens === 'number') yield { type: 'usage', totalTokens: json.usage.total_tokens };
      finished = true;
      return;
    }

    const pending: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (ev) => pending.push(ev) });
    const decoder = new TextDecoder();
    let sawFinish = false;
    try {
      for await (const chunk of res) {
        ctl.touch();
        parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
        while (pending.length) {
          const ev = pending.shift()!;
          if (ev.data.trim() === '[DONE]') {
            finished = true;
            return;
          }
          const json = parseJson(ev.data, status);
          if (json.error !== undefined) {
            throw describeHttpError(status, JSON.stringify({ error: json.error }), { model: target.model });
          }
          const choice = json.choices?.[0];
          const text = choice?.delta?.content;
          if (typeof text === 'string' && text.length) yield { type: 'delta', text };
          if (choice?.finish_reason) sawFinish = true;
          if (typeof json.usage?.total_tokens === 'number') yield { type: 'usage', totalTokens: json.usage.total_tokens };
        }
      }
    } catch (e) {
      throw ctl.explain(e, url, status);
    }
    if (ctl.signal.aborted) throw ctl.explain(null, url, status);
    // a clean end without [DONE] is accepted only when the model said it had finished
    if (!sawFinish) throw new UpstreamError(status, 'The upstream ended the stream before the answer was complete');
    finished = true;
  } finally {
    ctl.dispose();
    // closing the socket is how the upstream learns we stopped listening
    if (res && !finished) res.destroy();
  }
}

function parseJson(text: string, status: number): CompletionChunk {
  try {
    return JSON.parse(text) as CompletionChunk;
  } catch {
    throw new UpstreamError(status, `The upstream sent data that is not JSON: ${text.slice(0, 200)}`);
  }
}

export interface CompletionResult {
  status: number;
  text: string;
}

/** One small non-streaming completion (the provider test); throws UpstreamError with the HTTP status when there is one. */
export async function completeOnce(
  target: UpstreamTarget,
  body: { messages: ChatMessage[]; maxTokens?: number },
  opts: { signal?: AbortSignal; timeoutMs: number },
): Promise<CompletionResult> {
  const url = completionsUrl(target.baseUrl);
  const ctl = new CallControl(opts.signal, null, opts.timeoutMs, 'The request');
  let res: http.IncomingMessage | undefined;
  try {
    try {
      res = await sendRequest({
        url,
        method: 'POST',
        headers: headersFor(target, 'application/json'),
        body: JSON.stringify({
          model: target.model,
          messages: body.messages,
          stream: false,
          ...(body.maxTokens !== undefined ? { max_tokens: body.maxTokens } : {}),
        }),
        signal: ctl.signal,
        policy: target.policy,
      });
    } catch (e) {
      throw ctl.explain(e, url);
    }
    const status = res.statusCode ?? 0;
    let text: string;
    try {
      text = await readBody(res);
    } catch (e) {
      throw ctl.explain(e, url, status);
    }
    if (status < 200 || status >= 300) throw describeHttpError(status, text, { model: target.model, keyGiven: !!target.apiKey });
    const json = parseJson(text, status);
    const content = json.choices?.[0]?.message?.content;
    if (typeof content !== 'string')
      throw new UpstreamError(status, 'The upstream answered without choices[0].message.content; is this an OpenAI-compatible endpoint?');
    return { status, text: content };
  } finally {
    ctl.dispose();
    res?.destroy();
  }
}
