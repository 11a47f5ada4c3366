import { createUnionType, Field, ID, Int, ObjectType } from 'type-graphql';
import { Timestamp } from './common.type';
import { MessageRoleEnum } from './enums';
import { ProjectType } from './project.type';

@ObjectType('ChatConfig')
export class ChatConfigType {
  @Field() docs!: boolean;
  @Field() web!: boolean;
  @Field() deep!: boolean;
}

@ObjectType('Citation')
export class CitationType {
  @Field(() => Int) index!: number;
  @Field() chunkId!: string;
  @Field(() => ID, { nullable: true, description: 'document sources only' }) documentId?: string;
  @Field() documentName!: string;
  @Field(() => Int) pageNumber!: number;
  @Field(() => String, { nullable: true, description: 'web sources only' }) url?: string;
}

@ObjectType('Message')
export class MessageType {
  @Field(() => ID) id!: string;
  @Field(() => MessageRoleEnum) role!: string;
  @Field() content!: string;
  @Timestamp() createdAt!: string;
  @Field(() => [CitationType]) citations!: CitationType[];
  @Field({ description: 'the upstream failed or the client left before the answer finished' }) incomplete!: boolean;
}

@ObjectType('ConversationCounts')
export class ConversationCountsType {
  @Field(() => Int) messages!: number;
}

/** A conversation of the caller's (platform staff may read anyone's by id). */
@ObjectType('Conversation')
export class ConversationType {
  @Field(() => ID) id!: string;
  @Field() title!: string;
  @Field(() => ID) projectId!: string;
  @Field(() => String, { nullable: true, description: 'ISO timestamp (not in the recent list)' }) createdAt?: string;
  @Timestamp() updatedAt!: string;
  @Field(() => Int, { nullable: true, description: 'in project lists' }) messageCount?: number;
  @Field(() => ProjectType, { nullable: true, description: 'the project ({id, name, color} in the recent list)' }) project?: ProjectType;
}

// ---- the chat stream: the same events, in the same order, as the SSE endpoint

@ObjectType('ChatMeta', { description: 'First event: the conversation, the assistant message id and the model' })
export class ChatMetaType {
  @Field(() => ID) conversationId!: string;
  @Field(() => ID) messageId!: string;
  @Field() model!: string;
}

@ObjectType('ChatSource')
export class ChatSourceType {
  @Field() id!: string;
  @Field() documentId!: string;
  @Field() documentName!: string;
  @Field(() => Int) pageNumber!: number;
  @Field() snippet!: string;
  @Field(() => String, { nullable: true }) url?: string;
}

@ObjectType('ChatSources', { description: 'The retrieved chunks (or web results) the answer may cite' })
export class ChatSourcesType {
  @Field(() => [ChatSourceType]) chunks!: ChatSourceType[];
}

@ObjectType('ChatText', { description: 'A piece of the answer; the deltas in order make the answer' })
export class ChatTextType {
  @Field() delta!: string;
}

@ObjectType('ChatTimings')
export class ChatTimingsType {
  @Field(() => Int) retrievalMs!: number;
  @Field(() => Int, { nullable: true }) firstTokenMs!: number | null;
  @Field(() => Int) totalMs!: number;
  @Field(() => Int, { nullable: true, description: 'Part of retrievalMs spent waiting for the embeddings provider' }) embeddingMs?:
    number | null;
  @Field(() => Int, { nullable: true, description: 'Part of retrievalMs spent waiting for the reranker; null when none ran' }) rerankMs?:
    number | null;
}

@ObjectType('ChatDone', { description: 'Last event on success' })
export class ChatDoneType {
  @Field(() => ID) messageId!: string;
  @Field(() => Int) totalTokens!: number;
  @Field(() => ChatTimingsType, { nullable: true }) timings?: ChatTimingsType;
}

@ObjectType('ChatError', { description: 'Last event on failure (e.g. message LLM_API_ERROR, detail from upstream)' })
export class ChatErrorType {
  @Field() type!: string;
  @Field() message!: string;
  @Field() detail!: string;
}

const BY_EVENT = { meta: ChatMetaType, sources: ChatSourcesType, text: ChatTextType, done: ChatDoneType, error: ChatErrorType } as const;

export const ChatEventUnion = createUnionType({
  name: 'ChatEvent',
  description: 'One event of the chat stream: meta, sources, text..., then done or error',
  types: () => [ChatMetaType, ChatSourcesType, ChatTextType, ChatDoneType, ChatErrorType] as const,
  // the resolver keeps the service's event name beside the payload
  resolveType: (value) => BY_EVENT[(value as unknown as { event: keyof typeof BY_EVENT }).event],
});
