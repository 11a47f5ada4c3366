import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../access/actor';
import { Citation, Conversation, Message, Project, User } from '../entities';
import { citedIndexes, ContextItem, PriorTurn } from '../llm/prompt';
import type { ChatMode } from './chat.inputs';

/** How a chat is stored: the conversation, the question with its history, and the answer. */
/** How many earlier messages are considered for the prompt's history (then trimmed to the token budget). */
const HISTORY_MESSAGES = 20;
const TITLE_CHARS = 60;

/** A conversation title from its first message: whitespace collapsed, about 60 characters, cut at a word. */
export function titleFrom(message: string): string {
  const t = message.replace(/\s+/g, ' ').trim();
  if (t.length <= TITLE_CHARS) return t;
  const cut = t.slice(0, TITLE_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${(space >= TITLE_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** Creates the conversation when needed and stores the question; returns the earlier turns for the prompt. */
export async function storeQuestion(
  em: EntityManager,
  actor: Actor,
  projectId: string,
  conversationId: string | null,
  message: string,
  mode: ChatMode,
): Promise<{ id: string; history: PriorTurn[] }> {
  return em.transactional(async (tx) => {
    let conversation: Conversation;
    let history: PriorTurn[] = [];
    const now = new Date();
    if (conversationId) {
      conversation = await tx.findOneOrFail(Conversation, conversationId);
      const earlier = await tx.find(
        Message,
        { conversation: conversationId },
        { orderBy: { createdAt: 'desc', id: 'desc' }, limit: HISTORY_MESSAGES },
      );
      history = earlier.reverse().map((m) => ({ role: m.role, content: m.content }));
      conversation.updatedAt = now;
    } else {
      conversation = tx.create(Conversation, {
        project: tx.getReference(Project, projectId),
        user: tx.getReference(User, actor.id),
        title: titleFrom(message),
        createdAt: now,
        updatedAt: now,
      });
    }
    tx.create(Message, { conversation, user: tx.getReference(User, actor.id), role: 'user', content: message, mode, createdAt: now });
    await tx.flush();
    return { id: conversation.id, history };
  });
}

export async function storeAssistant(
  em: EntityManager,
  conversationId: string,
  id: string,
  a: { content: string; citations: Citation[]; incomplete: boolean; model: string; totalTokens: number; mode: ChatMode },
): Promise<void> {
  await em.transactional(async (tx) => {
    const now = new Date();
    tx.create(Message, {
      id,
      conversation: tx.getReference(Conversation, conversationId),
      role: 'assistant',
      content: a.content,
      citations: a.citations,
      incomplete: a.incomplete,
      model: a.model || null,
      totalTokens: a.incomplete ? null : a.totalTokens,
      mode: a.mode,
      createdAt: now,
    });
    await tx.nativeUpdate(Conversation, { id: conversationId }, { updatedAt: now });
    await tx.flush();
  });
}

/** The citations an answer really used: `[n]` markers mapped to the n-th source. */
export function citationsFor(answer: string, context: ContextItem[]): Citation[] {
  return citedIndexes(answer, context.length).map((n) => {
    const c = context[n - 1];
    return {
      index: n,
      chunkId: c.id,
      documentId: c.documentId,
      documentName: c.documentName,
      pageNumber: c.pageNumber,
      ...(c.url ? { url: c.url } : {}),
    };
  });
}
