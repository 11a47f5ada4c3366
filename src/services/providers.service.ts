import type { EntityManager } from '@mikro-orm/postgresql';
import { performance } from 'node:perf_hooks';
import type { Actor } from '../access/actor';
import { gates } from '../access/gates';
import { Provider } from '../entities';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { ApiKeyCipher, ApiKeyDecryptError, maskApiKey } from '../llm/api-key-crypto';
import type { NetworkPolicy } from '../llm/network-guard';
import { completeOnce } from '../llm/openai-client';
import { resolveProvider } from '../llm/resolve-provider';
import { resolveEmbeddingSource } from '../llm/embedding-source';
import { resolveRerankSource } from '../llm/rerank-source';
import { UpstreamError } from '../llm/upstream-http';
import { sameEndpoint } from '../util/net';
import { isUuid } from '../validation';
import { BaseService, ServiceContext } from '../db/service-context';
import type { DeploymentSecrets } from '../auth/deployment-secrets';
import { ChatTarget, EmbeddingTarget, modelTargets, RerankTarget, TargetDeps } from '../llm/provider-targets';
import type { CreateProviderInput, TestProviderInput, UpdateProviderInput } from './providers.inputs';
import { query } from '../db/sql';

/** spec: the provider test times out after 30 seconds. */
export const PROVIDER_TEST_TIMEOUT_MS = 30_000;
/** spec: `sample` is about the first 120 characters of the reply. */
export const SAMPLE_LENGTH = 120;

export type ProviderTestResult =
  { ok: true; latencyMs: number; status: number; sample: string } | { ok: false; latencyMs: number; status: number; error: string };

const ORDER = { createdAt: 'asc', id: 'asc' } as const;

export class ProvidersService extends BaseService {
  /** The provider test's time-out; tests shorten it rather than wait 30 s. */
  testTimeoutMs = PROVIDER_TEST_TIMEOUT_MS;

  constructor(
    ctx: ServiceContext,
    private readonly secrets: DeploymentSecrets,
  ) {
    super(ctx);
  }

  /** Keys are encrypted bound to their provider's origin (see llm/api-key-crypto.ts). */
  private get cipher(): ApiKeyCipher {
    return this.secrets.cipher;
  }

  /** The SSRF policy for calls to provider URLs (stored ones and drafts alike). */
  networkPolicy(): NetworkPolicy {
    return { allowPrivateNetwork: this.config.allowPrivateNetwork, privateHostAllowList: this.config.privateHostAllowList };
  }

  /** GET /providers and /providers/models: enabled providers only (any authenticated caller). */
  async listEnabled(_actor: Actor): Promise<Provider[]> {
    return this.em().find(Provider, { isEnabled: true }, { orderBy: ORDER });
  }

  /** GET /providers/admin: every provider, disabled ones too. Never decrypts (the mask is stored). */
  async listAll(actor: Actor): Promise<Provider[]> {
    gates.requireProviderAdmin(actor);
    return this.em().find(Provider, {}, { orderBy: ORDER });
  }

  async create(actor: Actor, input: CreateProviderInput): Promise<Provider> {
    gates.requireProviderAdmin(actor);
    const isEnabled = input.isEnabled ?? true;
    if (input.isDefault === true && !isEnabled) throw ValidationError.field('isDefault', 'a disabled provider cannot be made the default');
    return this.writeTx(async (em) => {
      await this.assertSlugFree(em, input.slug);
      const currentDefault = await em.findOne(Provider, { isDefault: true });
      // one default whenever any provider exists: the first one created takes it
      const makeDefault = input.isDefault === true || !currentDefault;
      if (makeDefault && currentDefault) await em.nativeUpdate(Provider, { id: currentDefault.id }, { isDefault: false });
      const apiKey = input.apiKey ?? '';
      const p = em.create(Provider, {
        name: input.name,
        slug: input.slug,
        type: input.type ?? 'custom',
        baseUrl: input.baseUrl,
        apiKeyEnc: this.cipher.encrypt(apiKey, input.baseUrl),
        apiKeyMask: maskApiKey(apiKey),
        models: input.models,
        embeddingModels: input.embeddingModels ?? [],
        rerankModels: input.rerankModels ?? [],
        isDefault: makeDefault,
        isEnabled,
      });
      await em.flush();
      return p;
    });
  }

