import type { Provider } from '../entities';
import { ApiKeyCipher, ApiKeyDecryptError } from './api-key-crypto';
import type { NetworkPolicy } from './network-guard';
import type { UpstreamTarget } from './openai-client';
import type { Logger } from '../logger';
import type { ModelResolution } from './model-source';

/** Where a chat's completion goes, or why nothing could be resolved (→ LLM_API_ERROR). */
export type ChatTarget =
  | { ok: true; step: 1 | 2 | 3 | 4 | 5; target: UpstreamTarget; providerId: string | null; label: string }
  | { ok: false; step: number; reason: string; label: string };

/** An embedding model to call, and the key its vectors are stored under. */
export interface EmbeddingTarget {
  key: string;
  target: UpstreamTarget;
}

/** A reranker to call; `key` (`slug/model`, or the bare RERANK_MODEL) names it in logs and its back-off. */
export type RerankTarget = EmbeddingTarget;

export interface TargetDeps {
  /** What the model is for, in log lines (`embeddings`, `reranking`). */
  purpose: string;
  cipher: ApiKeyCipher;
  logger: Logger;
  /** The SSRF policy for provider URLs. */
  policy: NetworkPolicy;
}

/**
 * Resolved model sources → targets. Keys are decrypted by the path chat uses, once per provider
 * chosen; a key that cannot be decrypted gives null (logged). Provider URLs get the SSRF policy;
 * the environment's are operator-configured, so outside it, as chat's LLM_BASE_URL.
 */
export function modelTargets(deps: TargetDeps, resolutions: Array<ModelResolution<Provider>>): Array<EmbeddingTarget | null> {
  const keys = new Map<string, string | null>();
  return resolutions.map((r) => {
    if (r.kind === 'none') return null;
    if (r.kind === 'env') return { key: r.key, target: { baseUrl: r.baseUrl, apiKey: r.apiKey, model: r.model } };
    let apiKey = keys.get(r.provider.id);
    if (apiKey === undefined) {
      try {
        apiKey = deps.cipher.decrypt(r.provider.apiKeyEnc, r.provider.baseUrl);
      } catch (e) {
        if (!(e instanceof ApiKeyDecryptError)) throw e;
        deps.logger.warn({ provider: r.provider.slug }, `${deps.purpose}: ${e.message}`);
        apiKey = null;
      }
      keys.set(r.provider.id, apiKey);
    }
    if (apiKey === null) return null;
    return { key: r.key, target: { baseUrl: r.provider.baseUrl, apiKey, model: r.model, policy: deps.policy } };
  });
}
