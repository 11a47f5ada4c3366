import { Writable } from 'node:stream';
import type { Project, User } from '../../src/entities';
import { Finisher, Outcome } from '../../src/ingest/pipeline/finish';
import type { DocumentProgress } from '../../src/ingest/progress';
import { createLogger } from '../../src/logger';
import { createMetrics, Metrics } from '../../src/observability/metrics';
import { uploadFiles, waitForDocument } from '../support/documents';
import { factories } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Issue 24: the document pipeline has one exit. Whatever an ingestion attempt's outcome, finish()
 * sets the status, writes the log line, records the metric and notifies progress exactly once.
 */
let t: TestApp;
let f: ReturnType<typeof factories>;
let owner: User & { token: string };
let project: Project;
const lines: Array<Record<string, any>> = [];
let metrics: Metrics;

const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    done();
  },
});

beforeAll(async () => {
  metrics = createMetrics();
  t = await createTestApp({ workers: true, logger: createLogger('info', sink), metrics, env: { PDF_MAX_PAGES: '50' } });
  f = factories(t.orm, t.services);
  owner = await f.makeUser({ platformRole: 'admin' });
  project = await f.makeProject({ owner });
}, 60_000);
afterAll(async () => t?.close());

/** Observations of the attempt-duration histogram, by outcome. */
async function attempts(): Promise<Record<string, number>> {
  const m = await metrics.ingestJobDuration.get();
  return Object.fromEntries(m.values.filter((v) => v.metricName?.endsWith('_count')).map((v) => [String(v.labels.outcome), v.value]));
}
const exitLines = (documentId: string) =>
  lines.filter((l) => l.documentId === documentId && /^(document ingested|document failed|ingestion)/.test(String(l.msg)));

it('an upload that becomes ready and one that fails on a limit: one status change, log line, metric and final event each', async () => {
  const before = await attempts();
  const res = await uploadFiles(t.baseUrl, owner.token, project.id, [
    { name: 'handbook.md', content: '# Handbook\n\nThe office opens at nine.\n\n## Leave\n\nStaff get 25 days of leave.\n' },
    { name: 'pages.txt', content: 'x\f'.repeat(51) },
  ]);
  expect(res.status).toBe(202);
  const [ready, failed] = res.body.documents.map((d: { id: string }) => d.id);
  const finals: Record<string, DocumentProgress[]> = { [ready]: [], [failed]: [] };
  for (const id of [ready, failed])
    t.services.documents.onProgress(id, (e) => (e.status === 'ready' || e.status === 'failed') && finals[id].push(e));
  const docs = await Promise.all([ready, failed].map((id) => waitForDocument(t.baseUrl, owner.token, id)));
  expect(docs.map((d) => d.status)).toEqual(['ready', 'failed']);
  expect(docs[1].error).toMatch(/more than the limit of 50/);
  await new Promise((r) => setTimeout(r, 300)); // anything late would show now
  const after = await attempts();
  expect((after.ready ?? 0) - (before.ready ?? 0)).toBe(1);
  expect((after.failed ?? 0) - (before.failed ?? 0)).toBe(1);
  expect(exitLines(ready).map((l) => l.msg)).toEqual(['document ingested']);
  expect(exitLines(failed).map((l) => l.msg)).toEqual(['document failed']);
  // the watcher may subscribe after a fast document finished: at most one final event, never two
  expect(finals[ready].length).toBeLessThanOrEqual(1);
  expect(finals[failed].length).toBeLessThanOrEqual(1);
});

