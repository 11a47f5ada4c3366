import { modelSourceOf } from './model-source';
import type { RerankEnv } from '../config';

/**
 * Where a project's reranker comes from (DESIGN §9), first match wins, as for embeddings
 * (embedding-source.ts):
 *  1. the project's `settings.rerankModel`: `<slug>/<model>` names an enabled provider and one of
 *     its `rerankModels`; a bare name is the first enabled provider (by age) listing it in
 *     `rerankModels`, else the environment's URL with that model when one is configured;
 *  2. the default provider (while enabled): its first `rerankModels` entry;
 *  3. the environment: RERANK_BASE_URL / RERANK_API_KEY / RERANK_MODEL;
 *  4. none: the fused order stands.
 * `key` names the reranker in logs and in the back-off after a failure.
 */
export const resolveRerankSource = modelSourceOf('rerankModels');

/**
 * Whether `settings.rerankModel` names a reranker a provider lists (any provider, enabled or not:
 * one may be disabled for a while) or the environment's RERANK_MODEL: `<slug>/<model>` with the
 * model in that provider's `rerankModels`, or a bare name some provider lists.
 */
export function knownRerankModel(
  providers: ReadonlyArray<{ slug: string; rerankModels: readonly string[] }>,
  name: string,
  env: RerankEnv | null,
): boolean {
  const pinned = name.trim();
  if (!pinned) return false;
  if (env && env.model === pinned) return true;
  const slash = pinned.indexOf('/');
  if (slash > 0) {
    const provider = providers.find((p) => p.slug === pinned.slice(0, slash));
    if (provider?.rerankModels.includes(pinned.slice(slash + 1).trim())) return true;
  }
  return providers.some((p) => p.rerankModels.includes(pinned));
}
