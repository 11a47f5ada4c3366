import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger';
import { startMetricsServer } from '../../src/transports/http/metrics';
import { createMetrics } from '../../src/observability/metrics';
import { uploadFiles, waitForDocument } from '../support/documents';
import { chatFactories, factories } from '../support/factories';
import { api } from '../support/http';
import { OpenAiStub, startOpenAiStub } from '../support/openai-stub';
import { MetricFamily, parseMetrics, sample } from '../support/prometheus';
import { postSse } from '../support/sse-client';
import { createTestApp, TestApp } from '../support/test-app';

const TOKEN = 'metrics-token-0123456789';
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

let t: TestApp;
let stub: OpenAiStub;
let logText = '';
let f: ReturnType<typeof factories>;

const scrape = async (token: string | null = TOKEN, app: TestApp = t) => {
  const res = await fetch(`${app.baseUrl}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
};
const families = async (app: TestApp = t) => parseMetrics((await scrape(TOKEN, app)).text);
const logLines = () =>
  logText
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  stub = await startOpenAiStub({ deltas: ['The warranty ', 'lasts five years [1].'] });
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logText += chunk.toString();
      cb();
    },
  });
  t = await createTestApp({
    env: { METRICS_TOKEN: TOKEN, LOGIN_RATE_LIMIT_PER_ACCOUNT: '2' },
    workers: true,
    metrics: createMetrics({ defaultMetrics: true }),
    logger: createLogger('debug', sink),
  });
  f = factories(t.orm, t.services);
  await f.superadmin(); // login answers 503 until the platform is bootstrapped
  await chatFactories(t.orm, t.services).makeProvider({ baseUrl: stub.url, slug: 'stub-llm', models: ['stub-model'] });
});
afterAll(async () => {
  await t?.close();
  await stub?.close();
});

describe('/metrics on the main port', () => {
  it('requires the METRICS_TOKEN bearer token', async () => {
    expect((await scrape(null)).status).toBe(401);
    expect((await scrape('wrong-token-wrong-token')).status).toBe(401);
    const ok = await scrape();
    expect(ok.status).toBe(200);
    expect(ok.type).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('moves the expected series after a failed login, an upload and a chat', async () => {
    const before = await families();
    const owner = await f.makeUser({ platformRole: 'admin' });
    const project = await f.makeProject({ owner });

    // logins: one wrong password, then the account limit (2 a minute) refuses the third attempt
    const victim = await f.makeUser();
    const login = (password: string) => api(t.baseUrl, 'POST', '/api/auth/login', { body: { email: victim.email, password } });
    expect((await login('wrong-password-1')).status).toBe(401);
    expect((await login('wrong-password-2')).status).toBe(401);
    expect((await login('wrong-password-3')).status).toBe(429);

    // an upload that ingests and one that cannot be read
    const up = await uploadFiles(t.baseUrl, owner.token, project.id, [
      { name: 'warranty.md', type: 'text/markdown', content: '# Warranty\n\nThe toaster warranty lasts five years from purchase.\n' },
      { name: 'broken.pdf', type: 'application/pdf', content: Buffer.from('%PDF-1.7 this is not really a PDF') },
    ]);
    expect(up.status).toBe(202);
    const [good, bad] = await Promise.all(up.body.documents.map((d: { id: string }) => waitForDocument(t.baseUrl, owner.token, d.id)));
    expect(good.status).toBe('ready');
    expect(bad.status).toBe('failed');

    // a chat that answers, and one whose upstream fails
    const ask = () =>
      postSse(t.baseUrl, `/api/chat/projects/${project.id}`, { token: owner.token, body: { message: 'How long is the warranty?' } });
    const done = await ask();
    expect(done.events.map((e) => e.event)).toEqual(['meta', 'sources', 'text', 'text', 'done']);
    stub.once({ status: 500, errorBody: { error: { message: 'upstream exploded' } } });
    const failed = await ask();
    expect(failed.events.at(-1)).toEqual(
      expect.objectContaining({ event: 'error', data: expect.objectContaining({ message: 'LLM_API_ERROR' }) }),
    );

    // GraphQL: a named query, and one refused for want of a token
    const gql = (query: string, token?: string) => api(t.baseUrl, 'POST', '/graphql', { token, body: { query } });
    expect((await gql('query MyProjects { projects(limit: 5) { total } }', owner.token)).status).toBe(200);
    await gql('query MyProjects { projects(limit: 5) { total } }');

    const after = await families();
    const moved = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);

    expect(moved('docqa_login_attempts_total', { outcome: 'invalid_credentials' })).toBe(2);
    expect(moved('docqa_login_attempts_total', { outcome: 'rate_limited' })).toBe(1);
    expect(moved('docqa_http_request_duration_seconds', { method: 'POST', route: '/api/auth/login', status: '401' })).toBe(2);
    expect(moved('docqa_http_request_duration_seconds', { method: 'POST', route: '/api/auth/login', status: '429' })).toBe(1);
    expect(
      moved('docqa_http_request_duration_seconds', { method: 'POST', route: '/api/projects/:projectId/documents', status: '202' }),
    ).toBe(1);
    expect(
      moved('docqa_http_request_duration_seconds', { method: 'GET', route: '/api/documents/:id', status: '200' }),
    ).toBeGreaterThanOrEqual(2);
    expect(moved('docqa_http_request_duration_seconds', { method: 'POST', route: '/api/chat/projects/:projectId', status: '200' })).toBe(2);
    expect(moved('docqa_http_request_duration_seconds', { method: 'POST', route: '/graphql' })).toBe(2);

    expect(moved('docqa_ingest_job_duration_seconds', { outcome: 'ready' })).toBe(1);
    expect(moved('docqa_ingest_job_duration_seconds', { outcome: 'failed' })).toBe(1);
    expect(moved('docqa_ingest_pages_total')).toBe(good.pageCount);
    expect(moved('docqa_ingest_chunks_total')).toBe(good.chunkCount);
    expect(moved('docqa_ingest_failures_total', { reason: 'unreadable' })).toBe(1);
    expect(sample(after, 'docqa_ingest_queue_jobs', { queue: 'document-ingest', state: 'completed' })).toBeGreaterThanOrEqual(2);
    expect(after.get('docqa_ingest_queue_jobs')!.series.map((m) => m.labels.state)).toEqual(
      expect.arrayContaining(['created', 'active', 'retry', 'failed']),
    );

    expect(moved('docqa_chat_time_to_sources_seconds', { mode: 'docs' })).toBe(2);
    expect(moved('docqa_chat_time_to_first_text_seconds', { mode: 'docs' })).toBe(1);
    expect(moved('docqa_chat_duration_seconds', { mode: 'docs', outcome: 'done' })).toBe(1);
    expect(moved('docqa_chat_duration_seconds', { mode: 'docs', outcome: 'error' })).toBe(1);
    expect(moved('docqa_chat_outcomes_total', { outcome: 'done' })).toBe(1);
    expect(moved('docqa_chat_outcomes_total', { outcome: 'error', error: 'LLM_API_ERROR' })).toBe(1);
    expect(moved('docqa_chat_upstream_errors_total', { provider: 'stub-llm' })).toBe(1);
    expect(moved('docqa_chat_tokens_total', { mode: 'docs' })).toBe(done.events.at(-1)!.data.totalTokens);
    expect(moved('docqa_retrieval_duration_seconds', { mode: 'docs' })).toBe(2);

    expect(moved('docqa_graphql_operation_duration_seconds', { operation: 'MyProjects', type: 'query' })).toBe(2);
    expect(moved('docqa_graphql_errors_total', { code: 'unauthorized' })).toBe(1);

    expect(after.get('docqa_db_pool_connections')!.series.map((m) => `${m.labels.pool}/${m.labels.state}`)).toEqual(
      expect.arrayContaining(['orm/in_use', 'orm/waiting', 'auth/in_use', 'auth/waiting']),
    );
    expect(sample(after, 'docqa_process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(after.has('docqa_nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('carries no user input in any label: no ids, e-mails or raw paths', async () => {
    // a server and registry of their own, after traffic full of ids and e-mails (the other tests' requests,
    // /healthz among them, are not this test's)
    const own = await createTestApp({ env: { METRICS_TOKEN: TOKEN }, workers: true, metrics: createMetrics({ defaultMetrics: true }) });
    try {
      const fo = factories(own.orm, own.services);
      await fo.superadmin();
      await chatFactories(own.orm, own.services).makeProvider({ baseUrl: stub.url, slug: 'stub-llm', models: ['stub-model'] });
      const owner = await fo.makeUser({ platformRole: 'admin' });
      const project = await fo.makeProject({ owner });
      await api(own.baseUrl, 'POST', '/api/auth/login', { body: { email: owner.email, password: 'wrong-password' } });
      const up = await uploadFiles(own.baseUrl, owner.token, project.id, [
        { name: 'warranty.md', type: 'text/markdown', content: '# Warranty\n\nThe toaster warranty lasts five years.\n' },
      ]);
      await waitForDocument(own.baseUrl, owner.token, up.body.documents[0].id);
      await postSse(own.baseUrl, `/api/chat/projects/${project.id}`, {
        token: owner.token,
        body: { message: 'How long is the warranty?' },
      });
      await api(own.baseUrl, 'POST', '/graphql', {
        token: owner.token,
        body: { query: 'query MyProjects { projects(limit: 5) { total } }' },
      });
      await api(own.baseUrl, 'GET', `/api/no-such-thing/${project.id}/${owner.email}`);
      const all: MetricFamily[] = [...(await families(own)).values()];
      const values = all.flatMap((fam) => fam.series.flatMap((m) => Object.values(m.labels)));
      expect(values.length).toBeGreaterThan(50);
      for (const v of values) {
        expect(v).not.toMatch(UUID);
        expect(v).not.toContain('@');
      }
      const routes = new Set(all.find((fam) => fam.name === 'docqa_http_request_duration_seconds')!.series.map((m) => m.labels.route));
      for (const r of routes) expect(r === 'unmatched' || r === '/graphql' || r === '/metrics' || r.startsWith('/api/')).toBe(true);
    } finally {
      await own.close();
    }
  });

  it('collapses paths that match no route and unknown GraphQL operation names beyond the cap', async () => {
    // a server and registry of their own: the operation names spent here are no other test's
    const own = await createTestApp({ env: { METRICS_TOKEN: TOKEN } });
    try {
      await api(own.baseUrl, 'GET', `/api/no-such-thing/${'x'.repeat(40)}`);
      const owner = await factories(own.orm, own.services).makeUser();
      for (let i = 0; i < 105; i++)
        await api(own.baseUrl, 'POST', '/graphql', { token: owner.token, body: { query: `query Op${i} { chatConfig { docs } }` } });
      const after = await families(own);
      const routes = after.get('docqa_http_request_duration_seconds')!.series.map((m) => m.labels.route);
      expect(routes).toContain('unmatched');
      expect(routes.some((r) => r.includes('no-such-thing'))).toBe(false);
      const ops = new Set(after.get('docqa_graphql_operation_duration_seconds')!.series.map((m) => m.labels.operation));
      expect(ops.size).toBeLessThanOrEqual(101 + 2);
      expect(ops).toContain('other');
    } finally {
      await own.close();
    }
  });

  it('reads the embedding backlog only when a chunk_embeddings table exists', async () => {
    const [{ present }] = await t.orm.em.fork().getConnection().execute(`select to_regclass('chunk_embeddings') is not null as present`);
    const backlog = (await families()).get('docqa_embedding_backlog_chunks');
    // 0 while embeddings are not stored at all; the count of chunks without a vector once they are
    expect(backlog!.series).toHaveLength(1);
    if (!present) expect(backlog!.series[0].value).toBe(0);
  });
});

describe('METRICS_PORT', () => {
  it('serves only GET /metrics on a listener of its own, behind the token when one is set', async () => {
    const m = await startMetricsServer(t.services.ctx.metrics, { port: 0, host: '127.0.0.1', token: TOKEN });
    try {
      const base = `http://127.0.0.1:${m.port}`;
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      const ok = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(ok.status).toBe(200);
      expect((await parseMetrics(await ok.text())).has('docqa_http_request_duration_seconds')).toBe(true);
      expect((await fetch(`${base}/api/auth/me`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    } finally {
      await m.close();
    }
  });
});

