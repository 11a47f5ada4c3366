import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../access/actor';
import { accessibleProjectsCte } from '../access/project-access.sql';
import { checkConversationAccess, checkProjectAccess, conversationProjectsToCheck } from '../access/read-rules';
import { requireConversationAuthor } from '../access/write-rules';
import { Conversation, Message } from '../entities';
import { NotFoundError } from '../errors';
import type { ConversationRow, RecentConversationRow } from '../presenters/conversation.presenter';
import { isUuid } from '../validation';
import type { RenameConversationInput } from './chat.inputs';
import { Batch, groupBy, one, splitVerdicts } from './batch';
import { BaseService } from '../db/service-context';
import { query } from '../db/sql';
import { listPerProject } from './project-batch';

export interface ConversationRead {
  conversation: Conversation & { projectId: string };
  messages: Message[];
}

export interface ConversationPage {
  limit?: number;
  offset?: number;
  /** Words matched (case-insensitive) in the title or any message's text. */
  search?: string;
}

/** A LIKE pattern that matches `text` literally anywhere. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const notFound = () => new NotFoundError('not_found', 'Conversation not found');

/** Conversation reads (the chat pipeline writes them): one read per question, shared by REST and GraphQL. */
export class ConversationsService extends BaseService {
  /**
   * GET /chat/conversations/:id: the author, while they still hold `use` on the project; platform
   * staff (admin, superadmin) may read any. Someone else's conversation is a 404, not a 403, so
   * ids do not reveal that a conversation exists.
   */
  async get(actor: Actor, id: string): Promise<ConversationRead> {
    return one(await this.getMany(actor, [id]), id, notFound);
  }

  /** Conversations with their messages, oldest first, under `checkConversationAccess`: the one read of conversations. */
  async getMany(actor: Actor, ids: readonly string[]): Promise<Batch<ConversationRead>> {
    const em = this.em();
    const valid = ids.filter(isUuid);
    const found = valid.length ? await em.find(Conversation, { id: { $in: valid } }) : [];
    const facts = found.map((c) => ({ id: c.id, userId: c.user?.id ?? null, projectId: c.project.id }));
    const toCheck = conversationProjectsToCheck(actor, facts);
    const out: Batch<ConversationRead> = new Map(ids.map((id) => [id, notFound()]));
    const readable = new Set(
      splitVerdicts(
        checkConversationAccess(
          actor,
          facts,
          toCheck.length ? await checkProjectAccess(em, actor, toCheck, 'use') : new Map<string, never>(),
        ),
        out,
      ),
    );
    const conversations = found.filter((c) => readable.has(c.id));
    const messages = conversations.length
      ? await em.find(Message, { conversation: { $in: conversations.map((c) => c.id) } }, { orderBy: { createdAt: 'asc', id: 'asc' } })
      : [];
    const byConversation = groupBy(
      conversations.map((c) => c.id),
      messages,
      (m) => m.conversation.id,
    );
    for (const c of conversations)
      out.set(c.id, { conversation: Object.assign(c, { projectId: c.project.id }), messages: byConversation.get(c.id)! });
    return out;
  }

  /** GET /chat/projects/:projectId/conversations: the caller's own conversations in the project (`use`), newest first. */
  async list(actor: Actor, projectId: string, page: ConversationPage = {}): Promise<ConversationRow[]> {
    return one(await this.listByProjects(actor, [projectId], page), projectId);
  }

  /** The caller's own conversations in each project (`use` on each), newest first, `page` applied per project, in two queries. */
  async listByProjects(actor: Actor, projectIds: readonly string[], page: ConversationPage = {}): Promise<Batch<ConversationRow[]>> {
    const em = this.em();
    return listPerProject(
      em,
      actor,
      projectIds,
      (allowed) => this.ownConversations(em, actor, allowed, page),
      (r) => r.projectId,
    );
  }

  /** The caller's own conversations in the `allowed` projects, newest first, `page` applied per project. */
  private async ownConversations(em: EntityManager, actor: Actor, allowed: string[], page: ConversationPage): Promise<ConversationRow[]> {
    const offset = page.offset ?? 0;
    const search = page.search?.trim() ? containing(page.search.trim()) : undefined;
    const rows: Array<{ id: string; title: string; project_id: string; created_at: Date; updated_at: Date; message_count: number }> =
      await query(
        em,
        `select * from (
         select c.id, c.title, c.project_id, c.created_at, c.updated_at,
                (select count(*) from messages m where m.conversation_id = c.id)::int as message_count,
                row_number() over (partition by c.project_id order by c.updated_at desc, c.id desc) as n
           from conversations c
          where c.project_id = any(array[?]::uuid[]) and c.user_id = ?
            and (?::text is null
                 or c.title ilike ?
                 or exists (select 1 from messages m where m.conversation_id = c.id and m.content ilike ?))
       ) r
       where r.n > ? and r.n <= ?
       order by r.updated_at desc, r.id desc`,
        [allowed, actor.id, search ?? null, search ?? '', search ?? '', offset, offset + (page.limit ?? 100)],
      );
    return rows.map((r) => ({
      id: r.id,
      title: r.title,
      projectId: r.project_id,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      messageCount: r.message_count,
    }));
  }

  /** PATCH /chat/conversations/:id: a new title, by the conversation's author (others: the read's 404, or 403 for staff). */
  async rename(actor: Actor, id: string, input: RenameConversationInput): Promise<ConversationRead> {
    const read = await this.get(actor, id);
    requireConversationAuthor(actor, { userId: read.conversation.user?.id ?? null });
    await this.em().transactional(async (em) => {
      await em.nativeUpdate(Conversation, { id }, { title: input.title });
    });
    read.conversation.title = input.title;
    return read;
  }

  /** DELETE /chat/conversations/:id: the conversation and its messages (and their feedback), by its author. */
  async delete(actor: Actor, id: string): Promise<{ id: string }> {
    const read = await this.get(actor, id);
    requireConversationAuthor(actor, { userId: read.conversation.user?.id ?? null });
    await this.em().transactional(async (em) => {
      await em.nativeDelete(Conversation, { id });
    });
    return { id };
  }

  /** GET /chat/recent: the caller's conversations across the projects they can still use, newest first. */
  async recent(actor: Actor, page: ConversationPage = {}): Promise<RecentConversationRow[]> {
    const access = accessibleProjectsCte(actor);
    // only projects the caller can still use (every tier the rule gives includes `use`)
    const rows: Array<{ id: string; title: string; project_id: string; updated_at: Date; name: string; color: string }> = await query(
      this.em(),
      `with acc as (${access.sql})
       select c.id, c.title, c.project_id, c.updated_at, p.name, p.color
         from conversations c
         join acc on acc.project_id = c.project_id
         join projects p on p.id = c.project_id
        where c.user_id = ?
        order by c.updated_at desc, c.id desc
        limit ? offset ?`,
      [...access.params, actor.id, page.limit ?? 20, page.offset ?? 0],
    );
    return rows.map((r) => ({
      id: r.id,
      title: r.title,
      projectId: r.project_id,
      updatedAt: r.updated_at,
      project: { id: r.project_id, name: r.name, color: r.color },
    }));
  }
}
