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

/** The columns of a key, its owner and which of the batch's addresses it was already used from. */
const KEY_COLUMNS = (a: string) => `${a}.secret_hash, ${a}.id as key_id, ${a}.tier as key_tier,
  ${a}.project_ids::text[] as key_project_ids, ${a}.platform as key_platform,
  array(select x.address from api_key_addresses x where x.key_id = ${a}.id and x.address = any($2::text[])) as known_addresses,
  ${userColumns}`;

/**
 * A batch's keys whose requests this node already holds a lease for (see KeyAuth): read only, so
 * a revoked or expired key, or an inactive owner, is refused by the next request on every node.
 */
const KEY_READ = {
  name: 'docqa_key_read_many',
  text: `select ${KEY_COLUMNS('a')}, 0 as window_before, 0 as leased, 0 as window_left_ms
      from api_keys a join users u on u.id = a.user_id
     where a.secret_hash = any($1::text[]) and a.revoked_at is null and (a.expires_at is null or a.expires_at > now())`,
};

/**
 * A key's counting statement (hot path, prepared, shared by the requests that arrive together:
 * shared-statement.ts): finds the live keys of the batch by their hashes (`$1`, one entry per
 * request to count), counts those requests in each key's per-minute window under a row lock (so
 * every node counts the same requests), and, while the window has room to spare, counts a lease
 * for this node besides: a sixteenth of what is left once at least 256 are, none nearer the limit
 * (`$3`; 0 is no limit). It stamps `last_used_at` and returns each key with its owner, the count
 * before the batch, the lease and the time left in the window. A revoked or expired key matches
 * nothing.
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
      select a.id, req.n,
             case when a.window_started_at > now() - interval '1 minute' then a.window_count else 0 end as before,
             case when a.window_started_at > now() - interval '1 minute' then a.window_started_at else now() end as started
        from api_keys a join req on a.secret_hash = req.h
       where a.revoked_at is null and (a.expires_at is null or a.expires_at > now())
       order by a.id for update of a
    ), leased as (
      select locked.*, case when $3::int = 0 then 65536
                            when $3::int - (locked.before + locked.n) >= 256 then ($3::int - (locked.before + locked.n)) / 16
                            else 0 end as extra
        from locked
    ), k as (
      update api_keys a set window_count = l.before + l.n + l.extra, window_started_at = l.started, last_used_at = now()
        from leased l
       where a.id = l.id
      returning a.*, l.before, l.extra
    )
    select ${KEY_COLUMNS('k')}, k.before as window_before, k.extra as leased,
           extract(epoch from (k.window_started_at + interval '1 minute' - now())) * 1000 as window_left_ms
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
  /** The window's count before the batch's counted requests, and the lease counted after them. */
  window_before: number;
  leased: number;
  window_left_ms: number;
  known_addresses: string[];
}

/** One request's key use: its key's row, whether the window admits it, and when the window ends. */
interface KeyUse {
  row: KeyRow;
  admitted: boolean;
  retryAfterSeconds: number;
}

/** Requests this node may admit for a key without counting them in PostgreSQL: counted there already. */
interface Lease {
  left: number;
  /** Date.now() at which the window it was counted in ends. */
  until: number;
}

/** Leases kept at most (the oldest are dropped; one of a key is taken again by its next request). */
const MAX_LEASES = 10_000;

/**
 * Authenticates keys for programs (issue 38): a bearer `dq_…` secret anywhere a JWT goes. The key
 * and its owner are re-read on every request, as with a JWT: a revoked key, or an inactive or
 * deleted owner, is refused by the next request on any node.
 *
 * The per-key limit is counted in the key's row, so it holds across nodes: no node admits a
 * request that was not counted there first. Far from the limit, a node counts a lease besides its
 * batch's own requests (KEY_USE) and admits the next ones against it with a read only; the write
 * (a row lock and a commit) is then paid once per lease, not once per batch. Near the limit every
 * request is counted on its own, so a burst on all nodes passes exactly the limit. A lease left
 * unused when its window ends is never used: a node may admit fewer than the limit in a minute,
 * never more.
 */
