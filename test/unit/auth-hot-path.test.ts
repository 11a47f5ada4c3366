import { sharedStatement } from '../../src/auth/shared-statement';
import { VerifiedTokens } from '../../src/auth/verified-tokens';

describe('verified access tokens (src/auth/verified-tokens.ts)', () => {
  const now = Date.UTC(2026, 10, 27, 12, 0, 0);
  const exp = now / 1000 + 60;

  it('answers a kept token while its exp is ahead, judged as jsonwebtoken does (whole seconds, no tolerance)', () => {
    const v = new VerifiedTokens<{ sub: string; exp: number }>();
    v.set('t1', { sub: 'u1', exp });
    expect(v.get('t1', now)).toEqual({ sub: 'u1', exp });
    expect(v.get('t1', exp * 1000 - 1)).toEqual({ sub: 'u1', exp });
    // at exp the token is expired (jsonwebtoken: now >= exp), and it is forgotten
    expect(v.get('t1', exp * 1000)).toBeUndefined();
    expect(v.size).toBe(0);
    expect(v.get('t1', now)).toBeUndefined();
    expect(v.get('never seen', now)).toBeUndefined();
  });

  it('keeps a copy that cannot be changed, and a claim set without exp is never answered', () => {
    const v = new VerifiedTokens<{ sub: string; exp?: number }>();
    const claims = { sub: 'u1', exp };
    v.set('t1', claims);
    claims.sub = 'someone else';
    expect(v.get('t1', now)?.sub).toBe('u1');
    expect(Object.isFrozen(v.get('t1', now))).toBe(true);
    v.set('t2', { sub: 'u2' });
    expect(v.get('t2', now)).toBeUndefined();
  });

  it('is bounded: past max entries the oldest are forgotten', () => {
    const v = new VerifiedTokens<{ sub: string; exp: number }>(3);
    for (const t of ['a', 'b', 'c', 'd']) v.set(t, { sub: t, exp });
    expect(v.size).toBe(3);
    expect(v.get('a', now)).toBeUndefined();
    expect(['b', 'c', 'd'].map((t) => v.get(t, now)?.sub)).toEqual(['b', 'c', 'd']);
  });
});

describe('statements shared by the requests that arrive together (src/auth/shared-statement.ts)', () => {
  /** A statement that takes `ms` and records each batch it was given. */
  const recording = (ms: number) => {
    const batches: string[][] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const run = sharedStatement(async (inputs: readonly string[]) => {
      batches.push([...inputs]);
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise((r) => setTimeout(r, ms));
      inFlight--;
      if (inputs.includes('boom')) throw new Error('statement failed');
      return inputs.map((x) => `row of ${x}`);
    });
    return { run, batches, maxInFlight: () => maxInFlight };
  };

  it('requests of one turn share one statement; each gets its own answer, duplicates included', async () => {
    const s = recording(5);
    const out = await Promise.all(['a', 'b', 'a', 'c'].map((x) => s.run(x)));
    expect(out).toEqual(['row of a', 'row of b', 'row of a', 'row of c']);
    expect(s.batches).toEqual([['a', 'b', 'a', 'c']]);
  });

  it('at most two statements are in flight; requests arriving meanwhile go together in the next', async () => {
    const s = recording(20);
    const first = s.run('1');
    await new Promise((r) => setImmediate(r));
    const second = s.run('2');
    await new Promise((r) => setImmediate(r));
    // both slots taken: these wait, and then share one statement
    const waiting = ['3', '4', '5'].map((x) => s.run(x));
    await Promise.all([first, second, ...waiting]);
    expect(s.batches).toEqual([['1'], ['2'], ['3', '4', '5']]);
    expect(s.maxInFlight()).toBe(2);
  });

  it("a failed statement fails its batch's requests only; the next batch runs", async () => {
    const s = recording(1);
    const failed = await Promise.allSettled(['x', 'boom'].map((x) => s.run(x)));
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await s.run('y')).toBe('row of y');
  });
});
