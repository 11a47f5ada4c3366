import type { Actor } from '../access/actor';
import { gates } from '../access/gates';
import { requireTier } from '../access/read-rules';
import { requireAnswerMessage, requireConversationAuthor } from '../access/write-rules';
import type { FeedbackRating } from '../entities/base';
import { NotFoundError } from '../errors';
import type { FeedbackRow } from '../presenters/feedback.presenter';
import { isUuid } from '../validation';
import type { FeedbackInput, FeedbackListQuery } from './chat.inputs';
import { BaseService, ServiceContext } from '../db/service-context';
import type { ConversationsService } from './conversations.service';
import { query } from '../db/sql';
export type { FeedbackRow };

/** How much of the answer the admin's list shows beside each piece of feedback. */
const ANSWER_EXCERPT = 400;

interface FeedbackSqlRow {
  id: string;
  message_id: string;
  conversation_id: string;
  project_id: string;
  rating: FeedbackRating;
  comment: string | null;
  created_at: Date;
  updated_at: Date;
  user_id: string | null;
  user_name: string | null;
  user_email: string | null;
  answer: string;
}

const SELECT = `select f.id, f.message_id, m.conversation_id, f.project_id, f.rating, f.comment, f.created_at, f.updated_at,
                       u.id as user_id, u.name as user_name, u.email as user_email, left(m.content, ${ANSWER_EXCERPT}) as answer
                  from message_feedback f
                  join messages m on m.id = f.message_id
                  left join users u on u.id = f.user_id`;

const toRow = (r: FeedbackSqlRow): FeedbackRow => ({
  id: r.id,
  messageId: r.message_id,
  conversationId: r.conversation_id,
  projectId: r.project_id,
  rating: r.rating,
  comment: r.comment,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  user: r.user_id ? { id: r.user_id, name: r.user_name!, email: r.user_email! } : null,
  answer: r.answer,
});

/** Thumbs up or down on answers (DESIGN §10 "feedback"), and the admins' list of it per project. */
export class FeedbackService extends BaseService {
  constructor(
    ctx: ServiceContext,
    private readonly conversations: ConversationsService,
  ) {
    super(ctx);
  }

  /**
   * POST /chat/messages/:messageId/feedback: the conversation's author rates one of its answers; giving
   * it again replaces the rating and comment. Someone who cannot read the conversation gets its 404.
   */
  async give(actor: Actor, messageId: string, input: FeedbackInput): Promise<FeedbackRow> {
    const notFound = new NotFoundError('not_found', 'Message not found');
    if (!isUuid(messageId)) throw notFound;
    const em = this.em();
    const found: Array<{ conversation_id: string; role: string }> = await query(
      em,
      `select conversation_id, role from messages where id = ?`,
      [messageId],
    );
    if (!found.length) throw notFound;
    const { conversation } = await this.conversations.get(actor, found[0].conversation_id);
    requireConversationAuthor(actor, { userId: conversation.user?.id ?? null });
    requireAnswerMessage(found[0]);
    return em.transactional(async (tx) => {
      await query(
        tx,
        `insert into message_feedback (id, message_id, project_id, user_id, rating, comment)
         values (gen_random_uuid(), ?, ?, ?, ?, ?)
         on conflict (message_id, user_id)
         do update set rating = excluded.rating, comment = excluded.comment, updated_at = now()`,
        [messageId, conversation.projectId, actor.id, input.rating, input.comment?.trim() || null],
      );
      const rows: FeedbackSqlRow[] = await query(tx, `${SELECT} where f.message_id = ? and f.user_id = ?`, [messageId, actor.id]);
      return toRow(rows[0]);
    });
  }

  /** GET /chat/conversations/:id/feedback: the caller's own feedback on the answers of a conversation they can read. */
  async mine(actor: Actor, conversationId: string): Promise<FeedbackRow[]> {
    await this.conversations.get(actor, conversationId);
    const rows: FeedbackSqlRow[] = await query(
      this.em(),
      `${SELECT} where m.conversation_id = ? and f.user_id = ? order by m.created_at, f.id`,
      [conversationId, actor.id],
    );
    return rows.map(toRow);
  }

  /** GET /projects/:projectId/feedback: for admins and the superadmin (quality work), newest first, with the total. */
  async list(actor: Actor, projectId: string, q: FeedbackListQuery): Promise<{ feedback: FeedbackRow[]; total: number }> {
    gates.requirePlatformAdmin(actor);
    const em = this.em();
    await requireTier(em, actor, projectId, 'use'); // the project's 404
    const rating = q.rating ?? null;
    const rows: FeedbackSqlRow[] = await query(
      em,
      `${SELECT} where f.project_id = ? and (?::text is null or f.rating = ?) order by f.created_at desc, f.id desc limit ? offset ?`,
      [projectId, rating, rating, q.limit ?? 50, q.offset ?? 0],
    );
    const total: Array<{ n: number }> = await query(
      em,
      `select count(*)::int as n from message_feedback f where f.project_id = ? and (?::text is null or f.rating = ?)`,
      [projectId, rating, rating],
    );
    return { feedback: rows.map(toRow), total: total[0].n };
  }
}
