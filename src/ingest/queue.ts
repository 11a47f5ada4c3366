import type { EntityManager } from '@mikro-orm/postgresql';
import PgBoss from 'pg-boss';
import type { Logger } from '../logger';
import { currentRequestId, makeScope, runInScope } from '../observability/request-context';

/** Queue of ingestion jobs; a job's data is `{ documentId, requestId? }`. */
export const INGEST_QUEUE = 'document-ingest';
/** Jobs that used up their retries (or whose worker kept dying) land here; its worker marks the document failed. */
export const INGEST_DEAD_QUEUE = 'document-ingest-dead';
/**
 * Background re-analysis of documents indexed with an older text analysis (language, CJK bigrams,
 * contextual headers). `stately`: at most one sweep waiting and one running.
 */
export const REANALYSE_QUEUE = 'document-reanalyse';
/** pg-boss keeps its tables in this schema of the application's database. */
export const JOBS_SCHEMA = 'pgboss';

export interface IngestJobData {
  documentId: string;
  /** The request that queued the job: the job's log lines carry it too. */
  requestId?: string;
}

export interface QueueSettings {
  /** Retries after the first attempt. */
  retryLimit: number;
  /** Base delay of the exponential backoff between attempts. */
  retryDelaySeconds: number;
  /** An active job older than this is considered dead (its worker crashed) and is retried. */
  jobTimeoutSeconds: number;
  /** How often expired jobs are looked for (one process does it at a time). */
  maintenanceSeconds: number;
  /** How often an idle worker polls for jobs. */
  pollingSeconds: number;
}

/** An ingestion job as the handler sees it. */
export interface IngestJob {
  id: string;
  documentId: string;
  /** 0 for the first attempt. */
  retryCount: number;
  retryLimit: number;
}

/**
 * pg-boss's `db` option takes `executeSql(text, values)` with $n placeholders; MikroORM's
 * connection (knex) takes `?`. This adapter lets a job be inserted inside the caller's
 * transaction, so a document row and its ingestion job commit together or not at all: an upload
 * answered 202 is never lost, and a rolled-back upload never leaves an orphan job.
 */
function transactionDb(em: EntityManager): PgBoss.Db {
  return {
    executeSql: async (text, values) => {
      const params: unknown[] = [];
      const sql = text.replace(/\$(\d+)/g, (_m, n: string) => {
        const v: unknown = values[Number(n) - 1];
        params.push(v !== null && typeof v === 'object' && !(v instanceof Date) ? JSON.stringify(v) : v);
        return '?';
      });
      const rows = await em.getConnection().execute(sql, params, 'all', em.getTransactionContext());
      return { rows: rows as unknown[] };
    },
  };
}

/**
 * The durable ingestion queue (pg-boss in the application's PostgreSQL). Retries use exponential
 * backoff; a job whose worker died stays `active` until `jobTimeoutSeconds`, then pg-boss's
 * maintenance fails it into a retry (or, with no retries left, into the dead-letter queue).
 *
 * Workers are our own fetch → handle → complete/fail loops rather than `boss.work()`: that lets a
 * job be aborted when its time is up or the process stops (its retry then starts promptly), and
 * every completion is awaited, so a database hiccup is logged instead of becoming an unhandled
 * rejection.
 */
export class IngestQueue {
  private boss: PgBoss | null = null;
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  /** Wakes idle loops (after a local enqueue commits, or on stop). */
  private wake = new AbortController();
  /** Aborts the jobs in flight (on stop, after the grace period). */
  private readonly abortAll = new AbortController();

  constructor(
    private readonly url: string,
    private readonly settings: QueueSettings,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    const boss = new PgBoss({
      connectionString: this.url,
      schema: JOBS_SCHEMA,
      application_name: 'docqa-jobs',
      max: 4,
      supervise: true,
      maintenanceIntervalSeconds: this.settings.maintenanceSeconds,
      schedule: false,
    });
    boss.on('error', (err) => this.logger.warn({ err }, 'job queue error'));
    await boss.start();
    // nodes starting together make the same queues at once; PostgreSQL may pick one of them as a
    // deadlock victim, and the queue statements are idempotent, so the loser simply runs them again
    await retryOnDeadlock(async () => {
      await boss.createQueue(INGEST_DEAD_QUEUE, { name: INGEST_DEAD_QUEUE, retryLimit: 5, retryDelay: 5, retryBackoff: true });
      const options: PgBoss.Queue = {
        name: INGEST_QUEUE,
        retryLimit: this.settings.retryLimit,
        retryDelay: this.settings.retryDelaySeconds,
        retryBackoff: true,
        expireInSeconds: this.settings.jobTimeoutSeconds,
        deadLetter: INGEST_DEAD_QUEUE,
      };
      await boss.createQueue(INGEST_QUEUE, options);
      await boss.updateQueue(INGEST_QUEUE, options); // settings may have changed since the queue was made
      await boss.createQueue(REANALYSE_QUEUE, {
        name: REANALYSE_QUEUE,
        policy: 'stately',
        retryLimit: 5,
        retryDelay: 30,
        retryBackoff: true,
        expireInSeconds: this.settings.jobTimeoutSeconds,
      });
    });
    this.boss = boss;
  }

