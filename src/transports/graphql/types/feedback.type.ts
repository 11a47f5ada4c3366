import { Field, ID, ObjectType } from 'type-graphql';
import { Page, Timestamp } from './common.type';
import { AccessSourceEnum, TierEnum } from './enums';

@ObjectType('FeedbackAuthor', { description: 'Who gave a piece of feedback' })
export class FeedbackAuthorType {
  @Field(() => ID) id!: string;
  @Field() name!: string;
  @Field() email!: string;
}

/** A thumbs up or down on an answer, with an optional comment. */
@ObjectType('Feedback')
export class FeedbackType {
  @Field(() => ID) id!: string;
  @Field(() => ID) messageId!: string;
  @Field(() => ID) conversationId!: string;
  @Field(() => ID) projectId!: string;
  @Field({ description: '`up` or `down`' }) rating!: string;
  @Field(() => String, { nullable: true }) comment!: string | null;
  @Timestamp() createdAt!: string;
  @Timestamp() updatedAt!: string;
  @Field(() => FeedbackAuthorType, { nullable: true, description: 'null once that user is deleted' }) user!: FeedbackAuthorType | null;
  @Field({ description: 'the beginning of the answer' }) answer!: string;
}

export const FeedbackPage = Page(FeedbackType, 'Feedback');

@ObjectType('DefaultChatModel')
export class DefaultChatModelType {
  @Field() label!: string;
  @Field({ description: '`provider` or `environment` (LLM_BASE_URL, LLM_MODEL)' }) source!: string;
}

@ObjectType('ChatModel', { description: 'The model chat answers with by default; model is null when chat has none' })
export class ChatModelType {
  @Field(() => DefaultChatModelType, { nullable: true }) model!: DefaultChatModelType | null;
}

@ObjectType('EffectiveAccess', { description: "One user's access to one project as the resolver decides it" })
export class EffectiveAccessType {
  @Field(() => ID) projectId!: string;
  @Field(() => ID) userId!: string;
  @Field(() => TierEnum, { nullable: true, description: 'null without access' }) tier!: string | null;
  @Field(() => AccessSourceEnum, { nullable: true, description: 'the resolver rule that gives the tier' }) source!: string | null;
}
