import { createHash, randomBytes } from 'node:crypto';
import { type Actor, ACTOR_COLUMNS, actorFromRow, type ActorRow } from '../access/actor';
import { keyActor } from '../access/keys';
import type { Tier } from '../entities/base';
import { RateLimitedError, UnauthorizedError } from '../errors';
import type { AuthPool } from './pool';

/** Every key's secret starts so: a bearer token of this form is a key, not a JWT. */
export const KEY_PREFIX = 'dq_';

/** A new key's secret (256 random bits) and what is stored of it: its SHA-256 and first characters. */
export function newKeySecret(): { secret: string; hash: string; prefix: string } {
  const secret = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { secret, hash: hashKeySecret(secret), prefix: secret.slice(0, KEY_PREFIX.length + 8) };
}

/** A secret of 256 random bits needs no slow hash: SHA-256 cannot be reversed or searched. */
export const hashKeySecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

const userColumns = ACTOR_COLUMNS.split(', ')
  .map((c) => `u.${c}`)
  .join(', ');

/**
 * The key's one statement per request (hot path, prepared on the auth pool): finds a live key by
 * its hash, counts the request in the key's per-minute window (a row lock: every node counts the
 * same requests), stamps `last_used_at`, records the address, audits it when new, and returns the
 * owner. A revoked or expired key matches nothing.
 */
const KEY_AUTH = {
  name: 'docqa_key_authenticate',
  text: `with k as (
      update api_keys set
        window_count = case when window_started_at > now() - interval '1 minute' then window_count + 1 else 1 end,
        window_started_at = case when window_started_at > now() - interval '1 minute' then window_started_at else now() end,
        last_used_at = now()
      where secret_hash = $1 and revoked_at is null and (expires_at is null or expires_at > now())
      returning id, user_id, tier, project_ids, platform, window_count, window_started_at
    ), seen as (
      insert into api_key_addresses (key_id, address) select id, $2 from k on conflict do nothing returning key_id
    ), audited as (
      insert into audit_entries (action, actor_id, project_id, target_type, target_id, metadata, created_at)
      select 'key_used_from_new_address', k.user_id, null, 'key', k.id, jsonb_build_object('address', $2::text), clock_timestamp()
        from k join seen on seen.key_id = k.id
    )
    select k.id as key_id, k.tier as key_tier, k.project_ids::text[] as key_project_ids, k.platform as key_platform,
           k.window_count, ceil(extract(epoch from (k.window_started_at + interval '1 minute' - now())))::int as window_left,
           ${userColumns}
      from k join users u on u.id = k.user_id`,
};

interface KeyRow extends ActorRow {
  key_id: string;
  key_tier: Tier;
  key_project_ids: string[] | null;
  key_platform: boolean;
  window_count: number;
  window_left: number;
}

/**
 * Authenticates keys for programs (issue 38): a bearer `dq_…` secret anywhere a JWT goes. The owner
 * is re-read on every request, as with a JWT: an inactive or deleted owner disables all their keys.
 */
export class KeyAuth {
  constructor(
    private readonly pool: AuthPool,
    private readonly perMinute: number,
  ) {}

  /** The key's caller (owner capped by the key), or 401; 429 with Retry-After past the key's rate limit. */
  async authenticate(secret: string, address: string): Promise<Actor> {
    const { rows } = await this.pool.get().query<KeyRow>({ ...KEY_AUTH, values: [hashKeySecret(secret), address] });
    const r = rows[0];
    if (!r) throw new UnauthorizedError('unauthorized', 'Key unknown, revoked or expired');
    if (r.status !== 'active') throw new UnauthorizedError('unauthorized', 'User not found or inactive');
    if (this.perMinute > 0 && r.window_count > this.perMinute)
      throw new RateLimitedError(Math.max(1, r.window_left), `At most ${this.perMinute} requests a minute per key`);
    return keyActor(actorFromRow(r), { id: r.key_id, tier: r.key_tier, projectIds: r.key_project_ids, platform: r.key_platform });
  }
}
