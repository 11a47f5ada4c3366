import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../access/actor';
import { requireReplaceableAnswer, type ReplacedAnswer } from '../access/write-rules';
import { query } from '../db/sql';
import { Citation, Conversation, Message, Project, User } from '../entities';
import { ConflictError, NotFoundError } from '../errors';
import { citedIndexes, ContextItem, PriorTurn } from '../llm/prompt';
import type { AskInput, ChatMode } from './chat.inputs';
import { cutAtWord } from '../util/cut-at-word';

/** How a chat is stored: the conversation, the question with its history, and the answer. */
/** How many earlier messages are considered for the prompt's history (then trimmed to the token budget). */
const HISTORY_MESSAGES = 20;
const TITLE_CHARS = 60;

/** A conversation title from its first message: whitespace collapsed, about 60 characters, cut at a word past half of it. */
export function titleFrom(message: string): string {
  return cutAtWord(message, TITLE_CHARS, TITLE_CHARS / 2);
}

/** The answer a regenerate would replace, as `requireReplaceableAnswer` judges it; null when there is no such message. */
async function answerToReplace(em: EntityManager, messageId: string): Promise<ReplacedAnswer | null> {
  const [r] = await query<{ role: string; conversation_id: string; project_id: string; user_id: string | null; is_last: boolean }>(
    em,
    `select m.role, m.conversation_id, c.project_id, c.user_id,
            not exists (select 1 from messages l
                         where l.conversation_id = m.conversation_id and (l.created_at, l.id) > (m.created_at, m.id)) as is_last
       from messages m join conversations c on c.id = m.conversation_id
      where m.id = ?`,
    [messageId],
  );
  return r ? { role: r.role, conversationId: r.conversation_id, projectId: r.project_id, userId: r.user_id, isLast: r.is_last } : null;
}

/**
 * The conversation a question goes to, checked before anything streams: null for a new one; the
 * caller's own in this project; or, to regenerate (`replaces`), the replaced answer's.
 */
export async function conversationToAsk(em: EntityManager, actor: Actor, projectId: string, input: AskInput): Promise<string | null> {
  if (input.replaces)
    return requireReplaceableAnswer(actor, { projectId, conversationId: input.conversationId }, await answerToReplace(em, input.replaces));
  if (!input.conversationId) return null;
  const owned = await em.count(Conversation, { id: input.conversationId, project: projectId, user: actor.id });
  if (!owned) throw new NotFoundError('not_found', 'Conversation not found in this project');
  return input.conversationId;
}

/**
 * Before anything streams: the conversation the question goes to (conversationToAsk) and, for a
 * regenerate, the question stored there and then in place of the exchange it replaces, so of two
 * regenerates of one answer the second gets 409 `not_last_answer` instead of a stream that fails.
 */
export async function prepareQuestion(
  em: EntityManager,
  actor: Actor,
  projectId: string,
  input: AskInput & { mode: ChatMode },
): Promise<{ conversationId: string | null; stored: StoredQuestion | null }> {
  const conversationId = await conversationToAsk(em, actor, projectId, input);
  if (!input.replaces) return { conversationId, stored: null };
  const ask = { conversationId, message: input.message, mode: input.mode, replaces: input.replaces };
  return { conversationId, stored: await storeQuestion(em.fork(), actor, projectId, ask) };
}

/**
 * The replaced answer and the question right before it leave the conversation (their feedback
 * goes with them: it rated words nobody sees any more). Under the conversation's row lock, so
 * two regenerates of one answer cannot both replace it: the second finds it gone (409).
 */
async function removeExchange(tx: EntityManager, conversationId: string, answerId: string): Promise<void> {
  await query(tx, `select id from conversations where id = ? for update`, [conversationId]);
  const answer = await answerToReplace(tx, answerId);
  if (answer?.conversationId !== conversationId || !answer.isLast)
    throw new ConflictError('not_last_answer', 'Only the last answer of a conversation can be regenerated');
  await query(
    tx,
    `with a as (select id, conversation_id, created_at from messages where id = ?),
          q as (select m.id, m.role from messages m, a
                 where m.conversation_id = a.conversation_id and (m.created_at, m.id) < (a.created_at, a.id)
                 order by m.created_at desc, m.id desc limit 1)
     delete from messages where id = (select id from a) or id = (select id from q where role = 'user')`,
    [answerId],
  );
}

/** A stored question: its conversation, and the turns before it for the prompt. */
export interface StoredQuestion {
  id: string;
  history: PriorTurn[];
}

/**
 * Creates the conversation when needed and stores the question (in place of the exchange it
 * `replaces`, if any); returns the earlier turns for the prompt.
 */
export async function storeQuestion(
  em: EntityManager,
  actor: Actor,
  projectId: string,
  ask: { conversationId: string | null; message: string; mode: ChatMode; replaces?: string },
): Promise<StoredQuestion> {
  const { conversationId, message, mode } = ask;
  return em.transactional(async (tx) => {
    let conversation: Conversation;
    let history: PriorTurn[] = [];
    const now = new Date();
    if (conversationId) {
      if (ask.replaces) await removeExchange(tx, conversationId, ask.replaces);
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
