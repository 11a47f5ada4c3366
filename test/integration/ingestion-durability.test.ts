import { spawn } from 'node:child_process';
import { Actor } from '../../src/access/actor';
import { loadConfig } from '../../src/config';
import { createOrm } from '../../src/db/orm';
import type { Project, User } from '../../src/entities';
import { ParserPool } from '../../src/ingest/parsers/pool';
import { createLogger } from '../../src/logger';
import { compose } from '../../src/composition';
import { existingDatabase } from '../../src/db/database';
import type { Services } from '../../src/services';
import { uploadFiles, waitForDocument } from '../support/documents';
import { factories } from '../support/factories';
import { makePdf } from '../support/pdf';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Durability of ingestion with the real pg-boss queue. The test app is an API server WITHOUT
 * workers; worker "processes" are separate service containers (own connection pools, own
 * progress listener) started and stopped on the same database, and a crashed worker is a real
 * child process killed with SIGKILL while it holds a job.
 */
// the workers only ingest (PARSER_NICE 0): a job time-out of JOB_TIMEOUT_S must not be missed
// because the parser threads give way to every other process of a busy test machine (at 2 s, a
// worker's first parse, its threads still starting, overran it once at load 5 on 2 cores)
const JOB_TIMEOUT_S = 5;
const ENV = {
  INGEST_JOB_TIMEOUT_SECONDS: String(JOB_TIMEOUT_S),
  JOB_MAINTENANCE_SECONDS: '1',
  INGEST_RETRY_LIMIT: '1',
  INGEST_RETRY_DELAY_SECONDS: '1',
  PARSER_NICE: '0',
};

let t: TestApp;
let f: ReturnType<typeof factories>;
let owner: User & { token: string };
let project: Project;

interface Workers {
  services: Services;
  stop(): Promise<void>;
}

/** Starts an ingestion worker container on the test database (like `npm run worker`). */
async function startWorkers(env: Record<string, string> = {}): Promise<Workers> {
  const config = loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'test-secret-test-secret-test-secret',
    DATABASE_URL: t.dbUrl,
    LOG_LEVEL: 'silent',
    DATA_DIR: '/tmp/docqa-test-data',
    ...ENV,
    ...env,
  });
  const orm = await createOrm(t.dbUrl, { poolMax: 5 });
  const worker = await compose(config, {
    role: 'worker',
    overrides: { database: existingDatabase(t.dbUrl, orm), logger: createLogger('silent') },
  });
  await worker.start();
  return { services: worker.services, stop: () => worker.stop() };
}

/**
 * A worker that takes the next ingestion job (real pg-boss fetch), marks its document as being
 * processed, and then dies: a child process killed with SIGKILL, so nothing is cleaned up.
 */
async function crashingWorker(): Promise<string> {
  const script = `
    const PgBoss = require('pg-boss');
    const pg = require('pg');
    (async () => {
      const boss = new PgBoss({ connectionString: process.env.DB_URL, schema: 'pgboss', supervise: false, schedule: false });
      await boss.start();
      let job;
      for (let i = 0; i < 300 && !job; i++) {
        [job] = await boss.fetch('document-ingest');
        if (!job) await new Promise((r) => setTimeout(r, 100));
      }
      const c = new pg.Client({ connectionString: process.env.DB_URL });
      await c.connect();
      await c.query("update documents set status = 'processing', pages_done = 1, pages_total = 3 where id = $1", [job.data.documentId]);
      process.stdout.write('TAKEN ' + job.data.documentId + '\\n');
      setInterval(() => {}, 1000);
    })().catch((e) => { process.stderr.write(String(e)); process.exit(2); });
  `;
  const child = spawn(process.execPath, ['-e', script], {
    cwd: process.cwd(),
    env: { ...process.env, DB_URL: t.dbUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const taken = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/TAKEN (\S+)/);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`crashing worker exited early (${code}): ${stderr}`)));
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  return taken;
}

const sql = async <T = any>(text: string, params: unknown[] = []): Promise<T[]> =>
  await t.orm.em.fork().getConnection().execute<T[]>(text, params);
/** The job's states once it has settled: a ready document's job completes a moment after the status is set. */
async function settledJobStates(documentId: string) {
  for (let i = 0; ; i++) {
    const states = await jobStates(documentId);
    if (i >= 50 || !states.some((s) => s.state === 'active')) return states;
    await new Promise((r) => setTimeout(r, 100));
  }
}
const jobStates = (documentId: string) =>
  sql<{ state: string; retry_count: number }>(
    `select state, retry_count from pgboss.job where name = 'document-ingest' and data->>'documentId' = ? order by created_on`,
    [documentId],
  );

beforeAll(async () => {
  t = await createTestApp({ workers: false, env: ENV });
  f = factories(t.orm, t.services);
  owner = await f.makeUser({ platformRole: 'admin' });
  project = await f.makeProject({ owner });
});
afterAll(async () => t?.close());
afterEach(() => jest.restoreAllMocks());

const threePages = (tag: string) =>
  makePdf([1, 2, 3].map((n) => ({ paragraphs: [`${tag}: page ${n} of the fire safety plan lists exit ${n}.`] })));

