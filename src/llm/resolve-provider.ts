/**
 * Provider resolution for chat (spec "Provider resolution", DESIGN "Further decisions"), first
 * match wins:
 *  1. `<provider_slug>/<model_name>`: the enabled provider with that slug, with that model;
 *  2. bare `<model_name>`: the first enabled provider (by createdAt) whose models list it;
 *  3. the default provider, while it is enabled, with its first model;
 *  4. the oldest enabled provider, with its first model;
 *  5. the environment: LLM_BASE_URL / LLM_API_KEY, model = the requested name, else LLM_MODEL.
 * The requested name is the message's `modelId`, then the project's `settings.model` (read the same
 * way). A `slug/...` id whose slug is no provider's is read as a bare name, since model names may
 * contain slashes (`meta-llama/Llama-3-8B`).
 */
export interface ProviderCandidate {
  id: string;
  slug: string;
  models: string[];
  isDefault: boolean;
  isEnabled: boolean;
  createdAt: Date;
}

export interface EnvFallback {
  baseUrl: string | null;
  apiKey: string;
  model: string | null;
}

export type Resolution<P extends ProviderCandidate> =
  | { kind: 'provider'; step: 1 | 2 | 3 | 4; provider: P; model: string }
  | { kind: 'env'; step: 5; baseUrl: string; apiKey: string; model: string }
  | { kind: 'none'; step: 5; reason: string };

const byAge = (a: ProviderCandidate, b: ProviderCandidate) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id);

export function resolveProvider<P extends ProviderCandidate>(
  providers: readonly P[],
  request: { modelId?: string | null; projectModel?: string | null },
  env: EnvFallback,
): Resolution<P> {
  const enabled = providers.filter((p) => p.isEnabled).sort(byAge);
  const requested = [request.modelId, request.projectModel].map((m) => m?.trim()).filter((m): m is string => !!m);

  for (const id of requested) {
    const slash = id.indexOf('/');
    if (slash > 0) {
      const provider = enabled.find((p) => p.slug === id.slice(0, slash));
      const model = id.slice(slash + 1).trim();
      if (provider && model) return { kind: 'provider', step: 1, provider, model };
    }
    const provider = enabled.find((p) => p.models.includes(id));
    if (provider) return { kind: 'provider', step: 2, provider, model: id };
  }

  const def = enabled.find((p) => p.isDefault);
  if (def && def.models.length) return { kind: 'provider', step: 3, provider: def, model: def.models[0] };
  const oldest = enabled.find((p) => p.models.length);
  if (oldest) return { kind: 'provider', step: 4, provider: oldest, model: oldest.models[0] };

  if (!env.baseUrl) {
    return { kind: 'none', step: 5, reason: 'No language-model provider is available: none is enabled and LLM_BASE_URL is not set' };
  }
  const model = requested[0] ?? env.model;
  if (!model)
    return {
      kind: 'none',
      step: 5,
      reason: 'No model to use: no provider is enabled, and neither a modelId, the project settings.model nor LLM_MODEL names one',
    };
  return { kind: 'env', step: 5, baseUrl: env.baseUrl, apiKey: env.apiKey, model };
}
