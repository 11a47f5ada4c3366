import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql';
import { NotFoundError } from '../errors';
import { isUuid } from '../validation';
import type { Actor } from './actor';
import { requireTier } from './read-rules';

/** What a resumable chat stream belongs to. */
export interface ChatStreamScope {
  messageId: string;
  projectId: string;
  conversationId: string;
}

const notFound = () => new NotFoundError('not_found', 'Chat stream not found');

/**
 * Resuming a chat stream (GET /chat/messages/:messageId/stream): only the caller who asked, and
 * only while they hold `use` on its project (else that project's 403, as a new question would get).
 * Anyone else, platform staff included, gets 404: a stream is its author's live answer, and ids do
 * not reveal that it exists. A stream forgotten after its retention is 404 too.
 */
export async function requireChatStream(em: EntityManager, actor: Actor, messageId: string): Promise<ChatStreamScope> {
  if (!isUuid(messageId)) throw notFound();
  const [row] = await query<{ user_id: string; project_id: string; conversation_id: string }>(
    em,
    `select user_id, project_id, conversation_id from chat_streams where id = ?`,
    [messageId],
  );
  if (!row || row.user_id !== actor.id) throw notFound();
  await requireTier(em, actor, row.project_id, 'use');
  return { messageId, projectId: row.project_id, conversationId: row.conversation_id };
}
