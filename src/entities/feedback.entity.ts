import { Entity, Enum, Index, ManyToOne, Opt, Property, Unique } from '@mikro-orm/core';
import { CreatedEntity, DefaultNow } from './columns';
import { FEEDBACK_RATINGS, type FeedbackRating } from './base';
import { Message } from './conversation.entity';
import { Project } from './project.entity';
import { User } from './user.entity';

/** A person's thumbs up or down on an answer, with an optional comment: one per (message, user), replaced when given again. */
@Entity({ tableName: 'message_feedback' })
@Unique({ name: 'message_feedback_message_user_unique', properties: ['message', 'user'] })
@Index({ name: 'message_feedback_project_created_idx', properties: ['project', 'createdAt'] })
export class MessageFeedback extends CreatedEntity {
  @ManyToOne(() => Message, { deleteRule: 'cascade' })
  message!: Message;

  // the project is kept beside the message so the admin's list per project is one indexed read
  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  project!: Project;

  @ManyToOne(() => User, { deleteRule: 'cascade' })
  user!: User;

  @Enum({ items: () => FEEDBACK_RATINGS as unknown as string[], type: 'text' })
  rating!: FeedbackRating;

  @Property({ type: 'text', nullable: true })
  comment?: string | null;

  @DefaultNow()
  updatedAt: Date & Opt = new Date();
}
