import { IsIn, IsString, IsUUID, Matches, MaxLength } from 'class-validator';
import { Field, InputType } from 'type-graphql';
import { FEEDBACK_RATINGS, type FeedbackRating } from '../entities/base';
import { NameRule, Optional, OptionalField, RequiredField } from './input-rules';
import { LimitField, OffsetField } from './paging.inputs';

export const CHAT_MODES = ['docs', 'web', 'deep'] as const;
export type ChatMode = (typeof CHAT_MODES)[number];

/** Longest question accepted (the spec leaves it open); a longer one is a 400, not a truncation. */
export const MAX_MESSAGE_LENGTH = 8000;

/** POST /chat/projects/:projectId (and the GraphQL subscription). */
@InputType()
export class AskInput {
  @RequiredField(
    () => String,
    IsString(),
    MaxLength(MAX_MESSAGE_LENGTH, { message: `message must be at most ${MAX_MESSAGE_LENGTH} characters` }),
    Matches(/\S/, { message: 'message must not be empty' }),
  )
  message!: string;

  /** Omit to start a new conversation. */
  @OptionalField(() => String, IsUUID('all'))
  conversationId?: string;

  /** `<provider_slug>/<model_name>` or a bare `<model_name>`. */
  @OptionalField(() => String, IsString(), MaxLength(300))
  modelId?: string;

  /** Defaults to `docs`. */
  @OptionalField(() => String, IsIn(CHAT_MODES))
  mode?: ChatMode;

  /** Regenerate: the conversation's last answer, replaced by this question's answer. */
  @Field({
    nullable: true,
    description:
      "Regenerate: the id of the conversation's last answer. That answer and its question leave the conversation " +
      '(with their feedback and citations) and this question and its new answer take their place.',
  })
  @Optional()
  @IsUUID('all')
  replaces?: string;
}

/** Paging of conversation lists (query string). */
@InputType()
export class ConversationListQuery {
  @LimitField(200)
  limit?: number;

  @OffsetField()
  offset?: number;
}

/** GET /chat/projects/:projectId/conversations: paging, and an optional search over titles and message text. */
@InputType()
export class ConversationSearchQuery extends ConversationListQuery {
  @Field({ nullable: true, description: 'case-insensitive words matched in the title or any message of the conversation' })
  @Optional()
  @IsString()
  @MaxLength(200)
  search?: string;
}

/** PATCH /chat/conversations/:id. */
@InputType()
export class RenameConversationInput {
  @RequiredField(() => String, NameRule(200))
  title!: string;
}

/** POST /chat/messages/:messageId/feedback: thumbs up or down on an answer, with an optional comment. */
@InputType()
export class FeedbackInput {
  @RequiredField(() => String, IsIn(FEEDBACK_RATINGS))
  rating!: FeedbackRating;

  @OptionalField(() => String, IsString(), MaxLength(2000))
  comment?: string;
}

/** GET /projects/:projectId/feedback (admin): newest first, paged, optionally one rating. */
@InputType()
export class FeedbackListQuery extends ConversationListQuery {
  @OptionalField(() => String, IsIn(FEEDBACK_RATINGS))
  rating?: FeedbackRating;
}
