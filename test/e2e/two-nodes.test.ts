import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client as PgClient } from 'pg';
import { uploadFiles } from '../support/documents';
import { wsClient, wsCollect } from '../support/graphql';
import { api, client } from '../support/http';
import { answerOf, getSse, namesOf, postSse } from '../support/sse-client';
import { startOpenAiStub, OpenAiStub } from '../support/openai-stub';
import { makePdf } from '../support/pdf';
import { Proc, startPgProcess, startProcess, startServerProcess } from '../support/processes';

jest.setTimeout(240_000);

/**
 * Issue 13 item 8: two API nodes and one `npm run worker` process on one PostgreSQL, started the
 * way a developer would (no JWT_SECRET, no ENCRYPTION_KEY, a DATA_DIR of their own each): they
 * agree on tokens, provider keys and login limits, and share ingestion and its progress.
 */
describe('two nodes and a worker on one database', () => {
  const dirs: string[] = [];
  let pg: Proc & { url: string };
  let a: Proc & { baseUrl: string };
  let b: Proc & { baseUrl: string };
  let worker: Proc | null = null;
  /** Starts the `npm run worker` process (afterAll stops it). */
  const startWorker = async () => {
    worker = await startProcess('dist/src/cli/worker.js', [], { ...nodeEnv(), LOG_LEVEL: 'info' }, /ingestion worker running/);
  };
  let stub: OpenAiStub;
  const tmp = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'docqa-2n-'));
    dirs.push(d);
    return d;
  };
  const nodeEnv = () => ({
    NODE_ENV: 'development',
    JWT_SECRET: '',
    ENCRYPTION_KEY: '',
    DATABASE_URL: pg.url,
    DATA_DIR: tmp(),
    RUN_WORKERS: 'false',
    LOGIN_RATE_LIMIT_PER_IP: '1000',
    LOGIN_RATE_LIMIT_PER_ACCOUNT: '10',
    LOGIN_RATE_LIMIT_ACCOUNT_TOTAL: '12',
    // the tests below speak from many client addresses through X-Forwarded-For
    TRUST_PROXY: '1',
    JOB_POLLING_SECONDS: '1',
  });

  beforeAll(async () => {
    stub = await startOpenAiStub();
    pg = await startPgProcess(tmp());
    // A first: it applies the migrations and bootstraps; then B
    a = await startServerProcess({
      ...nodeEnv(),
      BOOTSTRAP_SUPERADMIN_EMAIL: 'root@example.com',
      BOOTSTRAP_SUPERADMIN_PASSWORD: 'rootpassword',
    });
    b = await startServerProcess(nodeEnv());
  });
  afterAll(async () => {
    await worker?.kill();
    await a?.kill();
    await b?.kill();
    await pg?.kill();
    await stub?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const login = async (node: { baseUrl: string }, email: string, password: string) =>
    api(node.baseUrl, 'POST', '/api/auth/login', { body: { email, password } });

  it('a token from node A works on node B (one JWT secret, generated into the database)', async () => {
    const res = await login(a, 'root@example.com', 'rootpassword');
    expect(res.status).toBe(200);
    const me = await client(b.baseUrl, res.body.accessToken).get('/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe('root@example.com');
    // and B's refresh rotates A's refresh token
    expect((await api(b.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: res.body.refreshToken } })).status).toBe(200);
  });

  it('a provider key set on node A is used by node B', async () => {
    const token = (await login(a, 'root@example.com', 'rootpassword')).body.accessToken;
    const created = await client(a.baseUrl, token).post('/api/providers', {
      name: 'Stub',
      slug: 'stub',
      baseUrl: stub.url,
      apiKey: 'sk-set-on-node-a-0001',
      models: ['m'],
    });
    expect(created.status).toBe(201);
    const test = await client(b.baseUrl, token).post(`/api/providers/${created.body.provider.id}/test`, { model: 'm' });
    expect(test.body).toEqual(expect.objectContaining({ ok: true, status: 200 }));
    expect(stub.last().authorization).toBe('Bearer sk-set-on-node-a-0001');
  });

  it('the per-account login limit counts attempts on both nodes', async () => {
    const token = (await login(a, 'root@example.com', 'rootpassword')).body.accessToken;
    expect(
      (
        await client(a.baseUrl, token).post('/api/users', {
          email: 'target@example.com',
          password: 'right-password',
          name: 'Target',
          platformRole: 'none',
          orgPosition: 'member',
        })
      ).status,
    ).toBe(201);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await login(i % 2 ? b : a, 'target@example.com', 'wrong-password')).status);
    // 10 free failures (5 on each node), then the account+address pair is delayed on both
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toContain(429);
  });

  /** Issue 25 item 3: a per-account limit across all addresses (and nodes) that spares the owner. */
  describe('login throttling across addresses', () => {
    const from = (node: { baseUrl: string }, address: string, email: string, password: string) =>
      api(node.baseUrl, 'POST', '/api/auth/login', { body: { email, password }, headers: { 'x-forwarded-for': address } });
    let email: string;

    // each test meets its own victim with 12 failures counted (the owner's success in one clears them)
    beforeEach(async () => {
      email = `victim-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
      const token = (await login(a, 'root@example.com', 'rootpassword')).body.accessToken;
      const created = await client(a.baseUrl, token).post('/api/users', {
        email,
        password: 'owner-password',
        name: 'Victim',
        platformRole: 'none',
        orgPosition: 'member',
      });
      expect(created.status).toBe(201);
      // the owner has signed in before from home (IPv4) and from a phone (one IPv6 /64)
      expect((await from(a, '198.51.100.20', email, 'owner-password')).status).toBe(200);
      expect((await from(b, '2001:db8:77:1::1', email, 'owner-password')).status).toBe(200);
      // an attacker rotating addresses, failures on node A only: each address is new, so no
      // per-address limit ever applies, and 12 failures are free for the account
      for (let i = 0; i < 12; i++) expect((await from(a, `203.0.113.${i + 1}`, email, 'guess-' + i)).status).toBe(401);
    });

    /** The account's failure count as every node sees it: the row in PostgreSQL (keyed by a hash, not the email). */
    const accountFailures = async (): Promise<number | null> => {
      const db = new PgClient({ connectionString: pg.url });
      await db.connect();
      try {
        const key = 'login_acct_fail:' + createHash('sha256').update(email).digest('hex');
        const { rows } = await db.query<{ points: number }>(
          'select points from rate_limits where key = $1 and expire > extract(epoch from now()) * 1000',
          [key],
        );
        return rows[0]?.points ?? null;
      } finally {
        await db.end();
      }
    };

    it('failures counted on node A slow new addresses on both nodes: one attempt per delay, whatever the address', async () => {
      expect(await accountFailures()).toBe(12);
      const attempts = await Promise.all(
        Array.from({ length: 6 }, (_, i) => from(i % 2 ? a : b, i < 3 ? `192.0.2.${i + 1}` : `2001:db8:99:${i}::1`, email, 'guess')),
      );
      // exactly one attempt took the slot (and failed); the rest wait, told how long
      expect(attempts.map((r) => r.status).sort()).toEqual([401, 429, 429, 429, 429, 429]);
      for (const r of attempts.filter((x) => x.status === 429)) {
        expect(r.body).toMatchObject({ error: 'rate_limited' });
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      expect(await accountFailures()).toBe(13);
    });

    it('the owner, from an address (or IPv6 /64) that signed in before, is not locked out, and the success clears the delay', async () => {
      expect(await accountFailures()).toBeGreaterThanOrEqual(12);
      // another address in the phone's /64, on the other node than the one that saw it
      expect((await from(a, '2001:db8:77:1::42', email, 'owner-password')).status).toBe(200);
      expect(await accountFailures()).toBeNull();
      // a fresh address is answered at once again (401, not 429)
      expect((await from(b, '192.0.2.200', email, 'guess')).status).toBe(401);
    });
  });

  it('a chat answer started on node A, dropped after three text events, resumes on node B (issue 38)', async () => {
    const token = (await login(a, 'root@example.com', 'rootpassword')).body.accessToken;
    const slug = `resume-${Date.now()}`;
    const provider = await client(a.baseUrl, token).post('/api/providers', {
      name: slug,
      slug,
      baseUrl: stub.url,
      apiKey: 'sk-resume-key-0001',
      models: ['m'],
    });
    expect(provider.status).toBe(201);
    const project = await client(a.baseUrl, token).post('/api/projects', { name: `Resume ${slug}` });
    expect(project.status).toBe(201);
    const deltas = Array.from({ length: 12 }, (_, i) => `r${i} `);
    stub.once({ deltas, deltaDelayMs: 50 });
    const first = await postSse(a.baseUrl, `/api/chat/projects/${project.body.project.id}`, {
      token,
      body: { message: 'q', modelId: `${slug}/m` },
      stopWhen: (_e, all) => all.filter((x) => x.event === 'text').length === 3,
    });
    expect(first.aborted).toBe(true);
    const rest = await getSse(b.baseUrl, `/api/chat/messages/${first.events[0].data.messageId}/stream`, {
      token,
      headers: { 'last-event-id': first.events.at(-1)!.id! },
    });
    expect(namesOf(rest)).toEqual([...deltas.slice(3).map(() => 'text'), 'done']);
    expect(answerOf(first) + answerOf(rest)).toBe(deltas.join(''));
  });

  it('an upload through node A is processed by the worker, its progress streamed by node B', async () => {
    const token = (await login(a, 'root@example.com', 'rootpassword')).body.accessToken;
    const project = await client(a.baseUrl, token).post('/api/projects', { name: 'Two nodes' });
    expect(project.status).toBe(201);
    const pdf = makePdf([1, 2, 3].map((n) => ({ paragraphs: [`Page ${n} of the shared manual. The refund window is 30 days.`] })));
    const up = await uploadFiles(a.baseUrl, token, project.body.project.id, [
      { name: 'manual.pdf', content: pdf, type: 'application/pdf' },
    ]);
    expect(up.status).toBe(202);
    const documentId = up.body.documents[0].id;
    // no server runs workers: the document waits for the worker process
    const ws = wsClient(b.baseUrl, token);
    const collected = wsCollect(ws, 'subscription($d: ID!) { documentProgress(documentId: $d) { status pagesDone pagesTotal } }', {
      d: documentId,
    });
    await new Promise((r) => setTimeout(r, 500));
    await startWorker();
    const events = (await collected).map((e) => e.data!.documentProgress);
    await ws.dispose();
    expect(events[0].status).toBe('queued');
    expect(events.at(-1)).toEqual({ status: 'ready', pagesDone: 3, pagesTotal: 3 });
    expect(events.length).toBeGreaterThan(2);
  });
});
