import type { presentSource } from './conversation.presenter';

export interface ChatTimings {
  /** Retrieval (documents or web search). */
  retrievalMs: number;
  /** From the request to the first `text` event; null when no text arrived. */
  firstTokenMs: number | null;
  totalMs: number;
  /** Part of retrievalMs spent waiting for the embeddings provider (the question's vector); absent when none was asked. */
  embeddingMs?: number;
  /** Part of retrievalMs spent waiting for the reranker; absent when none ran. */
  rerankMs?: number;
}

/**
 * The chat stream's events (spec "Events", DESIGN §3/§6), in order: `meta`, `sources`, `text`…,
 * then `done` or `error`; nothing follows either. Error messages: `LLM_API_ERROR` (the upstream
 * model failed, timed out or no provider could be resolved; `detail` says which),
 * `SEARCH_API_ERROR` (web search failed), `SERVER_SHUTTING_DOWN`, `INTERNAL_ERROR`, and
 * `unauthorized`/`forbidden` when access is lost mid-stream (DESIGN §9 "live access").
 */
export type ChatEvent =
  | { event: 'meta'; data: { conversationId: string; messageId: string; model: string } }
  | { event: 'sources'; data: { chunks: ReturnType<typeof presentSource>[] } }
  | { event: 'text'; data: { delta: string } }
  | { event: 'done'; data: { messageId: string; totalTokens: number; timings: ChatTimings } }
  | { event: 'error'; data: { type: 'error'; message: ChatErrorMessage; detail: string } };

export type ChatErrorMessage =
  | 'LLM_API_ERROR'
  | 'SEARCH_API_ERROR'
  | 'SERVER_SHUTTING_DOWN'
  | 'INTERNAL_ERROR'
  /** the caller was deactivated or deleted while the answer streamed (issue 25) */
  | 'unauthorized'
  /** the caller lost `use` on the project, or the project was deleted, while the answer streamed */
  | 'forbidden';

/** The last event of a chat stream whose caller lost access mid-answer (`unauthorized` or `forbidden`). */
export function chatAccessLost(loss: { code: string; message: string }): ChatEvent {
  return { event: 'error', data: { type: 'error', message: loss.code as ChatErrorMessage, detail: loss.message } };
}
