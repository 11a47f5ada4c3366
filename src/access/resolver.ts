import type { EntityManager } from '@mikro-orm/postgresql';
import { Project } from '../entities';
import type { Tier } from '../entities/base';
import type { Actor } from './actor';
import { query } from '../db/sql';
import { capToKey } from './keys';

export type AccessSource = 'platform' | 'owner' | 'user' | 'group' | 'department' | 'public';
export interface Access {
  tier: Tier;
  source: AccessSource;
}

export const TIER_RANK: Record<Tier, number> = { use: 1, edit: 2, full: 3 };
export const tierAtLeast = (have: Tier, need: Tier): boolean => TIER_RANK[have] >= TIER_RANK[need];

/** The grants that can apply to one caller on one project (loaded by the caller of resolveAccess). */
export interface GrantFacts {
  userGrant: Tier | null;
  groupGrants: Tier[];
  departmentGrant: Tier | null;
}

/**
 * THE project access rule (DESIGN §3), first match wins:
 * 1 superadmin → full/platform; 2 admin → full/platform; 3 owner → full/owner;
 * 4 direct user grant → its tier/user; 5 groups → highest tier/group; 6 department → its tier/department;
 * 7 non-private → use/public; else null. Engineers get nothing from their role.
 * A caller with a key then gets at most the key's tier, on the key's projects only (`capToKey`).
 * `accessibleProjectsCte` in ./project-access.sql.ts states the same rule in SQL for lists; a test keeps them equal.
 */
export function resolveAccess(
  actor: Pick<Actor, 'id' | 'platformRole' | 'key'>,
  project: { id?: string; ownerId: string | null; isPrivate: boolean },
  grants: GrantFacts,
): Access | null {
  const access = resolveOwnAccess(actor, project, grants);
  // a key reaches at most its projects, at most at its tier (src/access/keys.ts)
  return actor.key ? capToKey(actor, project.id ?? '', access) : access;
}

function resolveOwnAccess(
  actor: Pick<Actor, 'id' | 'platformRole'>,
  project: { ownerId: string | null; isPrivate: boolean },
  grants: GrantFacts,
): Access | null {
  if (actor.platformRole === 'superadmin') return { tier: 'full', source: 'platform' };
  if (actor.platformRole === 'admin') return { tier: 'full', source: 'platform' };
  if (project.ownerId && project.ownerId === actor.id) return { tier: 'full', source: 'owner' };
  if (grants.userGrant) return { tier: grants.userGrant, source: 'user' };
  if (grants.groupGrants.length) {
    const best = grants.groupGrants.reduce((a, b) => (TIER_RANK[b] > TIER_RANK[a] ? b : a));
    return { tier: best, source: 'group' };
  }
  if (grants.departmentGrant) return { tier: grants.departmentGrant, source: 'department' };
  if (!project.isPrivate) return { tier: 'use', source: 'public' };
  return null;
}

/** Loads the grant facts for one caller and project in one query. */
export async function loadGrantFacts(em: EntityManager, actor: Actor, projectId: string): Promise<GrantFacts> {
  // em.execute (not getConnection().execute) so a caller's open transaction is used
  const rows: Array<{ kind: string; tier: Tier }> = await query(
    em,
    `select case when g.user_id is not null then 'user' when g.group_id is not null then 'group' else 'department' end as kind, g.tier
       from project_grants g
      where g.project_id = ?
        and (g.user_id = ?
             or g.group_id in (select gm.group_id from group_members gm where gm.user_id = ?)
             or (g.department_id is not null and g.department_id = ?))`,
    [projectId, actor.id, actor.id, actor.departmentId],
  );
  return {
    userGrant: rows.find((r) => r.kind === 'user')?.tier ?? null,
    groupGrants: rows.filter((r) => r.kind === 'group').map((r) => r.tier),
    departmentGrant: rows.find((r) => r.kind === 'department')?.tier ?? null,
  };
}

/** Resolves the caller's access to a loaded project. */
export async function accessTo(em: EntityManager, actor: Actor, project: Project): Promise<Access | null> {
  const ownerId = project.owner ? project.owner.id : null;
  // platform staff and owners need no grant lookup
  if (actor.platformRole === 'superadmin' || actor.platformRole === 'admin' || (ownerId && ownerId === actor.id)) {
    return resolveAccess(
      actor,
      { id: project.id, ownerId, isPrivate: project.isPrivate },
      { userGrant: null, groupGrants: [], departmentGrant: null },
    );
  }
  return resolveAccess(actor, { id: project.id, ownerId, isPrivate: project.isPrivate }, await loadGrantFacts(em, actor, project.id));
}
