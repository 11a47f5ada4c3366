import type { ChatDoneEventDto, ChatErrorEventDto, ChatMetaEventDto, ChatSourcesEventDto, ChatTextEventDto } from './dto.generated';

/** The stage timings of a chat answer (the `done` event's `timings`). */
export type ChatTimings = ChatDoneEventDto['timings'];

/**
 * The chat stream's events (spec "Events", DESIGN §3/§6), in order: `meta`, `sources`, `text`…,
 * then `done` or `error`; nothing follows either. Error messages: `LLM_API_ERROR` (the upstream
 * model failed, timed out or no provider could be resolved; `detail` says which),
 * `SEARCH_API_ERROR` (web search failed), `SERVER_SHUTTING_DOWN`, `INTERNAL_ERROR`.
 */
export type ChatEvent =
  | { event: 'meta'; data: ChatMetaEventDto }
  | { event: 'sources'; data: ChatSourcesEventDto }
  | { event: 'text'; data: ChatTextEventDto }
  | { event: 'done'; data: ChatDoneEventDto }
  | { event: 'error'; data: ChatErrorEventDto };

export type ChatErrorMessage = ChatErrorEventDto['message'];
