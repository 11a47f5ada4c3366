import { modelSourceOf } from './model-source';

/**
 * Where a project's embedding model comes from (DESIGN §8; resolveModelSource), first match wins:
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
export const resolveEmbeddingSource = modelSourceOf('embeddingModels');
