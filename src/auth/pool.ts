import pg from 'pg';
import { scopedLogger } from '../observability/request-context';
import type { ServiceContext } from '../db/service-context';

/**
 * The authentication path's own small pool (hot path: every request re-reads its user, every login
 * reads one row and counts its attempt), kept apart from the ORM's so a login storm cannot starve
 * ordinary requests of connections. Opened on first use.
 */
export class AuthPool {
  private pool: pg.Pool | null = null;

  constructor(private readonly ctx: Pick<ServiceContext, 'orm' | 'logger'>) {}

  get(): pg.Pool {
    if (!this.pool) {
      this.pool = new pg.Pool({
        connectionString: this.ctx.orm.config.get('clientUrl'),
        max: 4,
        idleTimeoutMillis: 30_000,
        connectionTimeoutMillis: 5_000,
      });
      // an idle connection dropped by the server (restart) must not crash the process
      this.pool.on('error', (e) => scopedLogger(this.ctx.logger).warn({ err: e }, 'auth pool connection error'));
    }
    return this.pool;
  }

  /** The pool's connection counts (for metrics), or null before its first use. */
  stats(): { totalCount: number; idleCount: number; waitingCount: number } | null {
    return this.pool;
  }

  /** Closes the pool (shutdown). */
  async close(): Promise<void> {
    const p = this.pool;
    this.pool = null;
    if (p) await p.end();
  }
}
