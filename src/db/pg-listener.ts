import pg from 'pg';
import type { Logger } from '../logger';

type Handler = (payload: string) => void;

/**
 * One dedicated PostgreSQL connection per process that LISTENs on any number of channels: however
 * many streams wait on notifications, they share it. Re-established a second after it is lost
 * (a database restart); `onReconnect` handlers run then, because whatever was notified while the
 * connection was down is gone and its listeners must re-read the truth.
 */
export class PgListener {
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly reconnected = new Set<() => void>();
  private client: pg.Client | null = null;
  private stopped = true;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly url: string,
    private readonly logger: Logger,
    private readonly name = 'docqa-listener',
  ) {}

  /** Calls `handler` with each notification's payload on `channel`; returns the unsubscribe function. */
  on(channel: string, handler: Handler): () => void {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      // a channel added after start is listened to at once (before start: by connect())
      this.client?.query(`listen ${channel}`).catch((err: unknown) => this.logger.warn({ err, channel }, 'listen failed'));
    }
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Runs `handler` after the connection was lost and re-established. */
  onReconnect(handler: () => void): () => void {
    this.reconnected.add(handler);
    return () => this.reconnected.delete(handler);
  }

  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: this.name });
    const lost = () => {
      if (this.client !== client) return;
      this.client = null;
      client.end().catch(() => undefined);
      this.reconnectSoon();
    };
    client.on('error', (err) => {
      this.logger.warn({ err }, 'notification listener connection lost');
      lost();
    });
    client.on('end', lost);
    client.on('notification', (n) => {
      for (const h of this.handlers.get(n.channel) ?? []) {
        try {
          h(n.payload ?? '');
        } catch (err) {
          this.logger.warn({ err, channel: n.channel }, 'notification handler failed');
        }
      }
    });
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`listen ${channel}`);
    } catch (e) {
      client.end().catch(() => undefined);
      throw e;
    }
    if (this.stopped) await client.end().catch(() => undefined);
    else this.client = client;
  }

  private reconnectSoon(): void {
    if (this.stopped || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (this.stopped) return;
      this.connect().then(
        () => {
          for (const h of this.reconnected) h();
        },
        (err: unknown) => {
          this.logger.warn({ err }, 'notification listener reconnect failed');
          this.reconnectSoon();
        },
      );
    }, 1000);
    this.retry.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }
}
