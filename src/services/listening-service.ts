import { PgListener } from '../db/pg-listener';
import { BaseService } from '../db/service-context';

/**
 * A service that LISTENs on PostgreSQL channels through a connection of its own, from `start()` to
 * `stop()`: the subclass names the connection and says what each channel (and a reconnect) does.
 */
export abstract class ListeningService extends BaseService {
  private listener: PgListener | null = null;
  /** The connection's application_name (visible in pg_stat_activity). */
  protected abstract readonly connectionName: string;

  /** Registers the channel handlers (`listener.on`, `listener.onReconnect`) before the connection opens. */
  protected abstract listen(listener: PgListener): void;

  async start(): Promise<void> {
    const listener = new PgListener(this.ctx.orm.config.get<'clientUrl', string>('clientUrl'), this.ctx.logger, this.connectionName);
    this.listen(listener);
    await listener.start();
    this.listener = listener;
  }

  async stop(): Promise<void> {
    const l = this.listener;
    this.listener = null;
    await l?.stop();
  }
}
