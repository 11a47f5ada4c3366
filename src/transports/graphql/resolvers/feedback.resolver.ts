import { Arg, Args, ID, Resolver } from 'type-graphql';
import { SignedInQuery, SignedInMutation } from '../auth-checker';
import { presentConversationDetail } from '../../../presenters/conversation.presenter';
import { presentFeedback } from '../../../presenters/feedback.presenter';
import { presentEffectiveAccess } from '../../../presenters/grant.presenter';
import { presentChatModel } from '../../../presenters/provider.presenter';
import { FeedbackInput, FeedbackListQuery, RenameConversationInput } from '../../../services/chat.inputs';
import { Caller, FilterArg, ValidArg } from '../params';
import { ConversationType } from '../types/chat.type';
import { DeleteResultType, ProjectUserArgs, type PageOf } from '../types/common.type';
import { ChatModelType, EffectiveAccessType, FeedbackPage, FeedbackType } from '../types/feedback.type';
import type {
  ChatModelDto,
  ConversationDetailDto,
  DeleteResultDto,
  EffectiveAccessDto,
  FeedbackDto,
} from '../../../presenters/dto.generated';

/** Conversation rename and delete, feedback on answers, the default chat model and one user's effective access: the REST routes' twins. */
@Resolver()
export class FeedbackResolver {
  @SignedInMutation(() => ConversationType, { description: "PATCH /chat/conversations/:id: a new title (the conversation's author)" })
  async renameConversation(
    @Arg('id', () => ID) id: string,
    @ValidArg('input', RenameConversationInput) input: RenameConversationInput,
    @Caller() { actor, services }: Caller,
  ): Promise<ConversationDetailDto> {
    const { conversation, messages } = await services.conversations.rename(actor, id, input);
    return presentConversationDetail(conversation, messages);
  }

  @SignedInMutation(() => DeleteResultType, { description: "DELETE /chat/conversations/:id (the conversation's author)" })
  async deleteConversation(@Arg('id', () => ID) id: string, @Caller() { actor, services }: Caller): Promise<DeleteResultDto> {
    return { success: true, ...(await services.conversations.delete(actor, id)) };
  }

  @SignedInMutation(() => FeedbackType, {
    description: "POST /chat/messages/:messageId/feedback: up or down on an answer (the conversation's author)",
  })
  async giveFeedback(
    @Arg('messageId', () => ID) messageId: string,
    @ValidArg('input', FeedbackInput) input: FeedbackInput,
    @Caller() { actor, services }: Caller,
  ): Promise<FeedbackDto> {
    return presentFeedback(await services.feedback.give(actor, messageId, input));
  }

  @SignedInQuery(() => [FeedbackType], { description: "GET /chat/conversations/:id/feedback: the caller's own feedback in a conversation" })
  async conversationFeedback(
    @Arg('conversationId', () => ID) conversationId: string,
    @Caller() { actor, services }: Caller,
  ): Promise<FeedbackDto[]> {
    return (await services.feedback.mine(actor, conversationId)).map(presentFeedback);
  }

  @SignedInQuery(() => FeedbackPage, { description: 'GET /projects/:projectId/feedback (admin, superadmin): newest first' })
  async projectFeedback(
    @Arg('projectId', () => ID) projectId: string,
    @FilterArg(FeedbackListQuery) filter: FeedbackListQuery,
    @Caller() { actor, services }: Caller,
  ): Promise<PageOf<FeedbackDto>> {
    const { feedback, total } = await services.feedback.list(actor, projectId, filter);
    return { items: feedback.map(presentFeedback), total };
  }

  @SignedInQuery(() => ChatModelType, { description: 'GET /providers/chat-model: the model chat uses by default, or none' })
  async chatModel(@Caller() { actor, services }: Caller): Promise<ChatModelDto> {
    return presentChatModel(await services.chatModel.describe(actor));
  }

  @SignedInQuery(() => EffectiveAccessType, {
    description: "GET /projects/:projectId/access/:userId (full tier): a user's tier and its source",
  })
  async effectiveAccess(
    @Args() { projectId, userId }: ProjectUserArgs,
    @Caller() { actor, services }: Caller,
  ): Promise<EffectiveAccessDto> {
    return presentEffectiveAccess(await services.grants.effectiveAccess(actor, projectId, userId));
  }
}
