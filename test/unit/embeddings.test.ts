import { ConfigError, loadConfig } from '../../src/config';
import { embedTexts, parseEmbeddings } from '../../src/llm/embeddings-client';
import { UpstreamError } from '../../src/llm/upstream-http';
import { resolveEmbeddingSource } from '../../src/llm/embedding-source';
import { EQUAL_RRF, fuseRankings, reciprocalRankFusion } from '../../src/search/fusion';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';

const base = { NODE_ENV: 'test', JWT_SECRET: 'unit-secret-unit-secret', DATA_DIR: '/tmp/docqa-unit' };

describe('EMBEDDING_* configuration', () => {
  it('is off without EMBEDDING_MODEL', () => {
    expect(loadConfig(base).embedding).toBeNull();
  });
  it('uses EMBEDDING_BASE_URL / EMBEDDING_API_KEY with EMBEDDING_MODEL', () => {
    const c = loadConfig({
      ...base,
      EMBEDDING_MODEL: 'e5',
      EMBEDDING_BASE_URL: 'http://emb.local/v1/',
      EMBEDDING_API_KEY: 'k1',
      LLM_BASE_URL: 'http://llm.local/v1',
      LLM_API_KEY: 'k2',
    });
    expect(c.embedding).toEqual({ baseUrl: 'http://emb.local/v1', apiKey: 'k1', model: 'e5' });
  });
  it('falls back to LLM_BASE_URL and LLM_API_KEY when only EMBEDDING_MODEL is set', () => {
    const c = loadConfig({ ...base, EMBEDDING_MODEL: 'e5', LLM_BASE_URL: 'http://llm.local/v1', LLM_API_KEY: 'k2' });
    expect(c.embedding).toEqual({ baseUrl: 'http://llm.local/v1', apiKey: 'k2', model: 'e5' });
  });
  it('does not send the LLM key to a separate EMBEDDING_BASE_URL', () => {
    const c = loadConfig({
      ...base,
      EMBEDDING_MODEL: 'e5',
      EMBEDDING_BASE_URL: 'http://emb.local',
      LLM_BASE_URL: 'http://llm.local/v1',
      LLM_API_KEY: 'k2',
    });
    expect(c.embedding?.apiKey).toBe('');
  });
  it.each([
    [{ EMBEDDING_BASE_URL: 'http://emb.local' }, /EMBEDDING_MODEL is required/],
    [{ EMBEDDING_API_KEY: 'k' }, /EMBEDDING_MODEL is required/],
    [{ EMBEDDING_MODEL: 'e5' }, /EMBEDDING_BASE_URL \(or LLM_BASE_URL\)/],
    [{ EMBEDDING_MODEL: 'e5', EMBEDDING_BASE_URL: 'ftp://x' }, /EMBEDDING_BASE_URL must be a URL/],
    [{ EMBEDDING_BATCH_SIZE: '0' }, /EMBEDDING_BATCH_SIZE must be between/],
    [{ EMBEDDING_QUERY_TIMEOUT_MS: 'soon' }, /EMBEDDING_QUERY_TIMEOUT_MS must be an integer/],
  ])('refuses %j with one line naming the variable', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });
});