it('an accepted upload waits in the queue until a worker exists, is processed once, and its progress reaches the API process', async () => {
  const res = await uploadFiles(t.baseUrl, owner.token, project.id, [{ name: 'waiting.pdf', content: threePages('waiting') }]);
  expect(res.status).toBe(202);
  const id = res.body.documents[0].id;
  await new Promise((r) => setTimeout(r, 1500));
  expect((await sql(`select status from documents where id = ?`, [id]))[0].status).toBe('queued'); // no worker yet
  expect(await jobStates(id)).toEqual([{ state: 'created', retry_count: 0 }]);

  // the API process watches; the worker container (own progress hub) reports through NOTIFY
  const events: string[] = [];
  const watching = (async () => {
    for await (const e of await t.services.documents.watch(Actor.system(), id)) events.push(`${e.status}:${e.pagesDone}/${e.pagesTotal}`);
  })();
  const w = await startWorkers();
  try {
    const doc = await waitForDocument(t.baseUrl, owner.token, id);
    expect(doc).toMatchObject({ status: 'ready', pageCount: 3, chunkCount: 3 });
    await watching;
    expect(events[0]).toBe('queued:0/0');
    expect(events).toContain('processing:0/0');
    expect(events[events.length - 1]).toBe('ready:3/3');
    // processed once: one attempt, one set of chunks
    expect((await sql(`select attempts from documents where id = ?`, [id]))[0].attempts).toBe(1);
    expect((await sql(`select ordinal from chunks where document_id = ? order by ordinal`, [id])).map((r) => r.ordinal)).toEqual([0, 1, 2]);
    expect(await settledJobStates(id)).toEqual([{ state: 'completed', retry_count: 0 }]);
  } finally {
    await w.stop();
  }
});

it('a job whose worker was killed mid-ingest is picked up again by another worker and finishes the document', async () => {
  const res = await uploadFiles(t.baseUrl, owner.token, project.id, [{ name: 'crash.pdf', content: threePages('crash') }]);
  const id = res.body.documents[0].id;
  expect(await crashingWorker()).toBe(id);
  expect((await sql(`select status from documents where id = ?`, [id]))[0].status).toBe('processing');
  expect((await jobStates(id))[0].state).toBe('active');

  const w = await startWorkers();
  try {
    // the dead worker's job expires after INGEST_JOB_TIMEOUT_SECONDS and is retried here
    const doc = await waitForDocument(t.baseUrl, owner.token, id, 20_000);
    expect(doc).toMatchObject({ status: 'ready', pageCount: 3, chunkCount: 3, error: null });
    expect(await settledJobStates(id)).toEqual([{ state: 'completed', retry_count: 1 }]);
    expect((await sql(`select count(*)::int as n from chunks where document_id = ?`, [id]))[0].n).toBe(3);
  } finally {
    await w.stop();
  }
});

it('a document whose workers keep dying ends failed (dead letter) instead of processing forever', async () => {
  const res = await uploadFiles(t.baseUrl, owner.token, project.id, [{ name: 'cursed.pdf', content: threePages('cursed') }]);
  const id = res.body.documents[0].id;
  expect(await crashingWorker()).toBe(id); // first attempt dies
  // a maintenance round (any process with the queue started runs them) expires it into its one retry
  await new Promise((r) => setTimeout(r, JOB_TIMEOUT_S * 1000 + 500));
  await t.services.documents.ingestQueue.expireNow();
  expect(await crashingWorker()).toBe(id); // the retry dies too
  await new Promise((r) => setTimeout(r, JOB_TIMEOUT_S * 1000 + 500));
  await t.services.documents.ingestQueue.expireNow();
  expect((await jobStates(id))[0].state).toBe('failed');

  const w = await startWorkers(); // runs the dead-letter handler
  try {
    const doc = await waitForDocument(t.baseUrl, owner.token, id, 20_000);
    expect(doc.status).toBe('failed');
    expect(doc.error).toMatch(new RegExp(`did not finish within ${JOB_TIMEOUT_S} seconds`));
  } finally {
    await w.stop();
  }
});

it('a worker stopped gracefully mid-job hands the job back; the next worker finishes it', async () => {
  let blocking = true;
  const real = ParserPool.prototype.parseAndIndex;
  jest.spyOn(ParserPool.prototype, 'parseAndIndex').mockImplementation(async function (this: ParserPool, kind, buf, index, opts) {
    const { onProgress, signal } = opts;
    if (!blocking) return real.call(this, kind, buf, index, opts);
    await onProgress?.(1, 3);
    // a long parse that only ends when the worker is told to stop
    await new Promise<void>((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
    throw new Error('unreachable');
  });
  const first = await startWorkers({ SHUTDOWN_GRACE_MS: '300' });
  const res = await uploadFiles(t.baseUrl, owner.token, project.id, [{ name: 'graceful.pdf', content: threePages('graceful') }]);
  const id = res.body.documents[0].id;
  for (let i = 0; i < 100 && (await sql(`select pages_done from documents where id = ?`, [id]))[0].pages_done !== 1; i++)
    await new Promise((r) => setTimeout(r, 50));

  await first.stop();
  const handedBack = (await sql(`select status, error from documents where id = ?`, [id]))[0];
  expect(handedBack.status).toBe('queued');
  expect(handedBack.error).toMatch(/interrupted by shutdown/);
  expect((await jobStates(id))[0].state).toBe('retry'); // pg-boss counts the retry when it is fetched

  blocking = false;
  const second = await startWorkers();
  try {
    const doc = await waitForDocument(t.baseUrl, owner.token, id, 20_000);
    expect(doc).toMatchObject({ status: 'ready', chunkCount: 3, error: null });
  } finally {
    await second.stop();
  }
});
