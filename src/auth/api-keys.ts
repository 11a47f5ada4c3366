import { hash, randomBytes } from 'node:crypto';
import { type Actor, ACTOR_COLUMNS, actorFromRow, type ActorRow } from '../access/actor';
import { keyActor } from '../access/keys';
import type { Tier } from '../entities/base';
import { RateLimitedError, UnauthorizedError } from '../errors';
import type { AuthPool } from './pool';
import { sharedStatement } from './shared-statement';

/** Every key's secret starts so: a bearer token of this form is a key, not a JWT. */
export const KEY_PREFIX = 'dq_';

/** A new key's secret (256 random bits) and what is stored of it: its SHA-256 and first characters. */
export function newKeySecret(): { secret: string; hash: string; prefix: string } {
  const secret = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { secret, hash: hashKeySecret(secret), prefix: secret.slice(0, KEY_PREFIX.length + 8) };
}

/**
 * A secret of 256 random bits needs no slow hash: SHA-256 cannot be reversed or searched. (The
 * one-shot `crypto.hash`, not a Hash object: every key-authenticated request computes one.)
 */
export const hashKeySecret = (secret: string): string => hash('sha256', secret, 'hex');

const userColumns = ACTOR_COLUMNS.split(', ')
  .map((c) => `u.${c}`)
  .join(', ');

/**
 * A key's statement (hot path, prepared, shared by the requests that arrive together:
 * shared-statement.ts): finds the live keys of the batch by their hashes, counts the batch's
 * requests in each key's per-minute window (`n` at once: a row lock, so every node counts the same
 * requests), stamps `last_used_at`, and returns each key with its owner and which of the batch's
 * addresses it was already used from. A revoked or expired key matches nothing.
 *
 * Its commit does not wait for the WAL to reach the disk (`synchronous_commit` off for this
 * transaction only, as `SET LOCAL` would): a count and a timestamp need no fsync. The commit is
 * visible to every other transaction at once, like any commit, so the count holds across nodes;
 * only a crash of PostgreSQL itself could lose its last fraction of a second (at most three
 * `wal_writer_delay`s). Nothing that must survive that is written here: the first use from an
 * address and its audit entry are a statement of their own, committed as usual.
 */
const KEY_USE = {
  name: 'docqa_key_use_many',
  text: `with async_commit as materialized (
      select set_config('synchronous_commit', 'off', true)
    ), req as (
      select h, count(*)::int as n from unnest($1::text[]) as h group by h
    ), locked as materialized (
      -- the batch's keys locked in one order (by id), so two batches holding keys in common cannot deadlock
      select a.id, req.n from api_keys a join req on a.secret_hash = req.h
       where a.revoked_at is null and (a.expires_at is null or a.expires_at > now())
       order by a.id for update of a
    ), k as (
      update api_keys a set
        window_count = case when a.window_started_at > now() - interval '1 minute' then a.window_count + locked.n else locked.n end,
        window_started_at = case when a.window_started_at > now() - interval '1 minute' then a.window_started_at else now() end,
        last_used_at = now()
      from locked
      where a.id = locked.id
      returning a.id, a.secret_hash, a.user_id, a.tier, a.project_ids, a.platform, a.window_count, a.window_started_at, locked.n
    )
    select k.secret_hash, k.id as key_id, k.tier as key_tier, k.project_ids::text[] as key_project_ids, k.platform as key_platform,
           k.window_count, k.n as window_added,
           ceil(extract(epoch from (k.window_started_at + interval '1 minute' - now())))::int as window_left,
           array(select x.address from api_key_addresses x where x.key_id = k.id and x.address = any($2::text[])) as known_addresses,
           ${userColumns}
      from k join users u on u.id = k.user_id cross join async_commit`,
};

/** The first use of keys from addresses (durable, with its audit entry): once per key and address, on any node. */
const KEY_NEW_ADDRESSES = {
  name: 'docqa_key_new_addresses',
  text: `with seen as (
      insert into api_key_addresses (key_id, address) select * from unnest($1::uuid[], $2::text[])
      on conflict do nothing returning key_id, address
    )
    insert into audit_entries (action, actor_id, project_id, target_type, target_id, metadata, created_at)
    select 'key_used_from_new_address', k.user_id, null, 'key', k.id, jsonb_build_object('address', seen.address), clock_timestamp()
      from seen join api_keys k on k.id = seen.key_id`,
};

interface KeyRow extends ActorRow {
  secret_hash: string;
  key_id: string;
  key_tier: Tier;
  key_project_ids: string[] | null;
  key_platform: boolean;
  /** The window's count after this batch, of which `window_added` are the batch's. */
  window_count: number;
  window_added: number;
  window_left: number;
  known_addresses: string[];
}

/** One request's key use: its key's row and the request's place in the key's window. */
interface KeyUse {
  row: KeyRow;
  countInWindow: number;
}

/**
 * Authenticates keys for programs (issue 38): a bearer `dq_…` secret anywhere a JWT goes. The owner
 * is re-read on every request, as with a JWT: an inactive or deleted owner disables all their keys.
 */
export class KeyAuth {
  private readonly use: (req: { hash: string; address: string }) => Promise<KeyUse | null>;

  constructor(
    private readonly pool: AuthPool,
    private readonly perMinute: number,
  ) {
    this.use = sharedStatement((reqs) => this.useBatch(reqs));
  }

  /** The key's caller (owner capped by the key), or 401; 429 with Retry-After past the key's rate limit. */
  async authenticate(secret: string, address: string): Promise<Actor> {
    const used = await this.use({ hash: hashKeySecret(secret), address });
    if (!used) throw new UnauthorizedError('unauthorized', 'Key unknown, revoked or expired');
    const r = used.row;
    if (r.status !== 'active') throw new UnauthorizedError('unauthorized', 'User not found or inactive');
    if (this.perMinute > 0 && used.countInWindow > this.perMinute)
      throw new RateLimitedError(Math.max(1, r.window_left), `At most ${this.perMinute} requests a minute per key`);
    return keyActor(actorFromRow(r), { id: r.key_id, tier: r.key_tier, projectIds: r.key_project_ids, platform: r.key_platform });
  }

  private async useBatch(reqs: ReadonlyArray<{ hash: string; address: string }>): Promise<Array<KeyUse | null>> {
    const { rows } = await this.pool.get().query<KeyRow>({
      ...KEY_USE,
      values: [reqs.map((q) => q.hash), [...new Set(reqs.map((q) => q.address))]],
    });
    const byHash = new Map(rows.map((r) => [r.secret_hash, r]));
    // each request's place in its key's window, in arrival order: as if each had counted alone
    const placed = new Map<string, number>();
    const fresh = new Map<string, [string, string]>();
    const out = reqs.map(({ hash, address }) => {
      const row = byHash.get(hash);
      if (!row) return null;
      const before = placed.get(hash) ?? row.window_count - row.window_added;
      placed.set(hash, before + 1);
      if (!row.known_addresses.includes(address)) fresh.set(`${row.key_id} ${address}`, [row.key_id, address]);
      return { row, countInWindow: before + 1 };
    });
    // a first use from an address is recorded and audited before any of these requests is answered
    if (fresh.size) {
      const pairs = [...fresh.values()];
      await this.pool.get().query({ ...KEY_NEW_ADDRESSES, values: [pairs.map((p) => p[0]), pairs.map((p) => p[1])] });
    }
    return out;
  }
}
