import { Arg, Resolver } from 'type-graphql';
import { SignedInQuery, SignedInMutation } from '../auth-checker';
import { presentAdminProvider, presentModels, presentPublicProvider } from '../../../presenters/provider.presenter';
import { CreateProviderInput, TestProviderInput, UpdateProviderInput } from '../../../services/providers.inputs';
import { writeResolver } from '../crud';
import { Caller, ValidArg } from '../params';
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
  @SignedInQuery(() => [ProviderType], { description: 'GET /providers: enabled providers, no secrets' })
  async providers(@Caller() { actor, services }: Caller): Promise<PublicProviderDto[]> {
    return (await services.providers.listEnabled(actor)).map(presentPublicProvider);
  }

  @SignedInQuery(() => [ModelType], { description: 'GET /providers/models: one entry per model of every enabled provider' })
  async providerModels(@Caller() { actor, services }: Caller): Promise<ModelDto[]> {
    return presentModels(await services.providers.listEnabled(actor));
  }

  @SignedInQuery(() => [ProviderType], { description: 'GET /providers/admin (engineer, superadmin): every provider, keys masked' })
  async adminProviders(@Caller() { actor, services }: Caller): Promise<AdminProviderDto[]> {
    return (await services.providers.listAll(actor)).map(presentAdminProvider);
  }

  @SignedInMutation(() => ProviderTestResultType, {
    description: 'POST /providers/:id/test (engineer, superadmin); id "draft" tests an unsaved configuration',
  })
  async testProvider(
    @Arg('id', () => String) id: string,
    @ValidArg('input', TestProviderInput) input: TestProviderInput,
    @Caller() { actor, services }: Caller,
  ): Promise<ProviderTestResult> {
    return services.providers.test(actor, id, input);
  }
}
