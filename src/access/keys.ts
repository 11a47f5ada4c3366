import { ForbiddenError } from '../errors';
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql';
import { TIERS, type Tier } from '../entities/base';
import type { Actor, KeyScope } from './actor';
import { gates } from './gates';

/**
 * Keys for programs (issue 38): what a request authenticated with a key may reach. The one place
 * that decides it; the project rule (`resolveAccess`, `accessibleProjectsCte`) applies `capToKey`.
 */
/**
 * The caller behind a key: its owner, re-read on this request, with the key's scope. Without
 * `platform`, the key passes no platform-role gate above `none` and no org-position gate (CEO,
 * manager): a program reaches projects, not the organisation's administration.
 */
export function keyActor(owner: Actor, key: KeyScope): Actor {
  if (key.platform) return { ...owner, key };
  return { ...owner, platformRole: 'none', orgPosition: 'member', key };
}

/** A project access as seen through the caller's key: limited to its projects, capped at its tier. */
export function capToKey<A extends { tier: KeyScope['tier'] }>(actor: Pick<Actor, 'key'>, projectId: string, access: A | null): A | null {
  const key = actor.key;
  if (!access || !key) return access;
  if (key.projectIds && !key.projectIds.includes(projectId)) return null;
  return TIERS.indexOf(access.tier) > TIERS.indexOf(key.tier) ? { ...access, tier: key.tier } : access;
}

/**
 * Keys are managed by people: a request made with a key cannot create, list or revoke keys, so a
 * scoped key cannot mint itself a wider one. `platform: true` keys are created by admins only.
 */
export function requireKeyManager(actor: Actor, input?: { platform?: boolean }): void {
  if (actor.key) throw new ForbiddenError('forbidden', 'Keys are managed with a signed-in session, not with a key');
  if (input?.platform) gates.requirePlatformAdmin(actor);
}

/** Whose keys the caller may list or revoke: their own; admins and the superadmin anyone's. */
export function requireKeyOwnerOrAdmin(actor: Actor, ownerId: string): void {
  requireKeyManager(actor);
  if (ownerId !== actor.id) gates.requirePlatformAdmin(actor);
}

/** Ending sessions (logout) and other account actions are the person's, not a program's. */
export function requireNotKey(actor: Actor): void {
  if (actor.key) throw new ForbiddenError('forbidden', 'This requires a signed-in session, not a key');
}

/** A key's scope while it is live (not revoked, not expired), else null: what an open stream re-checks. */
export async function liveKeyScope(em: EntityManager, keyId: string): Promise<KeyScope | null> {
  const [k] = await query<{ id: string; tier: Tier; project_ids: string[] | null; platform: boolean }>(
    em,
    `select id, tier, project_ids::text[] as project_ids, platform from api_keys
      where id = ? and revoked_at is null and (expires_at is null or expires_at > now())`,
    [keyId],
  );
  return k ? { id: k.id, tier: k.tier, projectIds: k.project_ids, platform: k.platform } : null;
}
