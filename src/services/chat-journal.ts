import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgListener } from '../db/pg-listener';
import { query } from '../db/sql';
import type { ChatEvent } from '../presenters/chat-event.presenter';
import { ListeningService } from './listening-service';

/** The PostgreSQL channel on which a node says "stream <messageId> has new events" (payload: the id). */
export const CHAT_STREAM_CHANNEL = 'docqa_chat_stream';

/** The PostgreSQL channel on which a node asks "stop generating answer <messageId>" (payload: the id); the node generating it stops. */
export const CHAT_STOP_CHANNEL = 'docqa_chat_stop';

/** A chat event with its place in its stream (the SSE `id`); an event that is not recorded has none. */
export type NumberedChatEvent = ChatEvent & { id?: number };

/** How often a replay looks at the table even when no notification came (a missed one is never fatal). */
const POLL_MS = 1000;
/** Ended streams are pruned at most this often per process. */
const PRUNE_EVERY_MS = 60_000;

interface Row {
  seq: number;
  event: string;
  data: unknown;
}

const terminal = (event: string) => event === 'done' || event === 'error';

/**
 * The record of every chat answer's events (issue 38), so a client whose connection dropped can
 * re-attach on any node: each event is written to `chat_stream_events` with its `seq` while it is
 * delivered live, and a notification on CHAT_STREAM_CHANNEL wakes the readers of that stream on
 * every node. The live client never waits on a write except for `meta` (written first, so the
 * stream can be found as soon as its id is known) and the last event (written before it is sent,
 * so a client that saw the end can also replay it).
 */
export class ChatJournal extends ListeningService {
  private readonly waiters = new Map<string, Set<() => void>>();
  /** The answers this process is generating, by message id: calling one stops it (POST …/stop, on any node). */
  private readonly generating = new Map<string, () => void>();
  private lastPrune = 0;

  protected readonly connectionName = 'docqa-chat-streams';

  protected listen(listener: PgListener): void {
    listener.on(CHAT_STREAM_CHANNEL, (id) => this.wake(id));
    listener.on(CHAT_STOP_CHANNEL, (id) => this.generating.get(id)?.());
    // notifications sent while the connection was down are gone: every reader looks again
    listener.onReconnect(() => {
      for (const id of [...this.waiters.keys()]) this.wake(id);
    });
  }

  /**
   * Numbers and records the events of one answer as they pass (`meta` names the stream). Ending the
   * iteration early ends the stream's record too, so a replay does not wait for more.
   */
  async *record(userId: string, projectId: string, source: AsyncIterable<ChatEvent>): AsyncGenerator<NumberedChatEvent> {
    let seq = 0;
    let writer: BatchWriter | null = null;
    let messageId: string | null = null;
    const it = source[Symbol.asyncIterator]();
    let finished = false;
    try {
      for (;;) {
        const next = await it.next();
        if ((finished = !!next.done)) break;
        const e = next.value;
        seq += 1;
        const row = { seq, event: e.event, data: e.data };
        if (e.event === 'meta' && !writer) {
          messageId = e.data.messageId;
          // a stop asked on any node ends the answer as a client leaving did before issue 38: the
          // upstream is aborted and what arrived is stored as an incomplete answer
          this.generating.set(messageId, () => void it.return?.());
          writer = new BatchWriter(this.freshEm(), e.data.messageId, (err) => this.logger.warn({ err }, 'chat stream record failed'));
          await writer.open(userId, projectId, e.data.conversationId, row);
          this.prune();
        } else if (writer) {
          writer.push(row);
          if (terminal(e.event)) await writer.end();
        }
        yield { ...e, id: seq };
      }
    } finally {
      if (messageId) this.generating.delete(messageId);
      // left early (the consumer returned, or threw): the source is ended as for-await would
      if (!finished) await it.return?.();
      await writer?.end();
    }
  }

  /** Asks whichever node generates answer `messageId` to stop (access is the caller's to check). */
  async requestStop(messageId: string): Promise<void> {
    await query(this.freshEm(), `select pg_notify('${CHAT_STOP_CHANNEL}', ?)`, [messageId]);
  }