it('finish(): every outcome sets the status, logs, counts and notifies exactly once', async () => {
  const em = () => t.orm.em.fork();
  const log: Array<{ level: string; msg: string }> = [];
  const logger = {
    info: (_o: unknown, msg: string) => log.push({ level: 'info', msg }),
    warn: (_o: unknown, msg: string) => log.push({ level: 'warn', msg }),
  } as never;
  const m = createMetrics();
  const announced: string[] = [];
  const embedded: string[] = [];
  const finisher = new Finisher({
    em,
    logger,
    metrics: m,
    announce: (_em, id) => Promise.resolve(void announced.push(id)),
    // the process's search wing removes a failed document's chunks; a ready one is recorded as handed to it
    search: { index: (id) => Promise.resolve(void embedded.push(id)), forget: (id, within) => t.services.search.forget(id, within) },
  });
  const exec = (sql: string, params: unknown[] = []) => em().getConnection().execute(sql, params);
  const doc = async (status: string) => {
    const [row] = await exec(
      `insert into documents (id, project_id, name, mime_type, size, sha256, content, status, page_count, chunk_count)
       values (gen_random_uuid(), ?, 'x.txt', 'text/plain', 1, md5(random()::text), 'x', ?, 3, 0) returning id`,
      [project.id, status],
    );
    return row.id as string;
  };
  const statusOf = async (id: string) => (await exec('select status, error from documents where id = ?', [id]))[0];
  const cases: Array<{ outcome: Outcome; from: string; status: string; retry: boolean; metric: string | null; msg: string }> = [
    {
      outcome: { kind: 'ready', pages: 3, chunks: 2 },
      from: 'processing',
      status: 'ready',
      retry: false,
      metric: 'ready',
      msg: 'document ingested',
    },
    {
      outcome: { kind: 'failed', reason: 'the document has 9 pages, more than the limit of 5', cause: 'unreadable' },
      from: 'processing',
      status: 'failed',
      retry: false,
      metric: 'failed',
      msg: 'document failed',
    },
    {
      outcome: { kind: 'retry', reason: 'connection reset', cause: 'error', attempt: 1, final: false },
      from: 'processing',
      status: 'queued',
      retry: true,
      metric: 'retry',
      msg: 'ingestion attempt failed; it will be retried',
    },
    {
      outcome: { kind: 'retry', reason: 'connection reset', cause: 'error', attempt: 4, final: true },
      from: 'processing',
      status: 'failed',
      retry: false,
      metric: 'failed',
      msg: 'ingestion failed on its last attempt',
    },
    {
      outcome: { kind: 'dead', reason: 'ingestion did not finish' },
      from: 'processing',
      status: 'failed',
      retry: false,
      metric: null,
      msg: 'document failed (job gave up)',
    },
  ];
  for (const c of cases) {
    const id = await doc(c.from);
    log.length = 0;
    announced.length = 0;
    const counts = JSON.stringify((await m.ingestJobDuration.get()).values.filter((v) => v.metricName?.endsWith('_count')));
    expect(await finisher.finish(id, c.outcome)).toBe(c.retry);
    expect((await statusOf(id)).status).toBe(c.status);
    expect(log.map((l) => l.msg)).toEqual([c.msg]);
    expect(announced).toEqual([id]);
    const now = (await m.ingestJobDuration.get()).values.filter((v) => v.metricName?.endsWith('_count'));
    const grew = now.filter((v) => !JSON.parse(counts).some((o: any) => o.labels.outcome === v.labels.outcome && o.value === v.value));
    expect(
      grew.map((v) => [
        v.labels.outcome,
        v.value - (JSON.parse(counts).find((o: any) => o.labels.outcome === v.labels.outcome)?.value ?? 0),
      ]),
    ).toEqual(c.metric ? [[c.metric, 1]] : []);
  }
  // the ready document went on to the embedding stage, once
  expect(embedded.length).toBe(1);
  // a dead letter for a document that finished meanwhile changes nothing and says nothing
  const finished = await doc('ready');
  log.length = 0;
  announced.length = 0;
  expect(await finisher.finish(finished, { kind: 'dead', reason: 'late' })).toBe(false);
  expect((await statusOf(finished)).status).toBe('ready');
  expect(log).toEqual([]);
  expect(announced).toEqual([]);
});
