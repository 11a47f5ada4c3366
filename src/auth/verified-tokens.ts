/**
 * Access tokens this process has already verified (signature, algorithm, claims' shape), so a token
 * presented again skips jsonwebtoken's decode and HMAC (most of the authenticated hot path's own CPU
 * after the user read, issue 38). Only tokens that passed the full check are kept, with their `exp`:
 * a kept token is answered from here only while `exp` is ahead, exactly as jsonwebtoken judges it
 * (whole seconds, no clock tolerance); once due, or when unknown, the token goes through the full
 * verification again, which gives the same error it always gave. Nothing else is cached: the user is
 * still re-read on every request. Bounded: past `max` entries the oldest are forgotten.
 */
export class VerifiedTokens<C extends { exp?: number }> {
  private readonly map = new Map<string, C>();

  constructor(private readonly max = 10_000) {}

  /** The claims of `token` when it was verified before and has not expired since; else undefined. */
  get(token: string, nowMs = Date.now()): C | undefined {
    const claims = this.map.get(token);
    if (claims === undefined) return undefined;
    if (typeof claims.exp !== 'number' || Math.floor(nowMs / 1000) >= claims.exp) {
      this.map.delete(token);
      return undefined;
    }
    return claims;
  }

  /** Remembers a token that has just passed the full verification. */
  set(token: string, claims: C): void {
    if (this.map.size >= this.max) {
      // insertion order: the first key is the oldest
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
    this.map.set(token, Object.freeze({ ...claims }));
  }

  get size(): number {
    return this.map.size;
  }
}
