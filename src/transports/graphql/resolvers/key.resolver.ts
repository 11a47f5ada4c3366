import { Arg, ID, Resolver } from 'type-graphql';
import { SignedInQuery, SignedInMutation } from '../auth-checker';
import { presentCreatedKey, presentKey } from '../../../presenters/key.presenter';
import { CreateKeyInput, ListKeysQuery } from '../../../services/keys.inputs';
import { Caller, FilterArg, ValidArg } from '../params';
import { DeleteResultType } from '../types/common.type';
import { ApiKeyType, CreatedKeyType } from '../types/key.type';
import type { ApiKeyDto, CreatedKeyDto, DeleteResultDto } from '../../../presenters/dto.generated';

/** Keys for programs (issue 38): the same service calls as POST/GET/DELETE /keys. */
@Resolver(() => ApiKeyType)
export class KeyResolver {
  @SignedInQuery(() => [ApiKeyType], { description: "GET /keys: the caller's keys (admins: any user's, with userId)" })
  async keys(@FilterArg(ListKeysQuery) filter: ListKeysQuery, @Caller() { actor, services }: Caller): Promise<ApiKeyDto[]> {
    return (await services.keys.list(actor, filter)).map(presentKey);
  }

  @SignedInMutation(() => CreatedKeyType, { description: 'POST /keys: a key owned by the caller; the secret is shown once' })
  async createKey(@ValidArg('input', CreateKeyInput) input: CreateKeyInput, @Caller() { actor, services }: Caller): Promise<CreatedKeyDto> {
    return presentCreatedKey(await services.keys.create(actor, input));
  }

  @SignedInMutation(() => DeleteResultType, { description: 'DELETE /keys/:id: revokes a key' })
  async revokeKey(@Arg('id', () => ID) id: string, @Caller() { actor, services }: Caller): Promise<DeleteResultDto> {
    await services.keys.revoke(actor, id);
    return { success: true, id };
  }
}
