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
 * Who may resume a chat stream, before its project is checked: only the caller who asked (through a
 * key of theirs too; the project rule then caps it). Anyone else, platform staff included, gets
 * 404: a stream is its author's live answer, and ids do not reveal that it exists. A malformed id,
 * or a stream forgotten after its retention (`stream` undefined), is 404 too.
 */
export function requireStreamAuthor(actor: Pick<Actor, 'id'>, messageId: string, stream: { userId: string } | undefined): void {
  if (!isUuid(messageId) || !stream || stream.userId !== actor.id) throw notFound();
}

/**
 * Resuming a chat stream (GET /chat/messages/:messageId/stream): `requireStreamAuthor`, then `use`
 * on its project (else that project's 403, as a new question would get).
 */
export async function requireChatStream(em: EntityManager, actor: Actor, messageId: string): Promise<ChatStreamScope> {
  // a malformed id is refused before anything is read
  if (!isUuid(messageId)) throw notFound();
  const [row] = await query<{ user_id: string; project_id: string; conversation_id: string }>(
    em,
    `select user_id, project_id, conversation_id from chat_streams where id = ?`,
    [messageId],
  );
  requireStreamAuthor(actor, messageId, row && { userId: row.user_id });
  await requireTier(em, actor, row.project_id, 'use');
  return { messageId, projectId: row.project_id, conversationId: row.conversation_id };
}
