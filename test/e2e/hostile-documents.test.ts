import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { uploadFiles, waitForDocument } from '../support/documents';
import { heavyCases } from '../support/heavy';
import { hostileCases, HostileCase, probe, processMemoryMb } from '../support/hostile';
import { api } from '../support/http';
import { Proc, startServerProcess } from '../support/processes';
import { createTestDatabase } from '../support/test-db';

jest.setTimeout(180_000);

/** Peak resident memory the server may reach while ingesting the whole hostile set (2 parser threads of 512 MB heap at most, plus the server). */
const RSS_BOUND_MB = 1200;
const LIMITS = { timeoutSeconds: 20, pdfMaxPages: 1000, pdfMaxPageChars: 100_000, maxExpandedMb: 200, htmlMaxDepth: 256, emptyPages: 300 };

/**
 * Hostile documents against the real server process (in-process ingestion workers, two parser
 * threads): every input ends in its expected state with an error naming the limit, is not
 * retried, the other documents of the same upload are unaffected, /healthz keeps answering
 * (a probe runs throughout) and the process's memory stays bounded.
 */
describe('hostile documents', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: Proc & { baseUrl: string };
  let token: string;
  let projectId: string;
  let tmpDir: string;
  let sql: pg.Client;
  const leftover = () => `999999${Math.floor(Math.random() * 9)}-${randomUUID()}.upload`;
  let staleFile: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    tmpDir = mkdtempSync(path.join(os.tmpdir(), 'docqa-hostile-'));
    // a crashed process's leftover upload (its pid is not running): removed at start-up
    mkdirSync(tmpDir, { recursive: true });
    staleFile = path.join(tmpDir, leftover());
    writeFileSync(staleFile, 'half an upload');
    server = await startServerProcess({
      DATABASE_URL: db.url,
      BOOTSTRAP_SUPERADMIN_EMAIL: 'root@example.com',
      BOOTSTRAP_SUPERADMIN_PASSWORD: 'rootpassword',
      WORKER_CONCURRENCY: '2',
      PARSER_TIMEOUT_SECONDS: String(LIMITS.timeoutSeconds),
      PDF_MAX_PAGES: String(LIMITS.pdfMaxPages),
      INGEST_RETRY_DELAY_SECONDS: '1',
      UPLOAD_TMP_DIR: tmpDir,
      UPLOAD_CONCURRENCY_PER_USER: '2',
      MAX_UPLOAD_MB: '8',
    });
    const login = await api(server.baseUrl, 'POST', '/api/auth/login', { body: { email: 'root@example.com', password: 'rootpassword' } });
    token = login.body.accessToken;
    const project = await api(server.baseUrl, 'POST', '/api/projects', { token, body: { name: 'Hostile' } });
    projectId = project.body.project.id;
    sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
  });

  afterAll(async () => {
    await sql?.end();
    await server?.kill('SIGTERM');
    await db?.drop();
    rmSync(tmpDir, { recursive: true, force: true });
  });

  it('removes upload files left by a crashed process at start-up', () => {
    expect(existsSync(staleFile)).toBe(false);
  });

  it('every hostile input ends in its expected state, not retried, while /healthz keeps answering and memory stays bounded', async () => {
    const cases: HostileCase[] = [
      ...(await hostileCases(LIMITS)),
      {
        label: 'an ordinary Markdown file in the same upload',
        name: 'handbook.md',
        content: Buffer.from('# Handbook\n\nThe office opens at nine.\n\n## Leave\n\nStaff get 25 days of leave.\n'),
        status: 'ready',
      },
    ];
    // the same probe idle first: on a shared, loaded machine the floor is not zero
    const idleProbe = probe(`${server.baseUrl}/healthz`);
    await new Promise((r) => setTimeout(r, 3000));
    const idle = await idleProbe.stop();
    const health = probe(`${server.baseUrl}/healthz`);
    const res = await uploadFiles(
      server.baseUrl,
      token,
      projectId,
      cases.map((c) => ({ name: c.name, content: c.content })),
    );
    expect(res.status).toBe(202);
    const docs = await Promise.all(res.body.documents.map((d: { id: string }) => waitForDocument(server.baseUrl, token, d.id, 150_000)));
    const healthz = await health.stop();
    const memory = processMemoryMb(server.child.pid!);

    const outcomes = cases.map((c, i) => ({ name: c.name, status: docs[i].status, error: docs[i].error }));
    for (const [i, c] of cases.entries()) {
      expect({ name: c.name, status: docs[i].status }).toEqual({ name: c.name, status: c.status });
      if (c.error) expect({ name: c.name, error: docs[i].error }).toEqual({ name: c.name, error: expect.stringMatching(c.error) });
      else expect(docs[i].error).toBeNull();
    }
    // a file problem (limit, corrupt bytes) fails on its first attempt: the same bytes fail the same way;
    // bytes that are no format read fail at upload, before any attempt
    const { rows } = await sql.query('select name, attempts from documents where project_id = $1', [projectId]);
    const atUpload = new Set(cases.filter((c) => c.atUpload).map((c) => c.name));
    for (const row of rows)
      expect({ name: row.name, attempts: row.attempts }).toEqual({ name: row.name, attempts: atUpload.has(row.name) ? 0 : 1 });
    // headings became sections and the ordinary file is searchable alongside the hostile ones
    expect(docs[cases.length - 1]).toMatchObject({ status: 'ready', chunkCount: expect.any(Number) });

    process.stdout.write(`hostile set: ${JSON.stringify({ idle, healthz, memory, outcomes })}\n`);
    expect(healthz.failures).toBe(0);
    expect(healthz.count).toBeGreaterThan(50);
    // The issue's target (p99 ≤ 100 ms) is measured per input by bench/heavy.ts (README, "Heavy and
    // hostile ingestion"); on a shared, loaded machine this all-at-once run varies a lot, so what is
    // asserted here is that the server never stopped answering (no failed probe, no stall over 5 s).
    expect(healthz.max).toBeLessThan(5000);
    expect(memory.peakRss).toBeLessThan(RSS_BOUND_MB);
    // the server is still whole: it answers an authenticated request
    expect((await api(server.baseUrl, 'GET', `/api/projects/${projectId}/documents`, { token })).status).toBe(200);
    // no upload file outlives its request
    expect(readdirSync(tmpDir)).toEqual([]);
  });

  it('heavy and hostile inputs one at a time (smaller sizes than bench/heavy.ts): each ends as expected while /healthz, probed every 20 ms, keeps answering', async () => {
    const heavy = await api(server.baseUrl, 'POST', '/api/projects', { token, body: { name: 'Heavy' } });
    const heavyProject = heavy.body.project.id as string;
    const cases = await heavyCases({
      scale: 0.1,
      maxPages: LIMITS.pdfMaxPages,
      maxExpandedMb: LIMITS.maxExpandedMb,
      htmlMaxDepth: LIMITS.htmlMaxDepth,
    });
    const report: Array<{ name: string; status: string; p50: number; p99: number; max: number }> = [];
    for (const c of cases) {
      const health = probe(`${server.baseUrl}/healthz`, 20);
      const res = await uploadFiles(server.baseUrl, token, heavyProject, [{ name: c.name, content: c.content }]);
      expect(res.status).toBe(202);
      const doc = await waitForDocument(server.baseUrl, token, res.body.documents[0].id, 120_000);
      const h = await health.stop();
      report.push({ name: c.name, status: doc.status, p50: h.p50, p99: h.p99, max: h.max });
      expect({ name: c.name, status: doc.status }).toEqual({ name: c.name, status: c.status });
      if (c.error) expect(doc.error).toMatch(c.error);
      // responsive throughout: no probe failed, none waited anywhere near the 5 s probe time-out
      // (the 100 ms p99 target is the bench's, measured on a quiet machine: see README)
      expect({ name: c.name, failures: h.failures }).toEqual({ name: c.name, failures: 0 });
      expect(h.max).toBeLessThan(2500);
    }
    const { rows } = await sql.query('select name, attempts from documents where project_id = $1', [heavyProject]);
    for (const row of rows) expect({ name: row.name, attempts: row.attempts }).toEqual({ name: row.name, attempts: 1 });
    process.stdout.write(`heavy inputs: ${JSON.stringify(report)}\n`);
  });

  /** Starts a multipart upload whose body never finishes (until `abort`). */
  function slowUpload(): Promise<{ abort(): void; response: Promise<number> }> {
    return new Promise((resolve, reject) => {
      const boundary = 'hostileboundary';
      const url = new URL(`${server.baseUrl}/api/projects/${projectId}/documents`);
      const req = http.request({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'transfer-encoding': 'chunked',
        },
      });
      const response = new Promise<number>((res) => {
        req.on('response', (r) => {
          r.resume();
          res(r.statusCode ?? 0);
        });
        req.on('error', () => res(0));
      });
      req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\nContent-Type: text/plain\r\n\r\n`);
      req.write('x'.repeat(64 * 1024), (err) => (err ? reject(err) : resolve({ abort: () => req.destroy(), response })));
    });
  }

  it('a third concurrent upload of one user is answered 429 with Retry-After; aborted uploads leave no file behind', async () => {
    const a = await slowUpload();
    const b = await slowUpload();
    // both have reached the disk
    for (let i = 0; i < 100 && readdirSync(tmpDir).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(tmpDir).length).toBe(2);
    const third = await uploadFiles(server.baseUrl, token, projectId, [{ name: 'third.txt', content: 'a third upload' }]);
    expect(third.status).toBe(429);
    expect(third.body.error).toBe('rate_limited');
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);

    a.abort();
    b.abort();
    for (let i = 0; i < 100 && readdirSync(tmpDir).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(tmpDir)).toEqual([]);
    // the slots are free again
    const after = await uploadFiles(server.baseUrl, token, projectId, [{ name: 'after.txt', content: 'uploaded after the aborted ones' }]);
    expect(after.status).toBe(202);
    expect(readdirSync(tmpDir)).toEqual([]);
  });

  it('a file over MAX_UPLOAD_MB is still answered 413 and leaves no file behind', async () => {
    const res = await uploadFiles(server.baseUrl, token, projectId, [{ name: 'big.txt', content: Buffer.alloc(9 * 1024 * 1024, 'a') }]);
    expect(res.status).toBe(413);
    expect(res.body.error).toBe('payload_too_large');
    for (let i = 0; i < 40 && readdirSync(tmpDir).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(tmpDir)).toEqual([]);
  });
});
