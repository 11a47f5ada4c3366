import { Arg, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { presentAdminProvider, presentModels, presentPublicProvider } from '../../../presenters/provider.presenter';
import { CreateProviderInput, TestProviderInput, UpdateProviderInput } from '../../../services/providers.inputs';
import { parse } from '../../../validation';
import { actorOf, GraphqlContext } from '../context';
import { DeleteResultType } from '../types/common.type';
import { ModelType, ProviderTestResultType, ProviderType } from '../types/provider.type';

@Authorized()
@Resolver(() => ProviderType)
export class ProviderResolver {
  @Query(() => [ProviderType], { description: 'GET /providers: enabled providers, no secrets' })
  async providers(@Ctx() ctx: GraphqlContext) {
    return (await ctx.services.providers.listEnabled(actorOf(ctx))).map(presentPublicProvider);
  }

  @Query(() => [ModelType], { description: 'GET /providers/models: one entry per model of every enabled provider' })
  async providerModels(@Ctx() ctx: GraphqlContext) {
    return presentModels(await ctx.services.providers.listEnabled(actorOf(ctx)));
  }

  @Query(() => [ProviderType], { description: 'GET /providers/admin (engineer, superadmin): every provider, keys masked' })
  async adminProviders(@Ctx() ctx: GraphqlContext) {
    return (await ctx.services.providers.listAll(actorOf(ctx))).map(presentAdminProvider);
  }

  @Mutation(() => ProviderType, { description: 'POST /providers (engineer, superadmin)' })
  async createProvider(@Arg('input', () => CreateProviderInput) input: CreateProviderInput, @Ctx() ctx: GraphqlContext) {
    return presentAdminProvider(await ctx.services.providers.create(actorOf(ctx), await parse(CreateProviderInput, input)));
  }

  @Mutation(() => ProviderType, { description: 'PATCH /providers/:id (engineer, superadmin); an empty apiKey keeps the stored key' })
  async updateProvider(@Arg('id', () => String) id: string, @Arg('input', () => UpdateProviderInput) input: UpdateProviderInput, @Ctx() ctx: GraphqlContext) {
    return presentAdminProvider(await ctx.services.providers.update(actorOf(ctx), id, await parse(UpdateProviderInput, input)));
  }

  @Mutation(() => DeleteResultType, { description: 'DELETE /providers/:id (engineer, superadmin)' })
  async deleteProvider(@Arg('id', () => String) id: string, @Ctx() ctx: GraphqlContext) {
    return { success: true, ...(await ctx.services.providers.remove(actorOf(ctx), id)) };
  }

  @Mutation(() => ProviderTestResultType, { description: 'POST /providers/:id/test (engineer, superadmin); id "draft" tests an unsaved configuration' })
  async testProvider(@Arg('id', () => String) id: string, @Arg('input', () => TestProviderInput) input: TestProviderInput, @Ctx() ctx: GraphqlContext) {
    return ctx.services.providers.test(actorOf(ctx), id, await parse(TestProviderInput, input));
  }
}
