import { createHash } from 'node:crypto';
import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { RateLimitedError } from '../errors';
import { clientKey, delaySeconds, LOCKOUT_MAX_SECONDS } from './login-policy';

/** Consecutive failures are forgotten a day after the first one (or at the next success). */
const FAILURE_WINDOW_SECONDS = 24 * 3600;
/** How long an address that signed in to an account stays known to it (renewed by each success). */
const KNOWN_ADDRESS_SECONDS = 90 * 24 * 3600;

const TABLE = 'rate_limits';

function retryAfter(ms: number): RateLimitedError {
  return new RateLimitedError(Math.max(1, Math.ceil(ms / 1000)));
}

/** An account (and optionally a client); hashed, so the table holds no addresses or emails. */
const keyOf = (...parts: string[]): string => createHash('sha256').update(parts.join('\n')).digest('hex');

export interface LoginLimits {
  /** Attempts per client a minute. */
  perIp: number;
  /** Free consecutive failures of one account from one client. */
  perAccount: number;
  /** Free failures of one account from every client together. */
  accountTotal: number;
}

/**
 * Login limits, with counters in PostgreSQL (`rate-limiter-flexible`'s store, table
 * `rate_limits`), so every node counts the same attempts. A client is an IPv4 address or an IPv6
 * /64 (clientKey). Decision 0009.
 * - per client: `perIp` attempts a minute;
 * - per account and client together: `perAccount` consecutive failures are free, then each
 *   further failure locks that pair out for an exponentially growing delay (1 s, 2 s, 4 s, … up to
 *   15 min). A success clears the pair.
 * - per account across every client: past `accountTotal` failures, the account admits one
 *   attempt per delay (growing the same way) from clients that have never signed in to it; the
 *   slot is claimed atomically, so many addresses on many nodes still get one guess per delay.
 *   Clients that have signed in to the account before skip this gate, so the owner is not locked
 *   out. A success clears the account's count.
 * A limit of 0 turns it off.
 */
export class LoginLimiter {
  private readonly perIp: RateLimiterPostgres | null;
  private readonly failures: RateLimiterPostgres | null;
  private readonly lockout: RateLimiterPostgres | null;
  private readonly accountFailures: RateLimiterPostgres | null;
  private readonly accountGate: RateLimiterPostgres | null;
  private readonly known: RateLimiterPostgres | null;

  constructor(
    pool: pg.Pool,
    private readonly limits: LoginLimits,
  ) {
    const store = { storeClient: pool, storeType: 'pool', tableName: TABLE, tableCreated: true };
    const limiter = (keyPrefix: string, points: number, duration: number) =>
      new RateLimiterPostgres({ ...store, keyPrefix, points, duration });
    const pairs = limits.perAccount > 0;
    const account = limits.accountTotal > 0;
    this.perIp = limits.perIp > 0 ? limiter('login_ip', limits.perIp, 60) : null;
    this.failures = pairs ? limiter('login_fail', Number.MAX_SAFE_INTEGER, FAILURE_WINDOW_SECONDS) : null;
    this.lockout = pairs ? limiter('login_lock', 1, LOCKOUT_MAX_SECONDS) : null;
    this.accountFailures = account ? limiter('login_acct_fail', Number.MAX_SAFE_INTEGER, FAILURE_WINDOW_SECONDS) : null;
    this.accountGate = account ? limiter('login_acct_gate', 1, LOCKOUT_MAX_SECONDS) : null;
    this.known = account ? limiter('login_known', Number.MAX_SAFE_INTEGER, KNOWN_ADDRESS_SECONDS) : null;
  }

  /** Counts an attempt; throws 429 rate_limited (with Retry-After) when over a limit or locked out. */
  async beforeAttempt(email: string, ip: string): Promise<void> {
    const client = clientKey(ip);
    if (this.perIp) {
      try {
        await this.perIp.consume(client);
      } catch (e) {
        if (e instanceof RateLimiterRes) throw retryAfter(e.msBeforeNext);
        throw e;
      }
    }
    if (this.lockout) {
      const lock = await this.lockout.get(keyOf(email, client));
      if (lock && lock.consumedPoints > 1 && lock.msBeforeNext > 0) throw retryAfter(lock.msBeforeNext);
    }
    if (this.accountFailures && this.accountGate && this.known) {
      const failed = (await this.accountFailures.get(keyOf(email)))?.consumedPoints ?? 0;
      const delay = delaySeconds(failed, this.limits.accountTotal);
      if (delay === 0 || (await this.known.get(keyOf(email, client)))) return;
      try {
        // one attempt per delay: the first caller takes the slot and starts the delay; everyone
        // else (any address, any node) waits until it has passed
        await this.accountGate.consume(keyOf(email), 1, { customDuration: delay });
      } catch (e) {
        if (e instanceof RateLimiterRes) throw retryAfter(e.msBeforeNext);
        throw e;
      }
    }
  }

  /** A wrong password (or unknown account): past the free failures, lock the pair out for a while. */
  async failed(email: string, ip: string): Promise<void> {
    const pair = keyOf(email, clientKey(ip));
    await Promise.all([
      this.failures && this.lockout
        ? this.failures.penalty(pair, 1).then(async (res) => {
            const delay = delaySeconds(res.consumedPoints, this.limits.perAccount);
            if (delay > 0) await this.lockout?.block(pair, delay);
          })
        : null,
      this.accountFailures?.penalty(keyOf(email), 1),
    ]);
  }

  /** The right password: the pair's and the account's failures are forgotten, and the client becomes known. */
  async succeeded(email: string, ip: string): Promise<void> {
    const pair = keyOf(email, clientKey(ip));
    const account = keyOf(email);
    await Promise.all([
      this.failures?.delete(pair),
      this.lockout?.delete(pair),
      this.accountFailures?.delete(account),
      this.accountGate?.delete(account),
      this.known?.set(pair, 1, KNOWN_ADDRESS_SECONDS),
    ]);
  }
}
