import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { Actor } from '../../../access/actor';
import { presentAdminProvider, presentModels, presentPublicProvider } from '../../../presenters/provider.presenter';
import { CreateProviderInput, TestProviderInput, UpdateProviderInput } from '../../../services/providers.inputs';
import { GraphqlContext } from '../context';
import { CurrentActor, ValidArg } from '../params';
import { DeleteResultType } from '../types/common.type';
import { ModelType, ProviderTestResultType, ProviderType } from '../types/provider.type';
import type { ProviderTestResult } from '../../../services/providers.service';
import type { AdminProviderDto, DeleteResultDto, ModelDto, PublicProviderDto } from '../../../presenters/dto.generated';

@Resolver(() => ProviderType)
export class ProviderResolver {
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
  @Mutation(() => ProviderType, { description: 'POST /providers (engineer, superadmin)' })
  async createProvider(
    @ValidArg('input', CreateProviderInput) input: CreateProviderInput,
    @CurrentActor() actor: Actor,
    @Ctx() ctx: GraphqlContext,
  ): Promise<AdminProviderDto> {
    return presentAdminProvider(await ctx.services.providers.create(actor, input));
  }

  @Authorized()
  @Mutation(() => ProviderType, { description: 'PATCH /providers/:id (engineer, superadmin); an empty apiKey keeps the stored key' })
  async updateProvider(
    @Arg('id', () => String) id: string,
    @ValidArg('input', UpdateProviderInput) input: UpdateProviderInput,
    @CurrentActor() actor: Actor,
    @Ctx() ctx: GraphqlContext,
  ): Promise<AdminProviderDto> {
    return presentAdminProvider(await ctx.services.providers.update(actor, id, input));
  }

  @Authorized()
  @Mutation(() => DeleteResultType, { description: 'DELETE /providers/:id (engineer, superadmin)' })
  async deleteProvider(
    @Arg('id', () => String) id: string,
    @CurrentActor() actor: Actor,
    @Ctx() ctx: GraphqlContext,
  ): Promise<DeleteResultDto> {
    return { success: true, ...(await ctx.services.providers.remove(actor, id)) };
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
