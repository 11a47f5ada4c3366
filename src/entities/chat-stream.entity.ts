import { Entity, Index, ManyToOne, Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { DefaultNow } from './columns';
import { Conversation } from './conversation.entity';
import { Project } from './project.entity';
import { UserOwned } from './user.entity';

/**
 * One chat answer's stream (issue 38): whose it is and where, so any node can replay it to its
 * owner. Its id is the answer's message id (the `meta` event's `messageId`).
 */
@Entity({ tableName: 'chat_streams' })
@Index({ name: 'chat_streams_ended_idx', properties: ['endedAt'] })
export class ChatStream extends UserOwned {
  @PrimaryKey({ type: 'uuid' })
  id!: string;

  @ManyToOne(() => Project, { deleteRule: 'cascade', index: true })
  project!: Project;

  @ManyToOne(() => Conversation, { deleteRule: 'cascade', index: true })
  conversation!: Conversation;

  /** Set when the answer's last event is recorded; ended streams are forgotten after a while. */
  @Property({ type: 'timestamptz', nullable: true })
  endedAt?: Date | null;

  @DefaultNow()
  createdAt: Date & Opt = new Date();
}

/** One recorded event of a chat stream; `seq` (1, 2, …) is its SSE `id`. */
@Entity({ tableName: 'chat_stream_events' })
export class ChatStreamEvent {
  @ManyToOne(() => ChatStream, { primary: true, deleteRule: 'cascade', fieldName: 'stream_id' })
  stream!: ChatStream;

  @PrimaryKey({ type: 'integer' })
  seq!: number;

  @Property({ type: 'text' })
  event!: string;

  @Property({ type: 'jsonb' })
  data!: unknown;
}
