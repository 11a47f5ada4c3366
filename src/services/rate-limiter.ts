import { RateLimitedError } from '../errors';

/**
 * Fixed-window attempt counter (per minute) kept in process memory. A limit of 0 disables it.
 * Windows are pruned lazily so memory stays bounded by the keys seen within a minute.
 */
export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();
  private lastPrune = Date.now();

  constructor(private readonly perMinute: number, private readonly windowMs = 60_000) {}

  /** Counts one attempt for `key`; throws 429 rate_limited once the window's limit is exceeded. */
  hit(key: string, now = Date.now()): void {
    if (this.perMinute <= 0) return;
    this.prune(now);
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    if (w.count > this.perMinute) {
      throw new RateLimitedError(Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000)));
    }
  }

  reset(key: string): void {
    this.windows.delete(key);
  }

  private prune(now: number): void {
    if (now - this.lastPrune < this.windowMs) return;
    this.lastPrune = now;
    for (const [k, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(k);
  }
}
