import type { Actor } from '../access/actor';
import {
  ACCESS_CHANNEL,
  AccessChange,
  accessLost,
  LiveEntry,
  LiveLoss,
  LiveScope,
  LiveStreams,
  parseAccessChange,
} from '../access/live-streams';
import type { PgListener } from '../db/pg-listener';
import type { ServiceContext } from '../db/service-context';
import { ListeningService } from './listening-service';

const LOST = Symbol('lost');

/**
 * One open stream's hold on the registry: opened before the stream's access check (so a change
 * committed during the check is not missed), closed when the stream ends however it ends.
 */
export class LiveTicket {
  lost: LiveLoss | null = null;
  private readonly waiters = new Set<() => void>();
  private readonly entry: LiveEntry;

  constructor(
    private readonly streams: LiveStreams,
    scope: LiveScope,
  ) {
    this.entry = streams.add(scope, (loss) => {
      this.lost = loss;
      for (const w of this.waiters) w();
      this.waiters.clear();
    });
  }

  /** Leaves the registry (the stream ended, or never started). */
  close(): void {
    this.streams.remove(this.entry);
  }

  /**
   * `source` until it ends, or until access is lost: then `stop()` (which must end the source's
   * work, e.g. abort the upstream model call) and one last value `lostValue(loss)`, and nothing
   * more. Leaving early (return()) also stops the source at once.
   */
  follow<T>(source: AsyncIterable<T>, stop: () => void, lostValue: (loss: LiveLoss) => T): AsyncIterableIterator<T> {
    const it = source[Symbol.asyncIterator]();
    const lostSignal = new Promise<typeof LOST>((resolve) => {
      if (this.lost) resolve(LOST);
      else this.waiters.add(() => resolve(LOST));
    });
    let finished = false;
    const finish = (leaving: boolean) => {
      if (finished) return;
      finished = true;
      this.close();
      if (!leaving) return;
      stop();
      // not awaited: the source ends once its pending read notices the stop
      void it.return?.()?.catch(() => undefined);
    };
    const done = { done: true, value: undefined } as IteratorResult<T>;
    const iterator: AsyncIterableIterator<T> = {
      next: async () => {
        if (finished) return done;
        if (!this.lost) {
          const r = await Promise.race([it.next(), lostSignal]);
          if (r !== LOST) {
            if (r.done) finish(false);
            return r;
          }
        }
        finish(true);
        return { done: false, value: lostValue(this.lost!) };
      },
      // eslint-disable-next-line @typescript-eslint/require-await -- implements the async iterator's return()
      return: async () => {
        finish(true);
        return done;
      },
      throw: async (e?: unknown) => {
        await iterator.return!();
        throw e;
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }
}

/**
 * Keeps this process's live streams in step with access (see src/access/live-streams.ts): LISTENs
 * on the access channel (one connection per process), re-checks the streams a change names, and
 * ends those that lost access. After the listener reconnects, every stream is re-checked.
 */
export class LiveAccessService extends ListeningService {
  readonly streams: LiveStreams;

  constructor(ctx: ServiceContext) {
    super(ctx);
    this.streams = new LiveStreams(ctx.config.live.maxPerUser);
  }

  protected readonly connectionName = 'docqa-live-access';

  protected listen(listener: PgListener): void {
    listener.on(ACCESS_CHANNEL, (payload) => this.changed(parseAccessChange(payload)));
    listener.onReconnect(() => this.changed({ all: true }));
  }

  /** Registers a stream of `actor` (429 `rate_limited` over the per-user cap). */
  open(actor: Actor, scope: Omit<LiveScope, 'userId'>): LiveTicket {
    return new LiveTicket(this.streams, { ...scope, userId: actor.id, keyId: actor.key?.id ?? null });
  }

  /**
   * A stream that follows access: registered first (a change committed during `open`'s access check
   * still reaches it), then opened with a signal that fires when the consumer leaves (`signal`) or
   * access is lost; on a loss, `lostValue(loss)` is its last value.
   */
  async guard<T>(
    actor: Actor,
    scope: Omit<LiveScope, 'userId'>,
    signal: AbortSignal | undefined,
    open: (signal: AbortSignal) => Promise<AsyncIterable<T>>,
    lostValue: (loss: LiveLoss) => T,
  ): Promise<AsyncIterable<T>> {
    const ticket = this.open(actor, scope);
    try {
      const leave = new AbortController();
      const source = await open(signal ? AbortSignal.any([signal, leave.signal]) : leave.signal);
      return ticket.follow(source, () => leave.abort(), lostValue);
    } catch (e) {
      ticket.close();
      throw e;
    }
  }

  /** Re-checks the streams a change names, one resolver call per distinct (user, project, document, key). */
  private changed(change: AccessChange): void {
    const entries = this.streams.affected(change);
    if (!entries.length) return;
    void (async () => {
      const em = this.freshEm();
      const verdicts = new Map<string, LiveLoss | null>();
      for (const e of entries) {
        const key = `${e.userId}/${e.projectId}/${e.documentId ?? ''}/${e.keyId ?? ''}`;
        try {
          if (!verdicts.has(key)) verdicts.set(key, await accessLost(em, e));
          const loss = verdicts.get(key);
          if (loss) e.end(loss);
        } catch (err) {
          // the database is unreachable: keep the stream; the reconnect re-checks everything
          this.logger.warn({ err, userId: e.userId, projectId: e.projectId }, 'live access re-check failed');
        }
      }
    })();
  }
}
