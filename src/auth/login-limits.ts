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

/** How long an attempt past the pair's free failures holds the pair while its password is compared. */
const IN_FLIGHT_SECONDS = 60;

function retryAfter(ms: number): RateLimitedError {
  return new RateLimitedError(Math.max(1, Math.ceil(ms / 1000)));
}

/** Takes one point, or throws 429 with the time until one is free. */
async function consumeOr429(limiter: RateLimiterPostgres, key: string, duration?: number): Promise<void> {
  try {
    await limiter.consume(key, 1, duration === undefined ? {} : { customDuration: duration });
  } catch (e) {
    if (e instanceof RateLimiterRes) throw retryAfter(e.msBeforeNext);
    throw e;
  }
}

/** One counted attempt, settled by `failed` or `succeeded`. */
export interface LoginAttempt {
  email: string;
  client: string;
  /** The pair's failures with this attempt (finished or in flight). */
  pairCount: number;
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

  /**
   * Counts an attempt before its password is compared, so simultaneous attempts see each other:
   * each one takes its place in the pair's and the account's failure counts at once (an atomic
   * increment in PostgreSQL), and a place past the free ones needs the one slot per delay. A refused
   * attempt gives its place back. Throws 429 rate_limited (with Retry-After). The returned attempt
   * is settled with `failed` or `succeeded`.
   */
  async beforeAttempt(email: string, ip: string): Promise<LoginAttempt> {
    const client = clientKey(ip);
    if (this.perIp) await consumeOr429(this.perIp, client);
    const pair = keyOf(email, client);
    const account = keyOf(email);
    const taken: Array<() => Promise<unknown>> = [];
    const giveBack = () => Promise.all(taken.map((undo) => undo().catch(() => undefined)));
    const take = (limiter: RateLimiterPostgres | null, key: string) =>
      limiter
        ? limiter.penalty(key, 1).then((r) => {
            taken.push(() => limiter.reward(key, 1));
            return r.consumedPoints;
          })
        : 0;
    try {
      const [pairCount, accountCount, known] = await Promise.all([
        take(this.failures, pair),
        take(this.accountFailures, account),
        this.known ? this.known.get(pair) : null,
      ]);
      if (this.lockout && pairCount > this.limits.perAccount) {
        // past the pair's free failures: its lock (set by the last failure) must have passed, and
        // this attempt holds the pair until it is settled, so concurrent ones wait
        await consumeOr429(this.lockout, pair, IN_FLIGHT_SECONDS);
        taken.push(() => this.lockout!.delete(pair));
      }
      // the account's delay counts every earlier attempt, finished or in flight; known clients skip it
      const delay = delaySeconds(accountCount - 1, this.limits.accountTotal);
      if (this.accountGate && delay > 0 && !known) {
        // one attempt per delay: the first caller takes the slot and starts the delay; everyone
        // else (any address, any node) waits until it has passed
        await consumeOr429(this.accountGate, account, delay);
      }
      return { email, client, pairCount };
    } catch (e) {
      await giveBack();
      throw e;
    }
  }

  /** A wrong password (or unknown account): already counted; past the free failures the pair is locked for a while. */
  async failed(attempt: LoginAttempt): Promise<void> {
    if (!this.lockout) return;
    const pair = keyOf(attempt.email, attempt.client);
    const delay = delaySeconds(attempt.pairCount, this.limits.perAccount);
    // also replaces the hold this attempt took past the free failures
    if (delay > 0) await this.lockout.block(pair, delay);
  }

  /** The right password: the pair's and the account's failures (this attempt's place too) are forgotten, and the client becomes known. */
  async succeeded(attempt: LoginAttempt): Promise<void> {
    const pair = keyOf(attempt.email, attempt.client);
    const account = keyOf(attempt.email);
    await Promise.all([
      this.failures?.delete(pair),
      this.lockout?.delete(pair),
      this.accountFailures?.delete(account),
      this.accountGate?.delete(account),
      this.known?.set(pair, 1, KNOWN_ADDRESS_SECONDS),
    ]);
  }
}
