import { createParser, EventSourceMessage } from 'eventsource-parser';
import type http from 'node:http';
import type { NetworkPolicy } from './network-guard';
import { CallControl, jsonHeaders, seconds } from './upstream-call';
import { describeHttpError, readBody, UpstreamError } from './upstream-http';

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

export function completionsUrl(baseUrl: string): URL {
  return new URL(`${baseUrl.replace(/\/+$/, '')}/chat/completions`);
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
  const ctl = new CallControl(opts.signal, {
    idleMs: opts.idleTimeoutMs,
    totalMs: opts.totalTimeoutMs,
    timeoutMessage: `The answer timed out after ${seconds(opts.totalTimeoutMs)}`,
  });
  let res: http.IncomingMessage | undefined;
  let finished = false;
  try {
    const payload = {
      model: target.model,
      messages: body.messages,
      stream: true,
      stream_options: { include_usage: true },
      ...(body.temperature !== undefined ? { temperature: body.temperature } : {}),
      ...(body.maxTokens !== undefined ? { max_tokens: body.maxTokens } : {}),
    };
    res = await ctl.post(url, jsonHeaders(target.apiKey, 'text/event-stream'), payload, target.policy);
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
  const ctl = new CallControl(opts.signal, {
    totalMs: opts.timeoutMs,
    timeoutMessage: `The request timed out after ${seconds(opts.timeoutMs)}`,
  });
  let res: http.IncomingMessage | undefined;
  try {
    const payload = {
      model: target.model,
      messages: body.messages,
      stream: false,
      ...(body.maxTokens !== undefined ? { max_tokens: body.maxTokens } : {}),
    };
    res = await ctl.post(url, jsonHeaders(target.apiKey), payload, target.policy);
    const status = res.statusCode ?? 0;
    const text = await ctl.read(res, url, undefined, status);
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
