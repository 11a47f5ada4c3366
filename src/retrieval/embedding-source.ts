import type { EmbeddingEnv } from '../config';

/**
 * Where a project's embedding model comes from (DESIGN §8), first match wins:
 *  1. the project's `settings.embeddingModel`: `<slug>/<model>` names an enabled provider and a
 *     model; a bare name is the first enabled provider (by age) listing it in `embeddingModels`,
 *     else the environment's URL with that model when one is configured;
 *  2. the default provider (while enabled): its first `embeddingModels` entry;
 *  3. the environment: EMBEDDING_BASE_URL / EMBEDDING_API_KEY / EMBEDDING_MODEL (config.ts puts
 *     LLM_BASE_URL / LLM_API_KEY there when only EMBEDDING_MODEL is set);
 *  4. none: retrieval stays lexical.
 * `key` is what vectors are stored under: `<slug>/<model>` for a provider, the bare model for the
 * environment. Vectors of two keys are never compared, so a new key re-embeds.
 */
export interface EmbeddingProviderCandidate {
  id: string;
  slug: string;
  embeddingModels: string[];
  isDefault: boolean;
  isEnabled: boolean;
  createdAt: Date;
}

export type EmbeddingResolution<P extends EmbeddingProviderCandidate> =
  | { kind: 'provider'; step: 1 | 2; provider: P; model: string; key: string }
  | { kind: 'env'; step: 1 | 3; baseUrl: string; apiKey: string; model: string; key: string }
  | { kind: 'none' };

const byAge = (a: EmbeddingProviderCandidate, b: EmbeddingProviderCandidate) =>
  a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id);

export function resolveEmbeddingSource<P extends EmbeddingProviderCandidate>(
  providers: readonly P[],
  projectModel: string | null | undefined,
  env: EmbeddingEnv | null,
): EmbeddingResolution<P> {
  const enabled = providers.filter((p) => p.isEnabled).sort(byAge);
  const pinned = typeof projectModel === 'string' ? projectModel.trim() : '';
  if (pinned) {
    const slash = pinned.indexOf('/');
    if (slash > 0) {
      const provider = enabled.find((p) => p.slug === pinned.slice(0, slash));
      const model = pinned.slice(slash + 1).trim();
      if (provider && model) return { kind: 'provider', step: 1, provider, model, key: `${provider.slug}/${model}` };
    }
    // a name with a slash whose prefix is no provider's slug is a bare model name (`BAAI/bge-small-en`)
    const provider = enabled.find((p) => p.embeddingModels.includes(pinned));
    if (provider) return { kind: 'provider', step: 1, provider, model: pinned, key: `${provider.slug}/${pinned}` };
    if (env) return { kind: 'env', step: 1, baseUrl: env.baseUrl, apiKey: env.apiKey, model: pinned, key: pinned };
  }
  const def = enabled.find((p) => p.isDefault);
  if (def && def.embeddingModels.length)
    return { kind: 'provider', step: 2, provider: def, model: def.embeddingModels[0], key: `${def.slug}/${def.embeddingModels[0]}` };
  if (env) return { kind: 'env', step: 3, baseUrl: env.baseUrl, apiKey: env.apiKey, model: env.model, key: env.model };
  return { kind: 'none' };
}
