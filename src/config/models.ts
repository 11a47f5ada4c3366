import { ConfigError, type Env, int, oneOf, str, url } from './env';

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

/** Embeddings, the vector index and the reranker, as configured (EMBEDDING_*, VECTOR_*, RERANK_*). */
export interface SearchEnv {
  /** Environment embedding source (used when no provider lists an embedding model); null when EMBEDDING_MODEL is unset. */
  embedding: EmbeddingEnv | null;
  /** Inputs per `POST /embeddings` request. */
  embeddingBatchSize: number;
  /** Time-out of one embeddings request during ingestion. */
  embeddingTimeoutMs: number;
  /** Time-out of embedding a question at query time (then retrieval is lexical for that question). */
  embeddingQueryTimeoutMs: number;
  /** Retries of a failed embedding job (exponential backoff from the delay). */
  embeddingRetryLimit: number;
  embeddingRetryDelaySeconds: number;
  /** How often chunks without a vector of their project's current model are looked for. */
  embeddingSweepSeconds: number;
  /** Memory for vector indexes (portable path) per process. */
  embeddingCacheMb: number;
  /** A (project, model) with fewer vectors is searched exactly; past it, through an HNSW graph (portable path). */
  vectorExactBelow: number;
  /** How the HNSW graph holds vectors: f32, f16 or i8 (portable path). */
  vectorQuantization: 'f32' | 'f16' | 'i8';
  /** Environment reranker (used when neither the project nor the default provider names one); null when RERANK_MODEL is unset. */
  rerank: RerankEnv | null;
  /** Time-out of one `POST /rerank` call (then the fused order stands for that question). */
  rerankTimeoutMs: number;
}

/** The search settings of the configuration (src/config/index.ts). */
export function searchEnv(env: Env): SearchEnv {
  return {
    embedding: modelEnv(env, 'EMBEDDING'),
    embeddingBatchSize: int(env, 'EMBEDDING_BATCH_SIZE', 64, 1, 2048),
    embeddingTimeoutMs: int(env, 'EMBEDDING_TIMEOUT_MS', 60_000, 100, 600_000),
    embeddingQueryTimeoutMs: int(env, 'EMBEDDING_QUERY_TIMEOUT_MS', 2000, 50, 60_000),
    embeddingRetryLimit: int(env, 'EMBEDDING_RETRY_LIMIT', 8, 0, 100),
    embeddingRetryDelaySeconds: int(env, 'EMBEDDING_RETRY_DELAY_SECONDS', 10, 0, 3600),
    embeddingSweepSeconds: int(env, 'EMBEDDING_SWEEP_SECONDS', 60, 1, 86_400),
    embeddingCacheMb: int(env, 'EMBEDDING_CACHE_MB', 512, 0, 65_536),
    vectorExactBelow: int(env, 'VECTOR_EXACT_BELOW', 20_000, 0, 100_000_000),
    vectorQuantization: oneOf(env, 'VECTOR_QUANTIZATION', ['f16', 'f32', 'i8'] as const),
    rerank: modelEnv(env, 'RERANK'),
    rerankTimeoutMs: int(env, 'RERANK_TIMEOUT_MS', 2000, 50, 60_000),
  };
}
