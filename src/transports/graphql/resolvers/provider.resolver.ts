import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { Actor } from '../../../access/actor';
import { presentAdminProvider, presentModels, presentPublicProvider } from '../../../presenters/provider.presenter';
import { CreateProviderInput, TestProviderInput, UpdateProviderInput } from '../../../services/providers.inputs';
import { writeResolver } from '../crud';
import { GraphqlContext } from '../context';
import { CurrentActor, ValidArg } from '../params';
import { ModelType, ProviderTestResultType, ProviderType } from '../types/provider.type';
import type { ProviderTestResult } from '../../../services/providers.service';
import type { AdminProviderDto, ModelDto, PublicProviderDto } from '../../../presenters/dto.generated';

@Resolver(() => ProviderType)
export class ProviderResolver extends writeResolver({
  name: 'Provider',
  type: ProviderType,
  idType: String,
  create: CreateProviderInput,
  update: UpdateProviderInput,
  calls: (s) => ({
    create: (a, i) => s.providers.create(a, i),
    update: (a, id, i) => s.providers.update(a, id, i),
    delete: (a, id) => s.providers.remove(a, id),
  }),
  present: presentAdminProvider,
  describe: {
    create: 'POST /providers (engineer, superadmin)',
    update: 'PATCH /providers/:id (engineer, superadmin); an empty apiKey keeps the stored key',
    delete: 'DELETE /providers/:id (engineer, superadmin)',
  },
}) {
  @Authorized()
  @Query(() => [ProviderType], { description: 'GET /providers: enabled providers, no secrets' })
  async providers(@CurrentActor() actor: Actor, @Ctx() ctx: GraphqlContext): Promise<PublicProviderDto[]> {
    return (await ctx.services.providers.listEnabled(actor)).map(presentPublicProvider);
  }

  @Authorized()
  @Query(() => [ModelType], { description: 'GET /providers/models: one entry per model of every enabled provider' })
  async providerModels(@CurrentActor() actor: Actor, @Ctx() ctx: GraphqlContext): Promise<ModelDto[]> {
    return presentModels(await ctx.services.providers.listEnabled(actor));
  }

  @Authorized()
  @Query(() => [ProviderType], { description: 'GET /providers/admin (engineer, superadmin): every provider, keys masked' })
  async adminProviders(@CurrentActor() actor: Actor, @Ctx() ctx: GraphqlContext): Promise<AdminProviderDto[]> {
    return (await ctx.services.providers.listAll(actor)).map(presentAdminProvider);
  }

  @Authorized()
  @Mutation(() => ProviderTestResultType, {
    description: 'POST /providers/:id/test (engineer, superadmin); id "draft" tests an unsaved configuration',
  })
  async testProvider(
    @Arg('id', () => String) id: string,
    @ValidArg('input', TestProviderInput) input: TestProviderInput,
    @CurrentActor() actor: Actor,
    @Ctx() ctx: GraphqlContext,
  ): Promise<ProviderTestResult> {
    return ctx.services.providers.test(actor, id, input);
  }
}
