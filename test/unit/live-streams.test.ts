import { LiveLoss, LiveStreams, parseAccessChange } from '../../src/access/live-streams';
import { ForbiddenError, RateLimitedError, UnauthorizedError } from '../../src/errors';
import { LiveTicket } from '../../src/services/live-access.service';

const U1 = '11111111-1111-4111-8111-111111111111';
const U2 = '22222222-2222-4222-8222-222222222222';
const P1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const P2 = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const D1 = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';

describe('the live stream registry (src/access/live-streams.ts)', () => {
  it('reads the trigger payloads; anything else means "re-check everything"', () => {
    expect(parseAccessChange(`{"u" : "${U1}"}`)).toEqual({ users: [U1] });
    expect(parseAccessChange(`{"p":"${P1}"}`)).toEqual({ projects: [P1] });
    expect(parseAccessChange(`{"d":"${D1}"}`)).toEqual({ documents: [D1] });
    expect(parseAccessChange('not json')).toEqual({ all: true });
    expect(parseAccessChange('{"x":1}')).toEqual({ all: true });
    expect(parseAccessChange('')).toEqual({ all: true });
  });

  it('a change names only the streams of that user, project or document', () => {
    const live = new LiveStreams(0);
    const a = live.add({ userId: U1, projectId: P1 }, () => undefined);
    const b = live.add({ userId: U2, projectId: P1, documentId: D1 }, () => undefined);
    const c = live.add({ userId: U2, projectId: P2 }, () => undefined);
    expect(live.affected({ users: [U1] })).toEqual([a]);
    expect(live.affected({ users: [U2] })).toEqual([b, c]);
    expect(live.affected({ projects: [P1] })).toEqual([a, b]);
    expect(live.affected({ documents: [D1] })).toEqual([b]);
    expect(live.affected({ users: [U1], projects: [P1] })).toEqual([a, b]); // each once
    expect(live.affected({ projects: ['cccccccc-cccc-4ccc-8ccc-cccccccccccc'] })).toEqual([]);
    expect(live.affected({ all: true })).toEqual([a, b, c]);
  });

  it('a stream ends once, and leaves the registry when it ends or is removed', () => {
    const live = new LiveStreams(0);
    const ends: LiveLoss[] = [];
    const a = live.add({ userId: U1, projectId: P1 }, (loss) => ends.push(loss));
    a.end(new ForbiddenError());
    a.end(new UnauthorizedError());
    expect(ends.map((e) => e.code)).toEqual(['forbidden']);
    expect(live.affected({ all: true })).toEqual([]);
    const b = live.add({ userId: U1, projectId: P1 }, () => undefined);
    live.remove(b);
    live.remove(b);
    expect(live.size).toBe(0);
    expect(live.countFor(U1)).toBe(0);
  });

  it('caps open streams per user (0: no cap); an ended stream frees its place', () => {
    const live = new LiveStreams(2);
    const a = live.add({ userId: U1, projectId: P1 }, () => undefined);
    live.add({ userId: U1, projectId: P2 }, () => undefined);
    expect(() => live.add({ userId: U1, projectId: P1 }, () => undefined)).toThrow(RateLimitedError);
    live.add({ userId: U2, projectId: P1 }, () => undefined); // another user has a budget of their own
    a.end(new ForbiddenError());
    expect(() => live.add({ userId: U1, projectId: P1 }, () => undefined)).not.toThrow();
    const unlimited = new LiveStreams(0);
    for (let i = 0; i < 100; i++) unlimited.add({ userId: U1, projectId: P1 }, () => undefined);
    expect(unlimited.countFor(U1)).toBe(100);
  });
});

describe('a ticket follows its source until access is lost', () => {
  async function* slow(stopped: { value: boolean }) {
    for (let i = 0; !stopped.value; i++) {
      yield i;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  const lostValue = (loss: LiveLoss) => -1 * (loss.code === 'forbidden' ? 1 : 2);

  it('passes values through, then stops the source and ends with the loss', async () => {
    const live = new LiveStreams(0);
    const ticket = new LiveTicket(live, { userId: U1, projectId: P1 });
    const stopped = { value: false };
    const it = ticket.follow(slow(stopped), () => (stopped.value = true), lostValue);
    expect((await it.next()).value).toBe(0);
    expect((await it.next()).value).toBe(1);
    live.affected({ projects: [P1] })[0].end(new ForbiddenError());
    expect((await it.next()).value).toBe(-1);
    expect((await it.next()).done).toBe(true);
    expect(stopped.value).toBe(true);
    expect(live.size).toBe(0);
  });

  it('a loss while the source is waiting ends the stream without waiting for the source', async () => {
    const live = new LiveStreams(0);
    const ticket = new LiveTicket(live, { userId: U1, projectId: P1 });
    let stopped = false;
    const never: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<number>>(() => undefined) }),
    };
    const it = ticket.follow(never, () => (stopped = true), lostValue);
    const pending = it.next();
    live.affected({ users: [U1] })[0].end(new UnauthorizedError());
    expect((await pending).value).toBe(-2);
    expect(stopped).toBe(true);
  });

  it('a loss before the first read ends it at once; leaving early frees the registry', async () => {
    const live = new LiveStreams(0);
    const early = new LiveTicket(live, { userId: U1, projectId: P1 });
    live.affected({ all: true })[0].end(new ForbiddenError());
    const it = early.follow(slow({ value: false }), () => undefined, lostValue);
    expect((await it.next()).value).toBe(-1);
    const left = new LiveTicket(live, { userId: U1, projectId: P1 });
    const stopped = { value: false };
    const it2 = left.follow(slow(stopped), () => (stopped.value = true), lostValue);
    await it2.next();
    await it2.return!();
    expect(stopped.value).toBe(true);
    expect(live.size).toBe(0);
  });
});
