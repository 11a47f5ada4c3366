import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { api, client } from '../support/http';
import { startOpenAiStub, OpenAiStub } from '../support/openai-stub';
import { makePdf } from '../support/pdf';
import { freePort, Proc, startPgProcess, startServerProcess } from '../support/processes';
import { postSse, SseResult } from '../support/sse-client';

jest.setTimeout(240_000);

/**
 * Faults with real processes: the server (`node dist/src/main.js`) and PostgreSQL each run in a
 * process of their own, so a signal or a kill hits them exactly as in production.
 */
describe('process faults', () => {
  let dir: string;
  let pgProc: Proc & { url: string };
  let stub: OpenAiStub;
  const serverEnv = () => ({
    DATABASE_URL: pgProc.url,
    BOOTSTRAP_SUPERADMIN_EMAIL: 'root@example.com',
    BOOTSTRAP_SUPERADMIN_PASSWORD: 'rootpassword',
    SHUTDOWN_GRACE_MS: '3000',
    // the killed process's job expires after this; the retry must finish within it too, which a
    // 400-page PDF did not always on a busy test machine with 8 s and niced parser threads
    INGEST_JOB_TIMEOUT_SECONDS: '20',
    PARSER_NICE: '0',
    JOB_MAINTENANCE_SECONDS: '1',
    INGEST_RETRY_DELAY_SECONDS: '1',
    WORKER_CONCURRENCY: '1',
  });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'docqa-proc-'));
    pgProc = await startPgProcess(dir, await freePort());
    stub = await startOpenAiStub();
  });
  afterAll(async () => {
    await stub?.close();
    await pgProc?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  async function rootToken(baseUrl: string): Promise<string> {
    const res = await api(baseUrl, 'POST', '/api/auth/login', { body: { email: 'root@example.com', password: 'rootpassword' } });
    expect(res.status).toBe(200);
    return res.body.accessToken;
  }

  it('SIGTERM during 20 open chat streams: each ends with an error event, the server exits cleanly, nothing is corrupt', async () => {
    let server = await startServerProcess(serverEnv());
    const token = await rootToken(server.baseUrl);
    const c = client(server.baseUrl, token);
    const provider = await c.post('/api/providers', {
      name: 'Stub',
      slug: 'stub-sigterm',
      type: 'custom',
      baseUrl: stub.url,
      apiKey: 'sk-test-123456',
      models: ['stub-model'],
      isDefault: true,
    });
    expect(provider.status).toBe(201);
    const project = await c.post('/api/projects', { name: 'Shutdown project', isPrivate: false });
    expect(project.status).toBe(201);
    const projectId = project.body.project.id;

    // long answers: 400 deltas, 25 ms apart (10 s each)
    stub.set({ deltas: Array.from({ length: 400 }, (_, i) => `w${i} `), deltaDelayMs: 25 });
    const before = stub.requests.length;
    const streams: Array<Promise<SseResult>> = Array.from({ length: 20 }, (_, i) =>
      postSse(server.baseUrl, `/api/chat/projects/${projectId}`, { token, body: { message: `question ${i}` } }),
    );
    await stub.waitFor(() => stub.requests.slice(before).filter((r) => r.firstDeltaAt !== undefined).length >= 20, 30_000);
    await new Promise((r) => setTimeout(r, 300));

    server.child.kill('SIGTERM');
    const results = await Promise.all(streams);
    const code = await server.exited;
    expect(code).toBe(0);
    for (const r of results) {
      expect(r.status).toBe(200);
      const names = r.events.map((e) => e.event);
      expect(names[0]).toBe('meta');
      expect(names).toContain('text');
      expect(names[names.length - 1]).toBe('error');
      expect(names).not.toContain('done');
    }
    // the upstream calls were aborted
    await stub.waitFor(() => stub.requests.slice(before).every((r) => r.aborted || r.finished), 10_000);
    expect(stub.requests.slice(before).filter((r) => r.aborted).length).toBe(20);

    // nothing corrupt: every stream left a user message and an incomplete assistant message with what arrived
    const db = new pg.Client({ connectionString: pgProc.url });
    await db.connect();
    try {
      const ids = results.map((r) => r.events[0].data.conversationId);
      const rows = await db.query(
        `select c.id, count(*) filter (where m.role = 'user') as users, count(*) filter (where m.role = 'assistant') as assistants,
                bool_and(m.incomplete) filter (where m.role = 'assistant') as incomplete,
                min(length(m.content)) filter (where m.role = 'assistant') as len
           from conversations c join messages m on m.conversation_id = c.id where c.id = any($1::uuid[]) group by c.id`,
        [ids],
      );
      expect(rows.rows).toHaveLength(20);
      for (const row of rows.rows) {
        expect(Number(row.users)).toBe(1);
        expect(Number(row.assistants)).toBe(1);
        expect(row.incomplete).toBe(true);
        expect(Number(row.len)).toBeGreaterThan(0);
      }
    } finally {
      await db.end();
    }

    // and the service starts again on the same database and serves the conversations
    server = await startServerProcess(serverEnv());
    try {
      const t2 = await rootToken(server.baseUrl);
      const conv = await client(server.baseUrl, t2).get(`/api/chat/conversations/${results[0].events[0].data.conversationId}`);
      expect(conv.status).toBe(200);
      expect(conv.body.conversation.messages).toHaveLength(2);
    } finally {
      await server.kill('SIGTERM');
    }
  });

  it('the process is killed (SIGKILL) during ingestion: the document finishes after restart', async () => {
    let server: Proc & { baseUrl: string } = await startServerProcess(serverEnv());
    const token = await rootToken(server.baseUrl);
    const project = await client(server.baseUrl, token).post('/api/projects', { name: 'Crash project' });
    const projectId = project.body.project.id;
    const pages = Array.from({ length: 400 }, (_, i) => ({
      paragraphs: [`Page ${i + 1} of the crash manual. ` + 'The quick brown fox jumps over the lazy dog. '.repeat(30)],
    }));
    const form = new FormData();
    form.append('file', new Blob([makePdf(pages)], { type: 'application/pdf' }), 'crash-manual.pdf');
    const up = await fetch(`${server.baseUrl}/api/projects/${projectId}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    expect(up.status).toBe(202);
    const docId = ((await up.json()) as { documents: Array<{ id: string }> }).documents[0].id;

    // wait until it is being processed, then kill the server without any chance to clean up
    let status = '';
    for (let i = 0; i < 200; i++) {
      const d = await client(server.baseUrl, token).get(`/api/documents/${docId}`);
      status = d.body.document.status;
      if (status !== 'queued') break;
      await new Promise((r) => setTimeout(r, 20));
    }
    server.child.kill('SIGKILL');
    await server.exited;
    expect(['processing', 'ready']).toContain(status);

    server = await startServerProcess(serverEnv());
    try {
      let doc: any;
      for (let i = 0; i < 480; i++) {
        doc = (await client(server.baseUrl, token).get(`/api/documents/${docId}`)).body.document;
        if (doc.status === 'ready' || doc.status === 'failed') break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect({ status: doc.status, error: doc.error }).toEqual({ status: 'ready', error: null });
      expect(doc.pageCount).toBe(400);
      expect(doc.chunkCount).toBeGreaterThan(0);
      // processed once: no duplicate chunks from the killed attempt
      const db = new pg.Client({ connectionString: pgProc.url });
      await db.connect();
      try {
        const r = await db.query(`select count(*)::int as n, count(distinct ordinal)::int as d from chunks where document_id = $1`, [
          docId,
        ]);
        expect(r.rows[0].n).toBe(r.rows[0].d);
        expect(r.rows[0].n).toBe(doc.chunkCount);
      } finally {
        await db.end();
      }
    } finally {
      await server.kill('SIGTERM');
    }
  });
});
