import type { EntityManager } from '@mikro-orm/postgresql';
import PgBoss from 'pg-boss';
import type { Logger } from '../../logger';
import { currentRequestId, makeScope, runInScope } from '../../observability/request-context';
import { JOBS_SCHEMA } from '../../db/schemas';
import { JobKind, JobSettings, queueOptions } from './queues';
import { query } from '../../db/sql';
import { LATE, within } from '../../util/within';

/** A job as its handler sees it. */
export interface HostJob {
  id: string;
  /** The document the job is about (ingest, dead-letter, embed); '' for sweeps. */
  documentId: string;
  /** 0 for the first attempt. */
  retryCount: number;
  retryLimit: number;
  /** The last attempt's failure (dead-letter jobs: why the job gave up). */
  lastError: string;
}

export type JobHandler = (job: HostJob, signal: AbortSignal) => Promise<void>;

interface JobData {
  documentId?: string;
  /** The request that queued the job: the job's log lines carry it too. */
  requestId?: string;
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
      const rows = await query(em, sql, params);
      return { rows: rows as unknown[] };
    },
  };
}

/**
 * The process's one job host: a single pg-boss instance (one small pool of connections) serving
 * every job kind — ingestion, its dead letters, the embedding stage, the re-analysis sweep — and
 * the periodic sweeps. Retries use exponential backoff; a job whose worker died stays `active`
 * until its expiry, then pg-boss's maintenance fails it into a retry (or the dead-letter queue).
 *
 * Workers are our own fetch → handle → complete/fail loops rather than `boss.work()`: a job is
 * aborted when its time is up or the process stops (its retry then starts promptly), and every
 * completion is awaited, so a database hiccup is logged instead of becoming an unhandled rejection.
 */
export class JobHost {
  private boss: PgBoss | null = null;
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly periodic = new Set<Promise<unknown>>();
  /** Wakes idle loops (after a local enqueue commits, or on stop). */
  private wake = new AbortController();
  /** Aborts the jobs in flight (on stop, after the grace period). */
  private readonly abortAll = new AbortController();

  constructor(
    private readonly url: string,
    private readonly settings: JobSettings,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    const boss = new PgBoss({
      connectionString: this.url,
      schema: JOBS_SCHEMA,
      application_name: 'docqa-jobs',
      // one pool for every job kind (it replaced two instances of 4 and 2 connections)
      max: 6,
      supervise: true,
      maintenanceIntervalSeconds: this.settings.maintenanceSeconds,
      schedule: false,
    });
    boss.on('error', (err) => this.logger.warn({ err }, 'job queue error'));
    await boss.start();
    // nodes starting together make the same queues at once; PostgreSQL may pick one of them as a
    // deadlock victim, and the queue statements are idempotent, so the loser simply runs them again
    await retryOnDeadlock(async () => {
      for (const options of queueOptions(this.settings)) {
        await boss.createQueue(options.name, options);
        await boss.updateQueue(options.name, options);
      }
    });
    this.boss = boss;
  }

  private get started(): PgBoss {
    if (!this.boss) throw new Error('the job host is not started');
    return this.boss;
  }

  /** Adds a job inside the transaction `em` belongs to (it exists once that commits). */
  async insert(em: EntityManager, kind: JobKind, documentId: string): Promise<void> {
    const requestId = currentRequestId();
    const data: JobData = requestId ? { documentId, requestId } : { documentId };
    await this.started.insert([{ name: kind, data }], { db: transactionDb(em) });
  }

  /**
   * Adds a job now. `dedupeSeconds` drops a request for the same document made in the same time
   * slot (sweeps use it, so jobs never pile up behind an embedder that is down).
   */
  async send(kind: JobKind, documentId = '', dedupeSeconds?: number): Promise<void> {
    const opts = dedupeSeconds && documentId ? { singletonKey: documentId, singletonSeconds: dedupeSeconds } : {};
    await this.started.send(kind, documentId ? { documentId } : {}, opts);
    this.nudge();
  }

  /** Tells this process's idle workers to look for jobs now (call after an enqueue committed). */
  nudge(): void {
    this.wake.abort();
    this.wake = new AbortController();
  }

  /**
   * Runs `handler` for jobs of `kind`, `concurrency` at a time. A throw fails the attempt (retried
   * with backoff); `signal` aborts when the job's time is up or the process stops.
   */
  work(kind: JobKind, concurrency: number, handler: JobHandler): void {
    for (let i = 0; i < concurrency; i++) this.loops.push(this.loop(kind, handler));
  }

  /** Runs `task` every `seconds` (never two at once in this process); stop() waits for a run in flight. */
  every(seconds: number, name: string, task: () => Promise<unknown>): void {
    let running: Promise<unknown> | null = null;
    const timer = setInterval(() => {
      if (running || this.stopping) return;
      running = task()
        .catch((err) => this.logger.warn({ err, task: name }, 'periodic job failed'))
        .finally(() => {
          if (running) this.periodic.delete(running);
          running = null;
        });
      this.periodic.add(running);
    }, seconds * 1000);
    timer.unref();
    this.timers.push(timer);
  }

  private async loop(kind: JobKind, handler: JobHandler): Promise<void> {
    while (!this.stopping) {
      let job: PgBoss.JobWithMetadata<JobData> | undefined;
      try {
        [job] = await this.started.fetch<JobData>(kind, { includeMetadata: true, batchSize: 1 });
      } catch (err) {
        if (!this.stopping) this.logger.warn({ err, queue: kind }, 'fetching jobs failed');
      }
      if (!job) {
        await sleep(this.settings.pollingSeconds * 1000, this.wake.signal);
        continue;
      }
      const timeout = AbortSignal.timeout(this.settings.jobTimeoutSeconds * 1000);
      const signal = AbortSignal.any([timeout, this.abortAll.signal]);
      const documentId = typeof job.data?.documentId === 'string' ? job.data.documentId : '';
      const scope = makeScope(this.logger, typeof job.data?.requestId === 'string' ? job.data.requestId : undefined, {
        jobId: job.id,
        ...(documentId ? { documentId } : {}),
      });
      const run: HostJob = {
        id: job.id,
        documentId,
        retryCount: job.retryCount,
        retryLimit: job.retryLimit,
        lastError: failureReason(job.output),
      };
      try {
        await runInScope(scope, () => handler(run, signal));
        await this.started.complete(kind, job.id).catch((err) => this.logger.warn({ err, jobId: run.id }, 'completing a job failed'));
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        await this.started.fail(kind, job.id, { message }).catch((err) => this.logger.warn({ err, jobId: run.id }, 'failing a job failed'));
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
    for (const t of this.timers) clearInterval(t);
    this.wake.abort();
    const all = Promise.allSettled([...this.loops, ...this.periodic]);
    if ((await within(all, graceMs)) === LATE) {
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