describe('embedding source resolution', () => {
  const at = (n: number) => new Date(2026, 0, n);
  const providers = [
    { id: 'a', slug: 'openai', embeddingModels: ['text-embedding-3-small'], isDefault: false, isEnabled: true, createdAt: at(1) },
    { id: 'b', slug: 'local', embeddingModels: ['bge-small', 'BAAI/bge-m3'], isDefault: true, isEnabled: true, createdAt: at(2) },
    { id: 'c', slug: 'off', embeddingModels: ['x'], isDefault: false, isEnabled: false, createdAt: at(0) },
  ];
  const env = { baseUrl: 'http://env/v1', apiKey: 'ek', model: 'env-model' };
  it('1. the project setting, slug/model', () => {
    expect(resolveEmbeddingSource(providers, 'openai/text-embedding-3-large', env)).toMatchObject({
      kind: 'provider',
      step: 1,
      provider: { id: 'a' },
      model: 'text-embedding-3-large',
      key: 'openai/text-embedding-3-large',
    });
  });
  it('1. the project setting, a bare name listed by a provider (slashes allowed)', () => {
    expect(resolveEmbeddingSource(providers, 'BAAI/bge-m3', env)).toMatchObject({
      kind: 'provider',
      provider: { id: 'b' },
      model: 'BAAI/bge-m3',
      key: 'local/BAAI/bge-m3',
    });
  });
  it('1. a bare name nobody lists goes to the environment URL with that model', () => {
    expect(resolveEmbeddingSource(providers, 'nomic-embed', env)).toEqual({
      kind: 'env',
      step: 1,
      baseUrl: 'http://env/v1',
      apiKey: 'ek',
      model: 'nomic-embed',
      key: 'nomic-embed',
    });
    expect(resolveEmbeddingSource(providers, 'nomic-embed', null)).toMatchObject({ kind: 'provider', step: 2, provider: { id: 'b' } });
  });
  it('a disabled provider is never used', () => {
    expect(resolveEmbeddingSource(providers, 'off/x', null)).toMatchObject({ step: 2, provider: { id: 'b' } });
  });
  it("2. the default provider's first embedding model", () => {
    expect(resolveEmbeddingSource(providers, null, env)).toMatchObject({
      kind: 'provider',
      step: 2,
      provider: { id: 'b' },
      model: 'bge-small',
      key: 'local/bge-small',
    });
  });
  it('3. the environment when the default lists none; 4. none', () => {
    const noDefault = providers.map((p) => ({ ...p, embeddingModels: p.id === 'b' ? [] : p.embeddingModels }));
    expect(resolveEmbeddingSource(noDefault, undefined, env)).toMatchObject({ kind: 'env', step: 3, model: 'env-model', key: 'env-model' });
    expect(resolveEmbeddingSource(noDefault, undefined, null)).toEqual({ kind: 'none' });
    expect(resolveEmbeddingSource([], '  ', null)).toEqual({ kind: 'none' });
  });
});

describe('reciprocal rank fusion', () => {
  const r = (...ids: string[]) => ids.map((id, i) => ({ id, score: 10 - i }));
  it('ranks what both lists hold first, then by rank; cuts to the limit', () => {
    const fused = reciprocalRankFusion([r('a', 'b', 'c'), r('x', 'b', 'a')], 3);
    expect(fused.map((f) => f.id)).toEqual(['a', 'b', 'x']);
    expect(fused[0].score).toBeCloseTo(1 / 61 + 1 / 63, 10);
  });
  it('with one list keeps its order', () => {
    expect(reciprocalRankFusion([r('c', 'a', 'b'), []], 5).map((f) => f.id)).toEqual(['c', 'a', 'b']);
  });
  it('breaks ties by the lexical list first', () => {
    expect(reciprocalRankFusion([r('l'), r('v')], 2).map((f) => f.id)).toEqual(['l', 'v']);
  });
});