  async update(actor: Actor, id: string, input: UpdateProviderInput): Promise<Provider> {
    gates.requireProviderAdmin(actor);
    return this.writeTx(async (em) => {
      const p = await this.findOr404(em, id);
      if (input.slug !== undefined && input.slug !== p.slug) await this.assertSlugFree(em, input.slug);
      const willBeEnabled = input.isEnabled ?? p.isEnabled;
      if (input.isDefault === true && !willBeEnabled)
        throw ValidationError.field('isDefault', 'a disabled provider cannot be made the default');

      if (input.isDefault === true && !p.isDefault) {
        // the partial unique index allows one default: clear the old one first, in this transaction
        await em.nativeUpdate(Provider, { isDefault: true, id: { $ne: p.id } }, { isDefault: false });
        p.isDefault = true;
      } else if (p.isDefault && (input.isDefault === false || !willBeEnabled)) {
        const successor = await this.oldestEnabledOther(em, p.id);
        if (successor) {
          await em.nativeUpdate(Provider, { id: p.id }, { isDefault: false });
          await em.nativeUpdate(Provider, { id: successor.id }, { isDefault: true });
          p.isDefault = false;
        } else if (input.isDefault === false) {
          throw new ConflictError(
            'default_required',
            'exactly one provider is the default; make another enabled provider the default instead',
          );
        }
        // disabling the only enabled provider keeps it the default (resolution skips a disabled default)
      }

      // the stored key is only ever sent to the endpoint it was entered for: moving the provider in
      // any way — another origin (scheme, host, port) or another path on the same origin, which some
      // gateways use to separate tenants — without a new key drops the stored one (a trailing slash aside)
      const dropKey = input.baseUrl !== undefined && !input.apiKey && !sameEndpoint(input.baseUrl, p.baseUrl);
      if (input.name !== undefined) p.name = input.name;
      if (input.slug !== undefined) p.slug = input.slug;
      if (input.type !== undefined) p.type = input.type;
      if (input.baseUrl !== undefined) p.baseUrl = input.baseUrl;
      if (input.models !== undefined) p.models = input.models;
      if (input.embeddingModels !== undefined) p.embeddingModels = input.embeddingModels;
      if (input.rerankModels !== undefined) p.rerankModels = input.rerankModels;
      if (input.isEnabled !== undefined) p.isEnabled = input.isEnabled;
      // spec: an empty apiKey keeps the stored key (at the same endpoint)
      if (input.apiKey) {
        p.apiKeyEnc = this.cipher.encrypt(input.apiKey, p.baseUrl);
        p.apiKeyMask = maskApiKey(input.apiKey);
      } else if (dropKey) {
        p.apiKeyEnc = '';
        p.apiKeyMask = '';
      }
      await em.flush();
      return p;
    });
  }

  /** DELETE /providers/:id (and POST /providers/:id/delete). The default passes to the oldest enabled provider. */
  async remove(actor: Actor, id: string): Promise<{ id: string }> {
    gates.requireProviderAdmin(actor);
    return this.writeTx(async (em) => {
      const p = await this.findOr404(em, id);
      const successor = p.isDefault
        ? ((await this.oldestEnabledOther(em, p.id)) ?? (await em.findOne(Provider, { id: { $ne: p.id } }, { orderBy: ORDER })))
        : null;
      await em.nativeDelete(Provider, { id: p.id });
      if (successor) await em.nativeUpdate(Provider, { id: successor.id }, { isDefault: true });
      em.clear();
      return { id };
    });
  }

  /**
   * POST /providers/:id/test and /providers/draft/test: one small non-streaming completion.
   * Always answers the success or the failure shape (spec); `status` is 0 when no response came.
   * security: the stored key is only ever sent to the stored baseUrl, so a body that points
   * elsewhere must bring its own key (else 400): the endpoint cannot exfiltrate keys.
   */
  async test(actor: Actor, id: string, input: TestProviderInput): Promise<ProviderTestResult> {
    gates.requireProviderAdmin(actor);
    let baseUrl: string;
    let apiKey = input.apiKey ?? '';
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    if (id === 'draft') {
      if (!input.baseUrl) throw ValidationError.field('baseUrl', 'baseUrl is required to test a draft configuration');
      baseUrl = input.baseUrl;
    } else {
      const p = await this.findOr404(this.em(), id);
      baseUrl = input.baseUrl ?? p.baseUrl;
      if (!apiKey) {
        if (!sameEndpoint(baseUrl, p.baseUrl)) {
          throw ValidationError.field(
            'apiKey',
            'Testing a different baseUrl needs its own apiKey: the stored key is only sent to the stored baseUrl',
          );
        }
        try {
          apiKey = this.cipher.decrypt(p.apiKeyEnc, p.baseUrl);
        } catch (e) {
          if (e instanceof ApiKeyDecryptError) return { ok: false, latencyMs: elapsed(), status: 0, error: e.message };
          throw e;
        }
      }
    }
    try {
      const r = await completeOnce(
        { baseUrl, apiKey, model: input.model, policy: this.networkPolicy() },
        { messages: [{ role: 'user', content: 'This is a connection test. Reply with one short sentence.' }], maxTokens: 64 },
        { timeoutMs: this.testTimeoutMs, signal: this.ctx.shutdown },
      );
      return { ok: true, latencyMs: elapsed(), status: r.status, sample: r.text.trim().slice(0, SAMPLE_LENGTH) };
    } catch (e) {
      if (e instanceof UpstreamError) return { ok: false, latencyMs: elapsed(), status: e.status, error: e.message };
      throw e;
    }
  }