describe('request correlation', () => {
  it('answers X-Request-Id: a sane incoming one is kept, anything else replaced', async () => {
    const kept = await api(t.baseUrl, 'GET', '/healthz', { headers: { 'x-request-id': 'client-req.42' } });
    expect(kept.headers.get('x-request-id')).toBe('client-req.42');
    const replaced = await api(t.baseUrl, 'GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(replaced.headers.get('x-request-id')).toMatch(UUID);
    const fresh = await api(t.baseUrl, 'GET', '/healthz');
    expect(fresh.headers.get('x-request-id')).toMatch(UUID);
  });

  it('logs a valid traceparent with the request, and notes an invalid one', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await api(t.baseUrl, 'GET', '/healthz', { headers: { 'x-request-id': 'trace-ok', traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    await api(t.baseUrl, 'GET', '/healthz', {
      headers: { 'x-request-id': 'trace-bad', traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` },
    });
    const ok = logLines().find((l) => l.reqId === 'trace-ok' && l.msg === 'request');
    expect(ok).toEqual(expect.objectContaining({ traceId, parentSpanId: '00f067aa0ba902b7' }));
    const bad = logLines().find((l) => l.reqId === 'trace-bad' && l.msg === 'request');
    expect(bad).toEqual(expect.objectContaining({ traceparentInvalid: true }));
    expect(bad).not.toHaveProperty('traceId');
  });

  it("tags the chat stream's lines and the ingestion job it queued with the request id", async () => {
    const owner = await f.makeUser({ platformRole: 'admin' });
    const project = await f.makeProject({ owner });
    const form = new FormData();
    form.append('file', new Blob(['Returns are accepted within thirty days.\n']), 'returns.txt');
    const up = await fetch(`${t.baseUrl}/api/projects/${project.id}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'x-request-id': 'upload-req-1' },
      body: form,
    });
    expect(up.status).toBe(202);
    const { documents } = (await up.json()) as { documents: Array<{ id: string }> };
    await waitForDocument(t.baseUrl, owner.token, documents[0].id);
    const jobLines = logLines().filter((l) => l.documentId === documents[0].id && l.jobId);
    expect(jobLines.length).toBeGreaterThan(0);
    for (const l of jobLines) expect(l.reqId).toBe('upload-req-1');

    const res = await fetch(`${t.baseUrl}/api/chat/projects/${project.id}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', 'x-request-id': 'chat-req-1' },
      body: JSON.stringify({ message: 'What is the return window?' }),
    });
    await res.text();
    const chatLines = logLines().filter((l) => l.reqId === 'chat-req-1');
    expect(chatLines.filter((l) => l.msg === 'chat event').map((l) => l.event)).toEqual(['meta', 'sources', 'done']);
    expect(chatLines.some((l) => l.msg === 'request')).toBe(true);
  });
});
