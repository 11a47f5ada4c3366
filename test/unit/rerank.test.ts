import { ConfigError, loadConfig } from '../../src/config';
import { parseRerank, rerankDocuments } from '../../src/llm/rerank-client';
import { UpstreamError } from '../../src/llm/upstream-http';
import { knownRerankModel, resolveRerankSource } from '../../src/llm/rerank-source';
import { OpenAiStub, startOpenAiStub, stubRerankScore } from '../support/openai-stub';

const base = { NODE_ENV: 'test', JWT_SECRET: 'unit-secret-unit-secret', DATA_DIR: '/tmp/docqa-unit' };

describe('RERANK_* configuration', () => {
  it('is off without RERANK_MODEL, with a 2 s time-out by default', () => {
    const c = loadConfig(base);
    expect(c.rerank).toBeNull();
    expect(c.rerankTimeoutMs).toBe(2000);
  });
  it('uses RERANK_BASE_URL / RERANK_API_KEY with RERANK_MODEL', () => {
    const c = loadConfig({ ...base, RERANK_MODEL: 'bge-reranker', RERANK_BASE_URL: 'http://rr.local/v1/', RERANK_API_KEY: 'k1' });
    expect(c.rerank).toEqual({ baseUrl: 'http://rr.local/v1', apiKey: 'k1', model: 'bge-reranker' });
  });
  it('falls back to LLM_BASE_URL and LLM_API_KEY when only RERANK_MODEL is set', () => {
    const c = loadConfig({ ...base, RERANK_MODEL: 'rr', LLM_BASE_URL: 'http://llm.local/v1', LLM_API_KEY: 'k2' });
    expect(c.rerank).toEqual({ baseUrl: 'http://llm.local/v1', apiKey: 'k2', model: 'rr' });
  });
  it.each([
    [{ RERANK_BASE_URL: 'http://rr.local' }, /RERANK_MODEL is required/],
    [{ RERANK_MODEL: 'rr' }, /RERANK_MODEL needs RERANK_BASE_URL/],
    [{ RERANK_MODEL: 'rr', RERANK_BASE_URL: 'ftp://x' }, /RERANK_BASE_URL must be a URL/],
    [{ RERANK_TIMEOUT_MS: '10' }, /RERANK_TIMEOUT_MS/],
  ])('rejects %j', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });
});

describe('parseRerank', () => {
  it('reads the Cohere shape and sorts best first whatever the listed order', () => {
    const body = JSON.stringify({
      id: 'x',
      results: [
        { index: 2, relevance_score: 0.1, document: { text: 'c' } },
        { index: 0, relevance_score: 0.9 },
        { index: 1, relevance_score: 0.5 },
      ],
      meta: { billed_units: { search_units: 1 } },
    });
    expect(parseRerank(body, 3)).toEqual([
      { index: 0, score: 0.9 },
      { index: 1, score: 0.5 },
      { index: 2, score: 0.1 },
    ]);
  });
  it("reads text-embeddings-inference's bare list with `score`, and a `data` list", () => {
    expect(
      parseRerank(
        JSON.stringify([
          { index: 1, score: -2.5 },
          { index: 0, score: 3 },
        ]),
        2,
      ),
    ).toEqual([
      { index: 0, score: 3 },
      { index: 1, score: -2.5 },
    ]);
    expect(parseRerank(JSON.stringify({ data: [{ index: 0, relevance_score: 0.2 }] }), 4)).toEqual([{ index: 0, score: 0.2 }]);
  });
  it('breaks ties by index', () => {
    const body = JSON.stringify({
      results: [
        { index: 3, relevance_score: 1 },
        { index: 1, relevance_score: 1 },
      ],
    });
    expect(parseRerank(body, 4).map((r) => r.index)).toEqual([1, 3]);
  });
  it.each([
    ['not JSON', 'oops', /not JSON/],
    ['no list', JSON.stringify({ answer: [] }), /no results array/],
    ['an index out of range', JSON.stringify({ results: [{ index: 2, relevance_score: 1 }] }), /bad or repeated index 2/],
    [
      'a repeated index',
      JSON.stringify({
        results: [
          { index: 0, relevance_score: 1 },
          { index: 0, relevance_score: 0.5 },
        ],
      }),
      /bad or repeated index 0/,
    ],
    ['a non-integer index', JSON.stringify({ results: [{ index: '0', relevance_score: 1 }] }), /bad or repeated index "0"/],
    ['a missing score', JSON.stringify({ results: [{ index: 0 }] }), /no numeric score/],
    ['a non-numeric score', JSON.stringify({ results: [{ index: 0, relevance_score: 'high' }] }), /no numeric score/],
    [
      'more results than documents',
      JSON.stringify({
        results: [
          { index: 0, relevance_score: 1 },
          { index: 1, relevance_score: 1 },
          { index: 0, relevance_score: 1 },
        ],
      }),
      /3 results for 2 documents/,
    ],
  ])('refuses %s', (_what, body, message) => {
    expect(() => parseRerank(body, 2)).toThrow(UpstreamError);
    expect(() => parseRerank(body, 2)).toThrow(message);
  });
});

