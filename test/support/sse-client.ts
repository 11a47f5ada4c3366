import { createParser } from 'eventsource-parser';
import { checkResponse } from './openapi-validator';

/** A Server-Sent Events client for tests: POSTs JSON, parses the stream with eventsource-parser. */
export interface SseEventRecord {
  event: string;
  data: any;
  /** The SSE `id` line, when the event carried one. */
  id?: string;
  /** ms since the request was sent. */
  at: number;
}

export interface SseResult {
  status: number;
  headers: Headers;
  /** The JSON body when the server answered without a stream (e.g. 403). */
  body?: any;
  events: SseEventRecord[];
  comments: string[];
  /** True when the client stopped reading early (see `stopWhen`). */
  aborted: boolean;
}

type SseOptions = {
  token?: string;
  headers?: Record<string, string>;
  stopWhen?: (e: SseEventRecord, all: SseEventRecord[]) => boolean;
};

export async function postSse(baseUrl: string, path: string, opts: SseOptions & { body?: unknown } = {}): Promise<SseResult> {
  return readSse('POST', baseUrl, path, opts);
}

/** GET a stream (e.g. resuming a chat answer with `Last-Event-ID` in `headers`). */
export async function getSse(baseUrl: string, path: string, opts: SseOptions = {}): Promise<SseResult> {
  return readSse('GET', baseUrl, path, opts);
}

async function readSse(method: 'GET' | 'POST', baseUrl: string, path: string, opts: SseOptions & { body?: unknown }): Promise<SseResult> {
  const ctl = new AbortController();
  const started = performance.now();
  const headers: Record<string, string> = { accept: 'text/event-stream', ...opts.headers };
  if (method === 'POST') headers['content-type'] = 'application/json';
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(baseUrl + path, {
    method,
    headers,
    ...(method === 'POST' ? { body: JSON.stringify(opts.body ?? {}) } : {}),
    signal: ctl.signal,
  });
  const result: SseResult = { status: res.status, headers: res.headers, events: [], comments: [], aborted: false };
  if (!/^text\/event-stream/.test(res.headers.get('content-type') ?? '')) {
    const text = await res.text();
    try {
      result.body = text ? JSON.parse(text) : undefined;
    } catch {
      result.body = text;
    }
    await checkResponse(method, path, res.status, res.headers.get('content-type'), result.body);
    return result;
  }
  let stop = false;
  const parser = createParser({
    onEvent: (ev) => {
      if (stop) return;
      const rec: SseEventRecord = { event: ev.event ?? 'message', data: JSON.parse(ev.data), at: performance.now() - started };
      if (ev.id !== undefined) rec.id = ev.id;
      result.events.push(rec);
      if (opts.stopWhen?.(rec, result.events)) stop = true;
    },
    onComment: (c) => result.comments.push(c.trim()),
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      if (stop) {
        result.aborted = true;
        ctl.abort();
        break;
      }
    }
  } catch (e) {
    if (!result.aborted) throw e;
  }
  return result;
}

/** The concatenated `text` deltas of a stream. */
export const answerOf = (r: SseResult): string =>
  r.events
    .filter((e) => e.event === 'text')
    .map((e) => e.data.delta)
    .join('');
export const namesOf = (r: SseResult): string[] => r.events.map((e) => e.event);
