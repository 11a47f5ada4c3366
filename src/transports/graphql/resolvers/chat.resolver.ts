import { Arg, Authorized, Ctx, FieldResolver, ID, Resolver, Root, Subscription } from 'type-graphql';
import { SignedInQuery } from '../auth-checker';
import type { SubscribeResolverData } from 'type-graphql';
import { presentChatEvent } from '../../../presenters/chat-event.presenter';
import {
  type GraphConversationSummaryDto,
  presentConversationDetail,
  presentConversationSummary,
  presentMessage,
  presentRecentConversation,
} from '../../../presenters/conversation.presenter';
import { AskInput, ConversationListQuery, ConversationSearchQuery } from '../../../services/chat.inputs';
import type { ChatEvent } from '../../../services/chat.service';
import { parse } from '../../../validation';
import { actorOf, GraphqlContext } from '../context';
import { Caller, ValidArg } from '../params';
import { abortableStream } from '../subscriptions';
import { ChatConfigType, ChatEventUnion, ConversationCountsType, ConversationType, MessageType } from '../types/chat.type';
import { ProjectType } from '../types/project.type';
import type { GraphProjectDto } from '../../../presenters/project.presenter';
import type { ChatModesDto, ConversationDetailDto, RecentConversationDto } from '../../../presenters/dto.generated';
import type { ChatEventPayload } from '../../../presenters/chat-event.presenter';

type ConversationRoot = ConversationType & { messages?: MessageType[] };

@Resolver(() => ConversationType)
export class ChatResolver {
  @SignedInQuery(() => ChatConfigType, { description: 'GET /chat/config: which modes this server offers' })
  chatConfig(@Caller() { actor, services }: Caller): ChatModesDto {
    return services.chat.modes(actor);
  }

  @SignedInQuery(() => [ConversationType], {
    description: "GET /chat/projects/:projectId/conversations: the caller's own (use tier), newest first",
  })
  async conversations(
    @Arg('projectId', () => ID) projectId: string,
    @ValidArg('page', ConversationSearchQuery, { nullable: true }) page: ConversationSearchQuery,
    @Caller() { actor, services }: Caller,
  ): Promise<GraphConversationSummaryDto[]> {
    const rows = await services.conversations.list(actor, projectId, page);
    return rows.map((r): GraphConversationSummaryDto => ({ ...presentConversationSummary(r), projectId: r.projectId }));
  }

  @SignedInQuery(() => ConversationType, { description: 'GET /chat/conversations/:id: its author (with use tier) or platform staff' })
  async conversation(@Arg('id', () => ID) id: string, @Caller() { actor, services }: Caller): Promise<ConversationDetailDto> {
    const { conversation, messages } = await services.conversations.get(actor, id);
    return presentConversationDetail(conversation, messages);
  }

  @SignedInQuery(() => [ConversationType], { description: "GET /chat/recent: the caller's conversations across projects, newest first" })
  async recentConversations(
    @ValidArg('page', ConversationListQuery, { nullable: true }) page: ConversationListQuery,
    @Caller() { actor, services }: Caller,
  ): Promise<RecentConversationDto[]> {
    return (await services.conversations.recent(actor, page)).map(presentRecentConversation);
  }

  @Authorized()
  @Subscription(() => ChatEventUnion, {
    description:
      'POST /chat/projects/:projectId as a subscription: meta, sources, text..., then done or error (message unauthorized or forbidden when the caller loses access mid-answer). Unsubscribing aborts the upstream call.',
    subscribe: async ({ args, context }: SubscribeResolverData<unknown, { projectId: string; input: unknown }, GraphqlContext>) => {
      const input = await parse(AskInput, args.input);
      // access, mode and conversation are checked before the stream starts: a denied caller gets an error, no events
      return abortableStream((signal) => context.services.chat.ask(actorOf(context), args.projectId, input, signal));
    },
  })
  chat(
    @Root() event: ChatEvent,
    @Arg('projectId', () => ID) _projectId: string,
    @Arg('input', () => AskInput) _input: AskInput,
  ): ChatEventPayload {
    return presentChatEvent(event);
  }

  @FieldResolver(() => [MessageType], { description: 'Oldest first, with citations' })
  async messages(@Root() c: ConversationRoot, @Ctx() ctx: GraphqlContext): Promise<MessageType[]> {
    return c.messages ?? (await ctx.loaders.conversationMessages.load(c.id)).map(presentMessage);
  }

  @FieldResolver(() => ConversationCountsType, { description: 'REST `_count`' })
  async counts(@Root() c: ConversationRoot, @Ctx() ctx: GraphqlContext): Promise<{ messages: number }> {
    if (c.messageCount !== undefined) return { messages: c.messageCount };
    return { messages: (c.messages ?? (await ctx.loaders.conversationMessages.load(c.id))).length };
  }

  @FieldResolver(() => ProjectType, { description: "The conversation's project" })
  async project(@Root() c: ConversationRoot, @Ctx() ctx: GraphqlContext): Promise<GraphProjectDto> {
    return ctx.loaders.projects.load(c.projectId);
  }
}
