import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Actor } from '../../../access/actor';
import { presentCreatedKey, presentKey } from '../../../presenters/key.presenter';
import { CreateKeyInput, ListKeysQuery } from '../../../services/keys.inputs';
import { GraphqlContext } from '../context';
import { CurrentActor, ValidArg } from '../params';
import { DeleteResultType } from '../types/common.type';
import { ApiKeyType, CreatedKeyType } from '../types/key.type';
import type { ApiKeyDto, CreatedKeyDto, DeleteResultDto } from '../../../presenters/dto.generated';

/** Keys for programs (issue 38): the same service calls as POST/GET/DELETE /keys. */
@Resolver(() => ApiKeyType)
export class KeyResolver {
  @Authorized()
  @Query(() => [ApiKeyType], { description: "GET /keys: the caller's keys (admins: any user's, with userId)" })
  async keys(
    @ValidArg('filter', ListKeysQuery, { nullable: true }) filter: ListKeysQuery,
    @CurrentActor() actor: Actor,
    @Ctx() ctx: GraphqlContext,
  ): Promise<ApiKeyDto[]> {
    return (await ctx.services.keys.list(actor, filter)).map(presentKey);
  }

  @Authorized()
  @Mutation(() => CreatedKeyType, { description: 'POST /keys: a key owned by the caller; the secret is shown once' })
  async createKey(
    @ValidArg('input', CreateKeyInput) input: CreateKeyInput,
    @CurrentActor() actor: Actor,
    @Ctx() ctx: GraphqlContext,
  ): Promise<CreatedKeyDto> {
    return presentCreatedKey(await ctx.services.keys.create(actor, input));
  }

  @Authorized()
  @Mutation(() => DeleteResultType, { description: 'DELETE /keys/:id: revokes a key' })
  async revokeKey(@Arg('id', () => ID) id: string, @CurrentActor() actor: Actor, @Ctx() ctx: GraphqlContext): Promise<DeleteResultDto> {
    await ctx.services.keys.revoke(actor, id);
    return { success: true, id };
  }
}
