import DataLoader from 'dataloader';
import { ACTOR_COLUMNS, type ActorRow } from '../access/actor';
import type { AuthPool } from './pool';

/** One prepared statement (on the auth pool) reads every user of a batch. */
const READ_USERS = { name: 'docqa_authenticate_many', text: `select ${ACTOR_COLUMNS} from users where id = any($1::uuid[])` };

/** Reads in flight at once; requests arriving meanwhile wait and go together in the next one. */
const MAX_IN_FLIGHT = 2;

/**
 * The authenticated hot path's user read (issue 38: `/api/auth/me` within 2.5× `/healthz`). Every
 * request still reads its user from PostgreSQL after it arrived — nothing is cached, so a
 * deactivation or role change committed before a request is seen by it, on every node — but the
 * requests that arrive together, or while the previous reads are on the wire, share one statement:
 * one round trip and one execution for many, instead of one each (most of the route's cost).
 * Alone, a request's read starts at the end of its event-loop turn, as before.
 */
export class UserReads {
  private slots = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly loader: DataLoader<string, ActorRow | null>;

  constructor(private readonly pool: AuthPool) {
    this.loader = new DataLoader((ids) => this.readBatch(ids), {
      // never a cache: each load is a read of its own, batched only with reads wanted at the same time
      cache: false,
      maxBatchSize: 200,
      batchScheduleFn: (dispatch) => {
        if (this.slots < MAX_IN_FLIGHT) {
          this.slots++;
          setImmediate(dispatch);
        } else this.waiting.push(dispatch);
      },
    });
  }

  /** The user's current row, or null when there is none. */
  read(id: string): Promise<ActorRow | null> {
    return this.loader.load(id);
  }

  private async readBatch(ids: readonly string[]): Promise<Array<ActorRow | null>> {
    try {
      const { rows } = await this.pool.get().query<ActorRow>({ ...READ_USERS, values: [[...new Set(ids)]] });
      const byId = new Map(rows.map((r) => [r.id, r]));
      return ids.map((id) => byId.get(id) ?? null);
    } finally {
      // the slot passes to the batch that waited longest, if any
      const next = this.waiting.shift();
      if (next) setImmediate(next);
      else this.slots--;
    }
  }
}
