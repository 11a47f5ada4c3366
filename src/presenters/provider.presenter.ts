import type { Provider } from '../entities';
import type { AdminProviderDto, ChatModelDto, ModelDto, PublicProviderDto } from './dto.generated';

/** GET /providers: enabled providers, no secrets (not even the mask). */
export function presentPublicProvider(p: Provider): PublicProviderDto {
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    models: p.models,
    embeddingModels: p.embeddingModels ?? [],
    rerankModels: p.rerankModels ?? [],
    isDefault: p.isDefault,
    isEnabled: p.isEnabled,
  };
}

/**
 * The administration shape (admin listing, create, update): `apiKey` is the stored mask
 * (prefix…suffix, "" when no key is set); the plain key never leaves the service.
 */
export function presentAdminProvider(p: Provider): AdminProviderDto {
  return {
    id: p.id,
    name: p.name,
    slug: p.slug,
    type: p.type,
    baseUrl: p.baseUrl,
    apiKey: p.apiKeyMask,
    hasApiKey: p.apiKeyEnc !== '',
    models: p.models,
    embeddingModels: p.embeddingModels ?? [],
    rerankModels: p.rerankModels ?? [],
    isDefault: p.isDefault,
    isEnabled: p.isEnabled,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/**
 * GET /providers/models: one entry per model over every enabled provider. `isDefault` marks the
 * one model a chat without a modelId uses: the default provider's first model.
 */
export function presentModels(providers: Provider[]): ModelDto[] {
  return providers.flatMap((p) =>
    p.models.map((model, i) => ({
      id: `${p.slug}/${model}`,
      model,
      provider: p.name,
      providerSlug: p.slug,
      providerId: p.id,
      isDefault: p.isDefault && i === 0,
    })),
  );
}

/** GET /providers/chat-model: the model chat answers with by default, or null. */
export function presentChatModel(m: { model: { label: string; source: 'provider' | 'environment' } | null }): ChatModelDto {
  return { model: m.model ? { label: m.model.label, source: m.model.source } : null };
}