  private get started(): PgBoss {
    if (!this.boss) throw new Error('the ingestion queue is not started');
    return this.boss;
  }

  /** Adds an ingestion job inside the transaction `em` belongs to. */
  async enqueue(em: EntityManager, documentId: string): Promise<void> {
    const requestId = currentRequestId();
    const data: IngestJobData = requestId ? { documentId, requestId } : { documentId };
    await this.started.insert([{ name: INGEST_QUEUE, data }], { db: transactionDb(em) });
  }

  /** Asks for a re-analysis sweep (ignored while one is already waiting). */
  async enqueueReanalysis(): Promise<void> {
    await this.started.send(REANALYSE_QUEUE, {});
  }

  /** Runs `handler` for re-analysis sweeps, one at a time in this process. */
  workReanalysis(handler: (signal: AbortSignal) => Promise<void>): void {
    this.loops.push(this.loop(REANALYSE_QUEUE, (_job, signal) => handler(signal)));
  }

  /** Tells this process's idle workers to look for jobs now (call after an enqueue committed). */
  nudge(): void {
    this.wake.abort();
    this.wake = new AbortController();
  }

  /**
   * Runs `handler` for ingestion jobs, `concurrency` at a time. A throw fails the attempt (retried
   * with backoff); `signal` aborts when the job's time is up or the process stops.
   */
  work(concurrency: number, handler: (job: IngestJob, signal: AbortSignal) => Promise<void>): void {
    for (let i = 0; i < concurrency; i++) this.loops.push(this.loop(INGEST_QUEUE, handler));
  }

  /** Runs `handler` for jobs that will not be retried again, with the last failure's message. */
  workDead(handler: (documentId: string, reason: string) => Promise<void>): void {
    this.loops.push(this.loop(INGEST_DEAD_QUEUE, (job) => handler(job.documentId, job.lastError)));
  }

  private async loop(
    queue: string,
    handler: (job: IngestJob & { lastError: string }, signal: AbortSignal) => Promise<void>,
  ): Promise<void> {
    while (!this.stopping) {
      let job: PgBoss.JobWithMetadata<IngestJobData> | undefined;
      try {
        [job] = await this.started.fetch<IngestJobData>(queue, { includeMetadata: true, batchSize: 1 });
      } catch (err) {
        if (!this.stopping) this.logger.warn({ err, queue }, 'fetching jobs failed');
      }
      if (!job) {
        await sleep(this.settings.pollingSeconds * 1000, this.wake.signal);
        continue;
      }
      const timeout = AbortSignal.timeout(this.settings.jobTimeoutSeconds * 1000);
      const signal = AbortSignal.any([timeout, this.abortAll.signal]);
      const scope = makeScope(this.logger, typeof job.data.requestId === 'string' ? job.data.requestId : undefined, {
        jobId: job.id,
        documentId: job.data.documentId,
      });
      try {
        const run = {
          id: job.id,
          documentId: job.data.documentId,
          retryCount: job.retryCount,
          retryLimit: job.retryLimit,
          lastError: failureReason(job.output),
        };
        await runInScope(scope, () => handler(run, signal));
        await this.started.complete(queue, job.id).catch((err) => this.logger.warn({ err, jobId: job.id }, 'completing a job failed'));
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        await this.started
          .fail(queue, job.id, { message })
          .catch((err) => this.logger.warn({ err, jobId: job.id }, 'failing a job failed'));
      }
    }
  }

  /** Fails jobs whose time is up now instead of at the next maintenance round (tests, operators). */
  async expireNow(): Promise<void> {
    await this.started.expire();
  }

  /**
   * Stops taking jobs and waits up to `graceMs` for running ones; jobs still running then are
   * aborted and failed into a retry, so another worker picks them up promptly.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    this.wake.abort();
    const all = Promise.allSettled(this.loops).then(() => true);
    if (!(await within(all, graceMs))) {
      this.abortAll.abort(new Error('ingestion interrupted by shutdown; it will be retried'));
      await within(all, 5000);
    }
    const boss = this.boss;
    this.boss = null;
    if (boss) await boss.stop({ graceful: false, wait: true, close: true });
  }
}

/** Resolves after `ms`, or early when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** Waits for `p` at most `ms`; false when the time ran out first. */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([p.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The message stored with a failed job: ours (`{message}`), or pg-boss's own (e.g. an expiry). */
function failureReason(output: unknown): string {
  const o = output as { message?: unknown; value?: unknown } | null;
  if (o && typeof o.message === 'string') return o.message;
  if (o && typeof o.value === 'string') return o.value;
  const v = o?.value as { message?: unknown } | undefined;
  if (v && typeof v.message === 'string') return v.message;
  return '';
}

/** Runs `fn` again (up to 5 times, with a short random pause) when PostgreSQL aborts it as a deadlock victim. */
export async function retryOnDeadlock(fn: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if ((e as { code?: unknown }).code !== '40P01' || attempt >= 5) throw e;
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 200 * attempt));
    }
  }
}