export class KeyAuth {
  private readonly use: (req: { hash: string; address: string }) => Promise<KeyUse | null>;
  /** This node's leases, by key hash (Map order: oldest first). */
  private readonly leases = new Map<string, Lease>();

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
    if (!used.admitted) throw new RateLimitedError(used.retryAfterSeconds, `At most ${this.perMinute} requests a minute per key`);
    return keyActor(actorFromRow(r), { id: r.key_id, tier: r.key_tier, projectIds: r.key_project_ids, platform: r.key_platform });
  }

  private async useBatch(reqs: ReadonlyArray<{ hash: string; address: string }>): Promise<Array<KeyUse | null>> {
    const now = Date.now();
    // each key's requests: the first ones admitted against this node's lease, the rest counted
    const fromLease = new Map<string, number>();
    const counted: string[] = [];
    for (const { hash } of reqs) {
      const lease = this.leases.get(hash);
      if (lease && lease.until > now && lease.left > 0) {
        lease.left--;
        fromLease.set(hash, (fromLease.get(hash) ?? 0) + 1);
      } else counted.push(hash);
    }
    const addresses = [...new Set(reqs.map((q) => q.address))];
    const countedKeys = new Set(counted);
    const readOnly = [...fromLease.keys()].filter((h) => !countedKeys.has(h));
    const [read, use] = await Promise.all([
      readOnly.length ? this.pool.get().query<KeyRow>({ ...KEY_READ, values: [readOnly, addresses] }) : null,
      counted.length ? this.pool.get().query<KeyRow>({ ...KEY_USE, values: [counted, addresses, this.perMinute] }) : null,
    ]);
    const byHash = new Map<string, KeyRow>();
    for (const r of read?.rows ?? []) byHash.set(r.secret_hash, r);
    for (const r of use?.rows ?? []) {
      byHash.set(r.secret_hash, r);
      this.lease(r.secret_hash, r.leased, now + Number(r.window_left_ms));
    }
    // each counted request's place in its key's window, in arrival order: as if each had counted alone
    const placed = new Map<string, number>();
    const fresh = new Map<string, [string, string]>();
    const out = reqs.map(({ hash, address }): KeyUse | null => {
      const row = byHash.get(hash);
      if (!row) {
        this.leases.delete(hash);
        return null;
      }
      if (!row.known_addresses.includes(address)) fresh.set(`${row.key_id} ${address}`, [row.key_id, address]);
      const leased = fromLease.get(hash) ?? 0;
      if (leased > 0) {
        fromLease.set(hash, leased - 1);
        return { row, admitted: true, retryAfterSeconds: 0 };
      }
      const place = (placed.get(hash) ?? row.window_before) + 1;
      placed.set(hash, place);
      const admitted = this.perMinute === 0 || place <= this.perMinute;
      return { row, admitted, retryAfterSeconds: Math.max(1, Math.ceil(Number(row.window_left_ms) / 1000)) };
    });
    // a first use from an address is recorded and audited before any of these requests is answered
    if (fresh.size) {
      const pairs = [...fresh.values()];
      await this.pool.get().query({ ...KEY_NEW_ADDRESSES, values: [pairs.map((p) => p[0]), pairs.map((p) => p[1])] });
    }
    return out;
  }

  /**
   * Adds a lease counted for this node (to what is left of one taken by a batch in flight at the
   * same time); it ends with the earlier of the two windows.
   */
  private lease(hash: string, left: number, until: number): void {
    const held = this.leases.get(hash);
    this.leases.delete(hash);
    const carried = held && held.until > Date.now() ? held.left : 0;
    if (carried + left <= 0) return;
    this.leases.set(hash, { left: carried + left, until: carried > 0 ? Math.min(held!.until, until) : until });
    if (this.leases.size > MAX_LEASES) this.leases.delete(this.leases.keys().next().value!);
  }
}
