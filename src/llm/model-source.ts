/**
 * Where a project's model of one kind (embeddings, reranking) comes from, first match wins:
 *  1. the project's setting: `<slug>/<model>` names an enabled provider and a model; a bare name is
 *     the first enabled provider (by age) listing it, else the environment's URL with that model
 *     when one is configured;
 *  2. the default provider (while enabled): the first model it lists;
 *  3. the environment (base URL, key, model);
 *  4. none.
 * `key` is `<slug>/<model>` for a provider, the bare model for the environment.
 */
export interface ModelProviderCandidate {
  id: string;
  slug: string;
  isDefault: boolean;
  isEnabled: boolean;
  createdAt: Date;
}

export interface ModelEnv {
  baseUrl: string;
  apiKey: string;
  model: string;
}

export type ModelResolution<P> =
  | { kind: 'provider'; step: 1 | 2; provider: P; model: string; key: string }
  | { kind: 'env'; step: 1 | 3; baseUrl: string; apiKey: string; model: string; key: string }
  | { kind: 'none' };

const byAge = (a: ModelProviderCandidate, b: ModelProviderCandidate) =>
  a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id);

/** Resolves the source; `models(p)` is what a provider lists for this kind. */
export function resolveModelSource<P extends ModelProviderCandidate>(
  providers: readonly P[],
  models: (p: P) => readonly string[],
  projectModel: string | null | undefined,
  env: ModelEnv | null,
): ModelResolution<P> {
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
    const provider = enabled.find((p) => models(p).includes(pinned));
    if (provider) return { kind: 'provider', step: 1, provider, model: pinned, key: `${provider.slug}/${pinned}` };
    if (env) return { kind: 'env', step: 1, baseUrl: env.baseUrl, apiKey: env.apiKey, model: pinned, key: pinned };
  }
  const def = enabled.find((p) => p.isDefault);
  const first = def ? models(def)[0] : undefined;
  if (def && first) return { kind: 'provider', step: 2, provider: def, model: first, key: `${def.slug}/${first}` };
  if (env) return { kind: 'env', step: 3, baseUrl: env.baseUrl, apiKey: env.apiKey, model: env.model, key: env.model };
  return { kind: 'none' };
}

/** The resolver of one kind of model, by the provider field that lists it (`embeddingModels`, `rerankModels`). */
export function modelSourceOf<K extends string>(list: K) {
  return <P extends ModelProviderCandidate & Record<K, readonly string[]>>(
    providers: readonly P[],
    projectModel: string | null | undefined,
    env: ModelEnv | null,
  ): ModelResolution<P> => resolveModelSource(providers, (p) => p[list], projectModel, env);
}
