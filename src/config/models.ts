import { ConfigError, type Env, str, url } from './env';

/** A model endpoint as configured (`EMBEDDING_*`, `RERANK_*`); with only its MODEL set, the LLM_* URL and key. */
export interface ModelEnv {
  baseUrl: string;
  apiKey: string;
  model: string;
}
/** `EMBEDDING_*` as configured. */
export type EmbeddingEnv = ModelEnv;
/** `RERANK_*` as configured. */
export type RerankEnv = ModelEnv;

/**
 * `<PREFIX>_MODEL`, `<PREFIX>_BASE_URL`, `<PREFIX>_API_KEY`: null when no model is named. Spec: with
 * only the model set, the language model's URL and key are used.
 */
export function modelEnv(env: Env, prefix: 'EMBEDDING' | 'RERANK'): ModelEnv | null {
  const model = str(env, `${prefix}_MODEL`);
  const baseUrl = url(env, `${prefix}_BASE_URL`);
  const apiKey = str(env, `${prefix}_API_KEY`);
  if (model === undefined) {
    if (baseUrl || apiKey) throw new ConfigError(`${prefix}_MODEL is required when ${prefix}_BASE_URL or ${prefix}_API_KEY is set`);
    return null;
  }
  if (model.length > 200) throw new ConfigError(`${prefix}_MODEL must be at most 200 characters`);
  const resolvedUrl = baseUrl ?? url(env, 'LLM_BASE_URL');
  if (!resolvedUrl) throw new ConfigError(`${prefix}_MODEL needs ${prefix}_BASE_URL (or LLM_BASE_URL)`);
  return { baseUrl: resolvedUrl, apiKey: baseUrl ? (apiKey ?? '') : (apiKey ?? str(env, 'LLM_API_KEY') ?? ''), model };
}
