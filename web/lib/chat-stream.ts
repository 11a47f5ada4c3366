/**
 * The chat stream over fetch (not EventSource): a POST with the bearer header, read as a
 * ReadableStream and parsed by eventsource-parser, and aborted through an AbortSignal, which closes
 * the connection, and the server then drops its upstream call.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { errorFrom, type Api } from './api';
import type { ChatEvent } from './types';

export interface AskRequest {
  message: string;
  conversationId?: string;
  mode?: 'docs' | 'web' | 'deep';
  modelId?: string;
}

const EVENTS = new Set(['meta', 'sources', 'text', 'done', 'error']);

/** Yields the stream's events in order; an HTTP error before the stream throws ApiError. */
export async function* askStream(api: Api, projectId: string, req: AskRequest, signal: AbortSignal): AsyncGenerator<ChatEvent> {
  const res = await api.fetch(`/chat/projects/${encodeURIComponent(projectId)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(req),
    signal,
  });
  if (!res.ok) throw await errorFrom(res);
  if (!res.body) throw new Error('The server sent no answer stream');
  const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      if (!value.event || !EVENTS.has(value.event)) continue;
      yield { event: value.event, data: JSON.parse(value.data) as unknown } as ChatEvent;
    }
  } finally {
    reader.releaseLock();
  }
}