  /**
   * Provider resolution for one chat (the five steps live in llm/resolve-provider.ts). The
   * stored key is decrypted only for the provider chosen.
   */
  async resolveForChat(request: { modelId?: string | null; projectModel?: string | null }): Promise<ChatTarget> {
    const providers = await this.freshEm().find(Provider, { isEnabled: true }, { orderBy: ORDER });
    const r = resolveProvider(providers, request, {
      baseUrl: this.config.llmBaseUrl,
      apiKey: this.config.llmApiKey,
      model: this.config.llmModel,
    });
    if (r.kind === 'none') return { ok: false, step: r.step, reason: r.reason, label: request.modelId ?? request.projectModel ?? '' };
    if (r.kind === 'env') {
      // operator-configured (environment), so outside the SSRF policy
      return { ok: true, step: 5, providerId: null, label: r.model, target: { baseUrl: r.baseUrl, apiKey: r.apiKey, model: r.model } };
    }
    const label = `${r.provider.slug}/${r.model}`;
    let apiKey: string;
    try {
      apiKey = this.cipher.decrypt(r.provider.apiKeyEnc, r.provider.baseUrl);
    } catch (e) {
      if (e instanceof ApiKeyDecryptError) return { ok: false, step: r.step, reason: `Provider "${r.provider.slug}": ${e.message}`, label };
      throw e;
    }
    return {
      ok: true,
      step: r.step,
      providerId: r.provider.id,
      label,
      target: { baseUrl: r.provider.baseUrl, apiKey, model: r.model, policy: this.networkPolicy() },
    };
  }

  /**
   * The embedding source of each project (given its `settings.embeddingModel`, or null), resolved
   * as retrieval/embedding-source.ts describes; null where none is configured or the chosen
   * provider's stored key cannot be decrypted. Keys are decrypted only for the providers chosen.
   */
  async resolveForEmbeddings(projectModels: Array<string | null | undefined>): Promise<Array<EmbeddingTarget | null>> {
    const providers = await this.freshEm().find(Provider, { isEnabled: true }, { orderBy: ORDER });
    return modelTargets(
      this.targetDeps('embeddings'),
      projectModels.map((projectModel) => resolveEmbeddingSource(providers, projectModel, this.config.embedding)),
    );
  }

  /**
   * The reranker of a project (given its `settings.rerankModel`, or null), resolved as
   * retrieval/rerank-source.ts describes; null where none is configured or the chosen provider's
   * stored key cannot be decrypted.
   */
  async resolveForRerank(projectModel: string | null | undefined): Promise<RerankTarget | null> {
    const providers = await this.freshEm().find(Provider, { isEnabled: true }, { orderBy: ORDER });
    return modelTargets(this.targetDeps('reranking'), [resolveRerankSource(providers, projectModel, this.config.rerank)])[0];
  }

  private targetDeps(purpose: string): TargetDeps {
    return { purpose, cipher: this.cipher, logger: this.logger, policy: this.networkPolicy() };
  }

  /** Provider writes are serialized so the one-default rule never races. */
  private writeTx<T>(fn: (em: EntityManager) => Promise<T>): Promise<T> {
    return this.em().transactional(async (em) => {
      await query(em, `select pg_advisory_xact_lock(hashtext('docqa:providers'))`);
      return fn(em);
    });
  }

  private async findOr404(em: EntityManager, id: string): Promise<Provider> {
    const p = isUuid(id) ? await em.findOne(Provider, { id }) : null;
    if (!p) throw new NotFoundError('not_found', 'Provider not found');
    return p;
  }

  private async assertSlugFree(em: EntityManager, slug: string): Promise<void> {
    if (await em.count(Provider, { slug })) throw new ConflictError('slug_exists', `A provider with slug "${slug}" exists`);
  }

  private oldestEnabledOther(em: EntityManager, id: string): Promise<Provider | null> {
    return em.findOne(Provider, { isEnabled: true, id: { $ne: id } }, { orderBy: ORDER });
  }
}
