import { ProviderCandidate, resolveProvider } from '../../src/llm/resolve-provider';

/** Providers in creation order (createdAt one second apart); `slug` doubles as a readable id. */
function providers(...specs: Array<Partial<ProviderCandidate> & { slug: string }>): ProviderCandidate[] {
  return specs.map((s, i) => ({
    id: `id-${s.slug}`,
    models: ['m'],
    isDefault: false,
    isEnabled: true,
    createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, i)),
    ...s,
  }));
}
const env = { baseUrl: 'http://env.example/v1', apiKey: 'env-key', model: 'env-model' };
const noEnv = { baseUrl: null, apiKey: '', model: null };
const pick = (r: ReturnType<typeof resolveProvider>) =>
  r.kind === 'provider' ? { step: r.step, slug: r.provider.slug, model: r.model } : r;

describe('provider resolution (spec: five steps, first match wins)', () => {
  const list = providers(
    { slug: 'alpha', models: ['a1', 'shared'] },
    { slug: 'beta', models: ['b1', 'shared', 'org/model-x'], isDefault: true },
    { slug: 'gamma', models: ['g1'], isEnabled: false },
  );

  describe('step 1: <provider_slug>/<model_name>', () => {
    it('uses the provider with that slug and that model', () => {
      expect(pick(resolveProvider(list, { modelId: 'alpha/a1' }, env))).toEqual({ step: 1, slug: 'alpha', model: 'a1' });
    });
    it('uses the model even when the provider does not list it', () => {
      expect(pick(resolveProvider(list, { modelId: 'alpha/unlisted' }, env))).toEqual({ step: 1, slug: 'alpha', model: 'unlisted' });
    });
    it('a disabled provider is no match (falls through to the default)', () => {
      expect(pick(resolveProvider(list, { modelId: 'gamma/g1' }, env))).toEqual({ step: 3, slug: 'beta', model: 'b1' });
    });
    it('an unknown slug is read as a bare name (model names may contain a slash)', () => {
      expect(pick(resolveProvider(list, { modelId: 'org/model-x' }, env))).toEqual({ step: 2, slug: 'beta', model: 'org/model-x' });
    });
  });

  describe('step 2: bare <model_name>', () => {
    it('the first enabled provider by createdAt that lists the model', () => {
      expect(pick(resolveProvider(list, { modelId: 'shared' }, env))).toEqual({ step: 2, slug: 'alpha', model: 'shared' });
      expect(pick(resolveProvider(list, { modelId: 'b1' }, env))).toEqual({ step: 2, slug: 'beta', model: 'b1' });
    });
    it('order is by createdAt, not by the order given', () => {
      expect(pick(resolveProvider([...list].reverse(), { modelId: 'shared' }, env))).toEqual({ step: 2, slug: 'alpha', model: 'shared' });
    });
    it('disabled providers are skipped', () => {
      expect(pick(resolveProvider(list, { modelId: 'g1' }, env))).toEqual({ step: 3, slug: 'beta', model: 'b1' });
    });
  });

  describe("the project's settings.model is read like a modelId", () => {
    it('used when no modelId is given', () => {
      expect(pick(resolveProvider(list, { projectModel: 'alpha/a1' }, env))).toEqual({ step: 1, slug: 'alpha', model: 'a1' });
      expect(pick(resolveProvider(list, { projectModel: 'a1' }, env))).toEqual({ step: 2, slug: 'alpha', model: 'a1' });
    });
    it('the modelId wins over it', () => {
      expect(pick(resolveProvider(list, { modelId: 'b1', projectModel: 'a1' }, env))).toEqual({ step: 2, slug: 'beta', model: 'b1' });
    });
    it('tried when the modelId matches nothing', () => {
      expect(pick(resolveProvider(list, { modelId: 'nobody-has-this', projectModel: 'a1' }, env))).toEqual({
        step: 2,
        slug: 'alpha',
        model: 'a1',
      });
    });
  });

  describe('step 3: the default provider', () => {
    it('no modelId → the default with its first model', () => {
      expect(pick(resolveProvider(list, {}, env))).toEqual({ step: 3, slug: 'beta', model: 'b1' });
    });
    it('no match → the default', () => {
      expect(pick(resolveProvider(list, { modelId: 'unknown' }, env))).toEqual({ step: 3, slug: 'beta', model: 'b1' });
    });
    it('only while the default is enabled', () => {
      const l = providers({ slug: 'old', models: ['o1'] }, { slug: 'def', isDefault: true, isEnabled: false });
      expect(pick(resolveProvider(l, {}, env))).toEqual({ step: 4, slug: 'old', model: 'o1' });
    });
  });

  describe('step 4: no default → the oldest enabled provider', () => {
    it('first by createdAt', () => {
      const l = providers({ slug: 'off', isEnabled: false }, { slug: 'first', models: ['f1', 'f2'] }, { slug: 'second' });
      expect(pick(resolveProvider([...l].reverse(), {}, env))).toEqual({ step: 4, slug: 'first', model: 'f1' });
    });
  });

  describe('step 5: no providers → the environment', () => {
    it('LLM_BASE_URL, LLM_API_KEY and LLM_MODEL', () => {
      expect(resolveProvider([], {}, env)).toEqual({ kind: 'env', step: 5, baseUrl: env.baseUrl, apiKey: 'env-key', model: 'env-model' });
    });
    it('only disabled providers count as none', () => {
      expect(resolveProvider(providers({ slug: 'x', isEnabled: false }), {}, env).kind).toBe('env');
    });
    it('a modelId (or settings.model) names the model instead of LLM_MODEL', () => {
      expect(resolveProvider([], { modelId: 'gpt-x' }, env)).toEqual(expect.objectContaining({ kind: 'env', model: 'gpt-x' }));
      expect(resolveProvider([], { projectModel: 'gpt-y' }, env)).toEqual(expect.objectContaining({ kind: 'env', model: 'gpt-y' }));
    });
    it('the empty key is passed on as empty (the upstream then refuses)', () => {
      expect(resolveProvider([], {}, { ...env, apiKey: '' })).toEqual(expect.objectContaining({ kind: 'env', apiKey: '' }));
    });
    it('nothing at all → none, with a reason', () => {
      expect(resolveProvider([], {}, noEnv)).toEqual({ kind: 'none', step: 5, reason: expect.stringMatching(/LLM_BASE_URL/) });
      expect(resolveProvider([], {}, { ...env, model: null })).toEqual({
        kind: 'none',
        step: 5,
        reason: expect.stringMatching(/LLM_MODEL/),
      });
    });
  });
});
