import { Entity, Enum, Index, ManyToOne, Opt, Property } from '@mikro-orm/core';
import { CreatedEntity, DefaultNow } from './columns';
import { MESSAGE_ROLES, MessageRole } from './base';
import { Project } from './project.entity';
import { User } from './user.entity';

export interface Citation {
  index: number;
  chunkId: string;
  documentName: string;
  pageNumber: number;
  documentId?: string;
  url?: string;
}

@Entity({ tableName: 'conversations' })
@Index({ name: 'conversations_user_updated_idx', properties: ['user', 'updatedAt'] })
@Index({ name: 'conversations_project_idx', properties: ['project'] })
export class Conversation extends CreatedEntity {
  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  project!: Project;

  // spec: deleting a user keeps their conversations with the reference set to null
  @ManyToOne(() => User, { nullable: true, deleteRule: 'set null' })
  user?: User | null;

  @Property({ type: 'text' })
  title!: string;

  @DefaultNow()
  updatedAt: Date & Opt = new Date();
}

@Entity({ tableName: 'messages' })
@Index({ name: 'messages_conversation_created_idx', properties: ['conversation', 'createdAt'] })
export class Message extends CreatedEntity {
  @ManyToOne(() => Conversation, { deleteRule: 'cascade' })
  conversation!: Conversation;

  @ManyToOne(() => User, { nullable: true, deleteRule: 'set null', index: true })
  user?: User | null;

  @Enum({ items: () => MESSAGE_ROLES as unknown as string[], type: 'text' })
  role!: MessageRole;

  @Property({ type: 'text' })
  content: string & Opt = '';

  @Property({ type: 'jsonb', defaultRaw: `'[]'::jsonb` })
  citations: Citation[] & Opt = [];

  /** True when the upstream stream failed or the client left before the answer finished. */
  @Property({ type: 'boolean' })
  incomplete: boolean & Opt = false;

  @Property({ type: 'text', nullable: true })
  model?: string | null;

  @Property({ type: 'integer', nullable: true })
  totalTokens?: number | null;

  @Property({ type: 'text', nullable: true })
  mode?: string | null;
}
