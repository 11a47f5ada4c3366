import PgBoss from 'pg-boss';
import type { Logger } from '../logger';
import { JOBS_SCHEMA, retryOnDeadlock } from './queue';

/** Queue of embedding jobs; a job's data is `{ documentId }`: fill in the document's missing vectors. */
export const EMBED_QUEUE = 'embed-document';

export interface EmbedQueueSettings {
  retryLimit: number;
  retryDelaySeconds: number;
  /** An active job older than this is taken as dead and retried. */
  expireSeconds: number;
  pollingSeconds: number;
}

/**
 * The embedding stage's durable queue (pg-boss, the ingestion queue's schema). It runs after a
 * document's text is indexed and committed, so the document is `ready` and searchable lexically
 * whatever happens here: a failing embedder only fails these jobs (retried with exponential
 * backoff), and the periodic sweep enqueues again whatever still lacks vectors. Jobs are idempotent
 * (they embed only chunks without a vector of the current model), so a duplicate costs a query.
 */
export class EmbedQueue {
  private boss: PgBoss | null = null;
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  private wake: (() => void) | null = null;

  constructor(
    private readonly url: string,
    private readonly settings: EmbedQueueSettings,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    // the ingestion queue (started first) created the schema and supervises every queue in it
    const boss = new PgBoss({
      connectionString: this.url,
      schema: JOBS_SCHEMA,
      application_name: 'docqa-embed',
      max: 2,
      supervise: false,
      schedule: false,
    });
    boss.on('error', (err) => this.logger.warn({ err }, 'embedding queue error'));
    await boss.start();
    const options: PgBoss.Queue = {
      name: EMBED_QUEUE,
      retryLimit: this.settings.retryLimit,
      retryDelay: this.settings.retryDelaySeconds,
      retryBackoff: true,
      expireInSeconds: this.settings.expireSeconds,
    };
    // see IngestQueue.start: nodes starting together may deadlock on the queue statements
    await retryOnDeadlock(async () => {
      await boss.createQueue(EMBED_QUEUE, options);
      await boss.updateQueue(EMBED_QUEUE, options);
    });
    this.boss = boss;
  }

  /**
   * Asks for a document's vectors. `dedupeSeconds` drops a request for the same document made in
   * the same time slot (the sweep's, so it never piles up jobs behind an embedder that is down).
   */
  async enqueue(documentId: string, dedupeSeconds?: number): Promise<void> {
    if (!this.boss) return;
    await this.boss.send(EMBED_QUEUE, { documentId }, dedupeSeconds ? { singletonKey: documentId, singletonSeconds: dedupeSeconds } : {});
    this.wake?.();
  }

  /**
   * Runs `handler` for embedding jobs, `concurrency` at a time; a throw fails the attempt (retried
   * with backoff). A loop that found a job asks again at once; an idle one waits `pollingSeconds`
   * (or less, when enqueue() in this process wakes it).
   */
  work(concurrency: number, handler: (documentId: string) => Promise<void>): void {
    for (let i = 0; i < concurrency; i++) this.loops.push(this.loop(handler));
  }

  private async loop(handler: (documentId: string) => Promise<void>): Promise<void> {
    while (this.boss && !this.stopping) {
      const boss = this.boss;
      let job: PgBoss.Job<{ documentId: string }> | undefined;
      try {
        [job] = await boss.fetch<{ documentId: string }>(EMBED_QUEUE, { batchSize: 1 });
      } catch (err) {
        if (!this.stopping) this.logger.warn({ err }, 'fetching embedding jobs failed');
      }
      if (!job) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, this.settings.pollingSeconds * 1000);
          this.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        this.wake = null;
        continue;
      }
      try {
        await handler(job.data.documentId);
        await boss.complete(EMBED_QUEUE, job.id).catch((err) => this.logger.warn({ err }, 'completing an embedding job failed'));
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        this.logger.warn({ documentId: job.data.documentId, reason: message }, 'embedding attempt failed; it will be retried');
        await boss.fail(EMBED_QUEUE, job.id, { message }).catch((err) => this.logger.warn({ err }, 'failing an embedding job failed'));
      }
    }
  }

  /** Stops taking jobs; a job in flight finishes (or is retried after its expiry if the process dies). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await Promise.allSettled(this.loops);
    const boss = this.boss;
    this.boss = null;
    if (boss) await boss.stop({ graceful: false, wait: true, close: true });
  }
}
