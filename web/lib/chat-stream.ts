/**
 * The chat stream over fetch (not EventSource): a POST with the bearer header, read as a
 * ReadableStream and parsed by eventsource-parser, and aborted through an AbortSignal. Each event
 * carries an id; when the connection drops before the answer's last event (a network blip), the
 * stream re-attaches by itself with `GET /chat/messages/:messageId/stream` and `Last-Event-ID`,
 * and goes on from the event after the last one it saw, so no part of the answer is lost.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { errorFrom, type Api } from './api';
import type { AskInput, ChatEvent } from './types';

/** A question (`replaces`: regenerate the conversation's last answer, which this one replaces). */
export type AskRequest = AskInput;

const EVENTS = new Set(['meta', 'sources', 'text', 'done', 'error']);
/** Re-attachments tried after a drop, each after a longer pause. */
const RESUME_ATTEMPTS = 5;
const RESUME_PAUSE_MS = 400;

/** Yields the stream's events in order; an HTTP error before the stream throws ApiError. */
export async function* askStream(api: Api, projectId: string, req: AskRequest, signal: AbortSignal): AsyncGenerator<ChatEvent> {
  const res = await api.fetch(`/chat/projects/${encodeURIComponent(projectId)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(req),
    signal,
  });
  if (!res.ok) throw await errorFrom(res);
  const state = { messageId: null as string | null, lastId: '', ended: false };
  try {
    yield* read(res, state);
  } catch (e) {
    if (signal.aborted || !state.messageId) throw e;
  }
  for (let attempt = 1; !state.ended && !signal.aborted && state.messageId; attempt++) {
    if (attempt > RESUME_ATTEMPTS) throw new Error('The connection to the server was lost; the answer is kept in the conversation');
    await new Promise((resolve) => setTimeout(resolve, RESUME_PAUSE_MS * attempt));
    try {
      const again = await api.fetch(`/chat/messages/${encodeURIComponent(state.messageId)}/stream`, {
        headers: { accept: 'text/event-stream', ...(state.lastId ? { 'last-event-id': state.lastId } : {}) },
        signal,
      });
      if (!again.ok) throw await errorFrom(again);
      const before = state.lastId;
      yield* read(again, state);
      if (state.lastId !== before) attempt = 0; // progress: the next drop starts its count again
    } catch (e) {
      if (signal.aborted) throw e;
    }
  }
}

/** One response's events; remembers the answer's id, the last event id, and whether the answer ended. */
async function* read(res: Response, state: { messageId: string | null; lastId: string; ended: boolean }): AsyncGenerator<ChatEvent> {
  if (!res.body) throw new Error('The server sent no answer stream');
  const reader = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      if (value.id) state.lastId = value.id;
      if (!value.event || !EVENTS.has(value.event)) continue;
      const event = { event: value.event, data: JSON.parse(value.data) as unknown } as ChatEvent;
      if (event.event === 'meta') state.messageId = event.data.messageId;
      if (event.event === 'done' || event.event === 'error') state.ended = true;
      yield event;
    }
  } finally {
    reader.releaseLock();
  }
}
