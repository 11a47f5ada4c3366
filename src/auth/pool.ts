import pg from 'pg';
import { scopedLogger } from '../observability/request-context';
import type { ServiceContext } from '../db/service-context';

/**
 * The authentication path's own small pools (hot path: every request re-reads its user, every login
 * reads one row and counts its attempt), kept apart from the ORM's so a login storm cannot starve
 * ordinary requests of connections. Opened on first use.
 */
export class AuthPool {
  private pool: pg.Pool | null = null;
  private unflushedPool: pg.Pool | null = null;

  constructor(private readonly ctx: Pick<ServiceContext, 'orm' | 'logger'>) {}

  private open(max: number, options?: string): pg.Pool {
    const pool = new pg.Pool({
      connectionString: this.ctx.orm.config.get('clientUrl'),
      max,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 5_000,
      ...(options ? { options } : {}),
    });
    // an idle connection dropped by the server (restart) must not crash the process
    pool.on('error', (e) => scopedLogger(this.ctx.logger).warn({ err: e }, 'auth pool connection error'));
    return pool;
  }

  get(): pg.Pool {
    return (this.pool ??= this.open(4));
  }

  /**
   * Connections whose commits do not wait for the WAL to reach the disk (`synchronous_commit = off`),
   * for bookkeeping only: a key's per-minute count and `last_used_at`. What they commit is visible to
   * every other transaction at once, like any commit (so the count holds across nodes); only a crash
   * of PostgreSQL itself may lose the last fraction of a second of it (at most 3 × `wal_writer_delay`).
   * Never for anything that must survive that: audit entries, tokens, accounts.
   */
  unflushed(): pg.Pool {
    return (this.unflushedPool ??= this.open(2, '-c synchronous_commit=off'));
  }

  /** The main pool's connection counts (for metrics), or null before its first use. */
  stats(): { totalCount: number; idleCount: number; waitingCount: number } | null {
    return this.pool;
  }

  /** Closes the pools (shutdown). */
  async close(): Promise<void> {
    const pools = [this.pool, this.unflushedPool];
    this.pool = null;
    this.unflushedPool = null;
    await Promise.all(pools.map((p) => p?.end()));
  }
}
