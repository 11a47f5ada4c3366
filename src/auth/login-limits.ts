import { createHash } from 'node:crypto';
import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitedError } from '../errors';

/** The first delay after the free failures, doubled by each further failure, up to the cap. */
export const LOCKOUT_BASE_SECONDS = 1;
export const LOCKOUT_MAX_SECONDS = 15 * 60;
/** Consecutive failures are forgotten a day after the first one (or at the next success). */
const FAILURE_WINDOW_SECONDS = 24 * 3600;

const TABLE = 'rate_limits';

function retryAfter(ms: number): RateLimitedError {
  return new RateLimitedError(Math.max(1, Math.ceil(ms / 1000)));
}

/**
 * Login limits, with counters in PostgreSQL (`rate-limiter-flexible`'s store, table
 * `rate_limits`), so every node counts the same attempts:
 * - per client address: `perIp` attempts a minute;
 * - per account and address together: `perAccount` consecutive failures are free, then each
 *   further failure locks that pair out for an exponentially growing delay (1 s, 2 s, 4 s, … up to
 *   15 min). Keyed on the pair, an attacker elsewhere slows only their own attempts: the victim's
 *   own address keeps its free attempts. A success clears the pair.
 * A limit of 0 turns it off.
 */
export class LoginLimiter {
  private readonly perIp: RateLimiterPostgres | null;
  private readonly failures: RateLimiterPostgres | null;
  private readonly lockout: RateLimiterPostgres | null;

  constructor(
    pool: pg.Pool,
    private readonly limits: { perIp: number; perAccount: number },
  ) {
    const store = { storeClient: pool, storeType: 'pool', tableName: TABLE, tableCreated: true };
    this.perIp = limits.perIp > 0 ? new RateLimiterPostgres({ ...store, keyPrefix: 'login_ip', points: limits.perIp, duration: 60 }) : null;
    this.failures =
      limits.perAccount > 0
        ? new RateLimiterPostgres({ ...store, keyPrefix: 'login_fail', points: Number.MAX_SAFE_INTEGER, duration: FAILURE_WINDOW_SECONDS })
        : null;
    this.lockout =
      limits.perAccount > 0
        ? new RateLimiterPostgres({ ...store, keyPrefix: 'login_lock', points: 1, duration: LOCKOUT_MAX_SECONDS })
        : null;
  }

  /** The account+address key; hashed, so the table holds no addresses or emails. */
  private pairKey(email: string, ip: string): string {
    return createHash('sha256').update(`${email}\n${ip}`).digest('hex');
  }

  /** Counts an attempt; throws 429 rate_limited (with Retry-After) when over a limit or locked out. */
  async beforeAttempt(email: string, ip: string): Promise<void> {
    if (this.perIp) {
      try {
        await this.perIp.consume(ip);
      } catch (e) {
        if (e instanceof RateLimiterRes) throw retryAfter(e.msBeforeNext);
        throw e;
      }
    }
    if (this.lockout) {
      const lock = await this.lockout.get(this.pairKey(email, ip));
      if (lock && lock.consumedPoints > 1 && lock.msBeforeNext > 0) throw retryAfter(lock.msBeforeNext);
    }
  }

  /** A wrong password (or unknown account): past the free failures, lock the pair out for a while. */
  async failed(email: string, ip: string): Promise<void> {
    if (!this.failures || !this.lockout) return;
    const key = this.pairKey(email, ip);
    const res = await this.failures.penalty(key, 1);
    const over = res.consumedPoints - this.limits.perAccount;
    if (over >= 0) await this.lockout.block(key, Math.min(LOCKOUT_MAX_SECONDS, LOCKOUT_BASE_SECONDS * 2 ** Math.min(over, 30)));
  }

  async succeeded(email: string, ip: string): Promise<void> {
    if (!this.failures || !this.lockout) return;
    const key = this.pairKey(email, ip);
    await Promise.all([this.failures.delete(key), this.lockout.delete(key)]);
  }
}
