import { ACTOR_COLUMNS, type ActorRow } from '../access/actor';
import type { AuthPool } from './pool';
import { sharedStatement } from './shared-statement';

/** One prepared statement (on the auth pool) reads every user of a batch. */
const READ_USERS = { name: 'docqa_authenticate_many', text: `select ${ACTOR_COLUMNS} from users where id = any($1::uuid[])` };

/**
 * The authenticated hot path's user read (issue 38: `/api/auth/me` within 2.5× `/healthz`): read
 * from PostgreSQL on every request, shared with the requests that want theirs at the same time
 * (shared-statement.ts).
 */
export class UserReads {
  /** The user's current row, or null when there is none. */
  readonly read: (id: string) => Promise<ActorRow | null>;

  constructor(private readonly pool: AuthPool) {
    this.read = sharedStatement((ids) => this.readBatch(ids));
  }

  private async readBatch(ids: readonly string[]): Promise<Array<ActorRow | null>> {
    const { rows } = await this.pool.get().query<ActorRow>({ ...READ_USERS, values: [[...new Set(ids)]] });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? null);
  }
}