  /**
   * The events of stream `messageId` after `after`, then the rest as they are recorded, until its
   * last event (or its record ends). The caller checked access (src/access/stream-rules.ts).
   */
  async *replay(messageId: string, after: number, signal: AbortSignal): AsyncGenerator<NumberedChatEvent> {
    const em = this.freshEm();
    let last = after;
    let idleSince = Date.now();
    // the upstream's own time-outs end a live answer long before this; only a node that died leaves one open
    const idleLimitMs = this.config.upstreamTimeoutMs * 2 + 30_000;
    for (;;) {
      // listening before reading: an event recorded between the read and the wait still wakes us
      const woken = this.waitFor(messageId, signal);
      try {
        const rows = await query<Row>(em, `select seq, event, data from chat_stream_events where stream_id = ? and seq > ? order by seq`, [
          messageId,
          last,
        ]);
        for (const r of rows) {
          last = r.seq;
          yield { event: r.event, data: r.data, id: r.seq } as NumberedChatEvent;
          if (terminal(r.event)) return;
        }
        if (rows.length) idleSince = Date.now();
        else {
          const [s] = await query<{ ended: boolean }>(em, `select ended_at is not null as ended from chat_streams where id = ?`, [
            messageId,
          ]);
          if (!s || s.ended) return;
          if (Date.now() - idleSince > idleLimitMs) {
            yield {
              event: 'error',
              data: { type: 'error', message: 'INTERNAL_ERROR', detail: 'The server answering stopped before the end' },
            };
            return;
          }
        }
        if (signal.aborted) return;
        await woken.promise;
        if (signal.aborted) return;
      } finally {
        woken.cancel();
      }
    }
  }

  /** Resolves on the stream's next notification, after POLL_MS, or when `signal` aborts. */
  private waitFor(id: string, signal: AbortSignal): { promise: Promise<void>; cancel: () => void } {
    let cancel = () => undefined as void;
    const promise = new Promise<void>((resolve) => {
      let set = this.waiters.get(id);
      if (!set) this.waiters.set(id, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        set.delete(done);
        if (!set.size && this.waiters.get(id) === set) this.waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(done, POLL_MS);
      signal.addEventListener('abort', done, { once: true });
      set.add(done);
      cancel = done;
    });
    return { promise, cancel };
  }

  private wake(id: string): void {
    for (const w of [...(this.waiters.get(id) ?? [])]) w();
  }

  /** Forgets streams that ended more than CHAT_STREAM_RETENTION_MINUTES ago, and any older than a day. */
  private prune(): void {
    if (Date.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = Date.now();
    const minutes = this.config.chatStreamRetentionMinutes;
    query(
      this.freshEm(),
      `delete from chat_streams where ended_at < now() - make_interval(mins => ?) or created_at < now() - interval '1 day'`,
      [minutes],
    ).catch((err: unknown) => this.logger.warn({ err }, 'pruning chat streams failed'));
  }
}

/**
 * Writes one stream's events in order with at most one write in flight: events that arrive during
 * a write go together in the next, so a fast answer costs few statements. Each write notifies.
 */
class BatchWriter {
  private queue: Row[] = [];
  private running: Promise<void> | null = null;
  private ended = false;

  constructor(
    private readonly em: EntityManager,
    private readonly id: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  async open(userId: string, projectId: string, conversationId: string, first: Row): Promise<void> {
    try {
      await this.em.transactional(async (tx) => {
        await query(tx, `insert into chat_streams (id, user_id, project_id, conversation_id) values (?, ?, ?, ?)`, [
          this.id,
          userId,
          projectId,
          conversationId,
        ]);
        await this.insert(tx, [first], false);
      });
    } catch (err) {
      this.onError(err);
    }
  }

  push(row: Row): void {
    this.queue.push(row);
    this.running ??= this.loop();
  }

  /** Writes what is queued and marks the stream ended (once). */
  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    while (this.running) await this.running;
    await this.insert(this.em, [], true).catch(this.onError);
  }

  private async loop(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue.splice(0);
      await this.insert(this.em, batch, false).catch(this.onError);
    }
    this.running = null;
  }

  private async insert(em: EntityManager, rows: Row[], end: boolean): Promise<void> {
    await query(
      em,
      `with ins as (
         insert into chat_stream_events (stream_id, seq, event, data)
         select ?::uuid, r.seq, r.event, r.data from jsonb_to_recordset(?::jsonb) as r(seq int, event text, data jsonb)
       ), fin as (update chat_streams set ended_at = now() where id = ? and ?::boolean)
       select pg_notify('${CHAT_STREAM_CHANNEL}', ?)`,
      [this.id, JSON.stringify(rows), this.id, end, this.id],
    );
  }
}
