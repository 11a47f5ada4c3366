import type { ChatDoneEventDto, ChatErrorEventDto, ChatMetaEventDto, ChatSourcesEventDto, ChatTextEventDto } from './dto.generated';

/** The stage timings of a chat answer (the `done` event's `timings`). */
export type ChatTimings = ChatDoneEventDto['timings'];

/**
 * The chat stream's events (spec "Events", DESIGN §3/§6), in order: `meta`, `sources`, `text`…,
 * then `done` or `error`; nothing follows either. Error messages: `LLM_API_ERROR` (the upstream
 * model failed, timed out or no provider could be resolved; `detail` says which),
 * `SEARCH_API_ERROR` (web search failed), `SERVER_SHUTTING_DOWN`, `INTERNAL_ERROR`, and
 * `unauthorized`/`forbidden` when access is lost mid-stream (DESIGN §9 "live access").
 */
export type ChatEvent =
  | { event: 'meta'; data: ChatMetaEventDto }
  | { event: 'sources'; data: ChatSourcesEventDto }
  | { event: 'text'; data: ChatTextEventDto }
  | { event: 'done'; data: ChatDoneEventDto }
  | { event: 'error'; data: ChatErrorEventDto };

export type ChatErrorMessage = ChatErrorEventDto['message'];

/** An event as the graph's ChatEvent union carries it: its data and its name in one object. */
export type ChatEventPayload = { [E in ChatEvent as E['event']]: E['data'] & { event: E['event'] } }[ChatEvent['event']];

export function presentChatEvent(e: ChatEvent): ChatEventPayload {
  // TypeScript does not correlate the union's members across the spread; each member maps to its own
  return { event: e.event, ...e.data } as ChatEventPayload;
}

/** The last event of a chat stream whose caller lost access mid-answer (`unauthorized` or `forbidden`). */
export function chatAccessLost(loss: { code: string; message: string }): ChatEvent {
  return { event: 'error', data: { type: 'error', message: loss.code as ChatErrorMessage, detail: loss.message } };
}