describe('embeddings client against the stub', () => {
  let stub: OpenAiStub;
  beforeAll(async () => {
    stub = await startOpenAiStub();
  });
  afterAll(() => stub.close());
  beforeEach(() => stub.reset());
  const target = () => ({ baseUrl: stub.url, apiKey: 'sk-e', model: 'm1' });

  it('sends batches of inputs and places vectors by index', async () => {
    const inputs = ['alpha', 'beta gamma', 'delta', 'epsilon', 'zeta'];
    const r = await embedTexts(target(), inputs, { timeoutMs: 5000, batchSize: 2 });
    expect(stub.embeddingRequests.map((q) => q.input)).toEqual([['alpha', 'beta gamma'], ['delta', 'epsilon'], ['zeta']]);
    expect(stub.embeddingRequests.every((q) => q.model === 'm1' && q.authorization === 'Bearer sk-e')).toBe(true);
    r.vectors.forEach((v, i) => expect(Array.from(v)).toEqual(stub.embed(inputs[i], 'm1')));
    expect(r.totalTokens).toBeGreaterThan(0);
  });

  it('retries 429 and 5xx with backoff, then succeeds', async () => {
    stub.onceEmbeddings({ status: 429 });
    stub.onceEmbeddings({ status: 503 });
    const r = await embedTexts(target(), ['x'], { timeoutMs: 5000, retries: 3, retryBaseMs: 10 });
    expect(r.vectors).toHaveLength(1);
    expect(stub.embeddingRequests.map((q) => q.status)).toEqual([429, 503, 200]);
  });

  it('does not retry a 401 and says why', async () => {
    stub.setEmbeddings({ requireKey: 'other' });
    await expect(embedTexts(target(), ['x'], { timeoutMs: 5000, retries: 3, retryBaseMs: 10 })).rejects.toThrow(/HTTP 401/);
    expect(stub.embeddingRequests).toHaveLength(1);
  });

  it('times out a slow embedder', async () => {
    stub.setEmbeddings({ delayMs: 1000 });
    const t0 = Date.now();
    await expect(embedTexts(target(), ['x'], { timeoutMs: 100 })).rejects.toThrow(/timed out after 100 ms/);
    expect(Date.now() - t0).toBeLessThan(900);
  });

  it('reports a dropped connection as a network failure (status 0)', async () => {
    stub.setEmbeddings({ drop: true });
    const e = await embedTexts(target(), ['x'], { timeoutMs: 2000 }).catch((x) => x);
    expect(e).toBeInstanceOf(UpstreamError);
    expect(e.status).toBe(0);
  });

  it('refuses malformed answers', () => {
    expect(() => parseEmbeddings('nope', 1)).toThrow(/not JSON/);
    expect(() => parseEmbeddings(JSON.stringify({ data: [] }), 1)).toThrow(/0 vectors for 1 inputs/);
    expect(() => parseEmbeddings(JSON.stringify({ data: [{ index: 0, embedding: [1, 'x'] }] }), 1)).toThrow(/non-number/);
    expect(() =>
      parseEmbeddings(
        JSON.stringify({
          data: [
            { index: 0, embedding: [1] },
            { index: 0, embedding: [2] },
          ],
        }),
        2,
      ),
    ).toThrow(/repeated index/);
    expect(() =>
      parseEmbeddings(
        JSON.stringify({
          data: [
            { index: 0, embedding: [1] },
            { index: 1, embedding: [2, 3] },
          ],
        }),
        2,
      ),
    ).toThrow(/different lengths/);
  });
});

describe('measured fusion (DEFAULT_FUSION) against equal-weight RRF', () => {
  const lex = (...xs: Array<[string, number]>) => xs.map(([id, score]) => ({ id, score }));
  it('a clear lexical leader (an exact, rare match) is not outvoted by a weak semantic neighbour', () => {
    const lexical = lex(['exact', 12], ['near', 5], ['other', 4]);
    const vector = lex(['near', 0.9], ['other', 0.8], ['neighbour', 0.7], ['exact', 0.3]);
    expect(fuseRankings(lexical, vector, 3, EQUAL_RRF)[0].id).toBe('near'); // what equal RRF did
    expect(fuseRankings(lexical, vector, 3).map((r) => r.id)).toEqual(['exact', 'near', 'other']);
  });
  it('when the lexical ranking is unsure, the vectors decide', () => {
    const lexical = lex(['a', 5], ['b', 4.95], ['c', 4]);
    const vector = lex(['b', 0.9], ['c', 0.5], ['a', 0.4]);
    expect(fuseRankings(lexical, vector, 3)[0].id).toBe('b');
  });
  it('a vector-only neighbour (a passage sharing no word with the question) enters the list, under the lexical ones', () => {
    const lexical = lex(['a', 8], ['b', 3], ['c', 2]);
    const vector = lex(['v', 0.9], ['b', 0.6], ['a', 0.5]);
    expect(fuseRankings(lexical, vector, 3).map((r) => r.id)).toEqual(['a', 'b', 'v']);
  });
});

describe('the lexical lead rule (FusionParams.lexicalLeadRatio)', () => {
  it('keeps a BM25 leader that clearly beats the runner-up first, whatever the vectors say', () => {
    const lexical = [
      { id: 'exact', score: 12 },
      { id: 'near', score: 5 },
    ];
    const vector = [
      { id: 'near', score: 0.9 },
      { id: 'exact', score: 0.1 },
    ];
    const params = { method: 'minmax' as const, k: 60, lexicalWeight: 1, vectorWeight: 2, lexicalLeadRatio: 1.2 };
    expect(fuseRankings(lexical, vector, 2, { ...params, lexicalLeadRatio: 0 })[0].id).toBe('near');
    expect(fuseRankings(lexical, vector, 2, params)[0].id).toBe('exact');
  });
});
