import type { Citation, Message } from '../entities';
import type { ContextItem } from '../llm/prompt';
import type {
  CitationDto,
  ConversationDetailDto,
  ConversationSummaryDto,
  MessageDto,
  RecentConversationDto,
  SourceDto,
} from './dto.generated';
import { iso } from './time';
import { cutAtWord } from '../util/cut-at-word';

/** A row of a conversation list (the service computes the count in the same query). */
export interface ConversationRow {
  id: string;
  title: string;
  projectId: string;
  createdAt: Date;
  updatedAt: Date;
  messageCount: number;
}

export interface RecentConversationRow {
  id: string;
  title: string;
  projectId: string;
  updatedAt: Date;
  project: { id: string; name: string; color: string };
}

/** GET /chat/projects/:projectId/conversations entries. */
/** A conversation in the graph's lists: the REST summary and its project. */
export type GraphConversationSummaryDto = ConversationSummaryDto & { projectId: string };

export function presentConversationSummary(c: ConversationRow): ConversationSummaryDto {
  return {
    id: c.id,
    title: c.title,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
    messageCount: c.messageCount,
    _count: { messages: c.messageCount },
  };
}

/** GET /chat/recent entries. */
export function presentRecentConversation(c: RecentConversationRow): RecentConversationDto {
  return { id: c.id, title: c.title, projectId: c.projectId, project: c.project, updatedAt: iso(c.updatedAt) };
}

/**
 * A stored citation on the wire: `{index, chunkId, documentName, pageNumber}`, plus `documentId`
 * for document sources (a citation still opens its document's page once its chunk was re-analysed
 * away, and can tell that the document was deleted) and `url` for web sources.
 */
export function presentCitation(c: Citation): CitationDto {
  return {
    index: c.index,
    chunkId: c.chunkId,
    ...(c.documentId && !c.url ? { documentId: c.documentId } : {}),
    documentName: c.documentName,
    pageNumber: c.pageNumber,
    ...(c.url ? { url: c.url } : {}),
  };
}

export function presentMessage(m: Message): MessageDto {
  return {
    id: m.id,
    role: m.role,
    content: m.content,
    createdAt: iso(m.createdAt),
    citations: m.citations.map(presentCitation),
    // true when the upstream failed or the client left before the answer finished
    incomplete: m.incomplete,
  };
}

/** GET /chat/conversations/:id. */
export function presentConversationDetail(
  c: { id: string; title: string; projectId: string; createdAt: Date; updatedAt: Date },
  messages: Message[],
): ConversationDetailDto {
  return {
    id: c.id,
    title: c.title,
    projectId: c.projectId,
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
    messages: messages.map(presentMessage),
  };
}

const SNIPPET_CHARS = 400;

/** A short excerpt, cut at a word boundary past 60 % of its length. */
export function snippetOf(text: string): string {
  return cutAtWord(text, SNIPPET_CHARS, SNIPPET_CHARS * 0.6 + 1);
}

/** A `sources` entry: `{id, documentId, documentName, pageNumber, snippet}` (+ `url` for web results). */
export function presentSource(c: ContextItem): SourceDto {
  return {
    id: c.id,
    documentId: c.documentId,
    documentName: c.documentName,
    pageNumber: c.pageNumber,
    snippet: snippetOf(c.text),
    ...(c.url ? { url: c.url } : {}),
  };
}