describe('resolveRerankSource and knownRerankModel', () => {
  const at = (n: number) => new Date(2026, 0, n);
  const providers = [
    { id: 'a', slug: 'cohere', rerankModels: ['rerank-v3.5'], isDefault: false, isEnabled: true, createdAt: at(1) },
    { id: 'b', slug: 'local', rerankModels: ['BAAI/bge-reranker-base', 'mini'], isDefault: true, isEnabled: true, createdAt: at(2) },
    { id: 'c', slug: 'off', rerankModels: ['off-model'], isDefault: false, isEnabled: false, createdAt: at(0) },
  ];
  const env = { baseUrl: 'http://env.local', apiKey: 'k', model: 'env-rr' };

  it('project setting → default provider → environment → none', () => {
    expect(resolveRerankSource(providers, 'cohere/rerank-v3.5', env)).toMatchObject({
      kind: 'provider',
      step: 1,
      key: 'cohere/rerank-v3.5',
    });
    expect(resolveRerankSource(providers, 'BAAI/bge-reranker-base', env)).toMatchObject({
      kind: 'provider',
      step: 1,
      key: 'local/BAAI/bge-reranker-base',
    });
    expect(resolveRerankSource(providers, 'unlisted', env)).toMatchObject({ kind: 'env', step: 1, model: 'unlisted' });
    expect(resolveRerankSource(providers, null, env)).toMatchObject({ kind: 'provider', step: 2, key: 'local/BAAI/bge-reranker-base' });
    const noDefault = providers.map((p) => ({ ...p, isDefault: false }));
    expect(resolveRerankSource(noDefault, null, env)).toMatchObject({ kind: 'env', step: 3, model: 'env-rr' });
    expect(resolveRerankSource(noDefault, null, null)).toEqual({ kind: 'none' });
    // a disabled provider is never used
    expect(resolveRerankSource(noDefault, 'off/off-model', null)).toEqual({ kind: 'none' });
  });

  it('knows listed models, slug/model pairs and RERANK_MODEL; nothing else', () => {
    expect(knownRerankModel(providers, 'cohere/rerank-v3.5', null)).toBe(true);
    expect(knownRerankModel(providers, 'mini', null)).toBe(true);
    expect(knownRerankModel(providers, 'BAAI/bge-reranker-base', null)).toBe(true);
    expect(knownRerankModel(providers, 'off/off-model', null)).toBe(true);
    expect(knownRerankModel(providers, 'env-rr', env)).toBe(true);
    expect(knownRerankModel(providers, 'cohere/mini', null)).toBe(false);
    expect(knownRerankModel(providers, 'nope', env)).toBe(false);
    expect(knownRerankModel(providers, ' ', env)).toBe(false);
  });
});

describe('rerankDocuments against the stub', () => {
  let stub: OpenAiStub;
  beforeAll(async () => {
    stub = await startOpenAiStub();
  });
  afterAll(() => stub.close());
  beforeEach(() => stub.reset());

  const target = () => ({ baseUrl: stub.url, apiKey: 'sk-rr', model: 'rr-1' });
  const docs = ['apples and pears', 'pears, apples and plums', 'nothing relevant here'];

  it('sends {model, query, documents, top_n} with the key and returns the best top_n', async () => {
    const r = await rerankDocuments(target(), 'apples pears plums', docs, { timeoutMs: 5000, topN: 2 });
    expect(r).toEqual([
      { index: 1, score: 1 },
      { index: 0, score: stubRerankScore('apples pears plums', docs[0]) },
    ]);
    expect(stub.rerankRequests).toEqual([
      { model: 'rr-1', query: 'apples pears plums', documents: docs, topN: 2, authorization: 'Bearer sk-rr', status: 200 },
    ]);
  });

  it("speaks text-embeddings-inference's native {query, texts} form after its 422, and remembers it", async () => {
    stub.setRerank({ native: true });
    // an endpoint of its own: the client remembers the form per endpoint for the whole process
    const tei = { ...target(), baseUrl: `${stub.url}/tei` };
    const r = await rerankDocuments(tei, 'plums', docs, { timeoutMs: 5000, topN: 1 });
    expect(r).toEqual([{ index: 1, score: 1 }]);
    expect(stub.rerankRequests.map((x) => x.status)).toEqual([422, 200]);
    await rerankDocuments(tei, 'plums', docs, { timeoutMs: 5000 });
    expect(stub.rerankRequests.map((x) => x.status)).toEqual([422, 200, 200]);
  });

  it('describes an upstream failure and a time-out as UpstreamError', async () => {
    stub.onceRerank({ status: 500 });
    await expect(rerankDocuments(target(), 'q', docs, { timeoutMs: 5000 })).rejects.toMatchObject({ name: 'UpstreamError', status: 500 });
    stub.onceRerank({ delayMs: 1000 });
    await expect(rerankDocuments(target(), 'q', docs, { timeoutMs: 100 })).rejects.toThrow(/timed out after 100 ms/);
  });
});
