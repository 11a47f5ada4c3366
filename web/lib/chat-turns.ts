/** The conversation as the Ask screen shows it, and how stream events change it. */
import type { Citation, ChatEvent, Message, Source } from './types';

export interface Turn {
  key: string;
  role: 'user' | 'assistant';
  content: string;
  sources: Source[];
  citations: Citation[];
  state: 'streaming' | 'done' | 'stopped' | 'error';
  error?: string;
  /** The stored message's id (an answer's, from the stream's `meta`), for feedback. */
  messageId?: string;
  /** The stream's `sources` carried no passage: nothing in the project's documents matched. */
  noPassage?: boolean;
}

/** What a citation marker points at. */
export interface CitationTarget {
  n: number;
  chunkId: string;
  /** The cited document (absent for web results and for citations stored before it was kept). */
  documentId?: string;
  documentName: string;
  pageNumber: number;
  url?: string;
  /** The passage as the stream's `sources` gave it (web results have no chunk to look up). */
  snippet?: string;
}

export function turnsFrom(messages: Message[]): Turn[] {
  return messages.map((m) => ({
    key: m.id,
    messageId: m.id,
    role: m.role,
    content: m.content,
    sources: [],
    citations: m.citations ?? [],
    state: 'done',
  }));
}

export function citationTarget(turn: Turn, n: number): CitationTarget | null {
  const s = turn.sources[n - 1];
  if (s)
    return {
      n,
      chunkId: s.id,
      documentId: s.url ? undefined : s.documentId,
      documentName: s.documentName,
      pageNumber: s.pageNumber,
      url: s.url,
      snippet: s.snippet,
    };
  const c = turn.citations.find((x) => x.index === n);
  return c ? { n, chunkId: c.chunkId, documentId: c.documentId, documentName: c.documentName, pageNumber: c.pageNumber, url: c.url } : null;
}

/** A stream `error` event in words a person can act on. */
export function describeStreamError(message: string, detail?: string): string {
  const extra = detail ? ` (${detail})` : '';
  switch (message) {
    case 'LLM_API_ERROR':
      return `The language model could not answer${extra}. An engineer can check the provider under Language models.`;
    case 'SEARCH_API_ERROR':
      return `The web search failed${extra}.`;
    default:
      return `The answer failed: ${message}${extra}.`;
  }
}

/** Applies one stream event to the answer being streamed (the last turn). */
export function applyEvent(turn: Turn, e: ChatEvent): Turn {
  switch (e.event) {
    case 'meta':
      return { ...turn, messageId: e.data.messageId };
    case 'sources':
      return { ...turn, sources: e.data.chunks, noPassage: e.data.chunks.length === 0 };
    case 'text':
      return { ...turn, content: turn.content + e.data.delta };
    case 'done':
      return { ...turn, state: 'done' };
    case 'error':
      return { ...turn, state: 'error', error: describeStreamError(e.data.message, e.data.detail) };
  }
}
