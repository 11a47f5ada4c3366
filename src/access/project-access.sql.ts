import type { EntityManager } from '@mikro-orm/postgresql';
import type { OrgPosition, PlatformRole, Tier } from '../entities/base';
import type { Actor } from './actor';
import type { Access, AccessSource } from './resolver';
import { query } from '../db/sql';

type Caller = Pick<Actor, 'id' | 'platformRole' | 'departmentId' | 'key'>;

/**
 * The project access rule of `resolveAccess` (DESIGN §3) as one SQL statement, for lists.
 * Each VALUES row below is one row of the priority list; the first non-null tier wins, exactly
 * like the early returns in `resolveAccess`. A test keeps the two in agreement.
 *
 * Yields a CTE body with columns (project_id, tier, source) holding only the projects the caller
 * can access; a caller with a key only the key's projects, at most at its tier. Parameters: caller
 * id, platform role, department id, the key's tier and projects, then an optional id filter.
 */
export function accessibleProjectsCte(caller: Caller, projectIds?: string[]): { sql: string; params: unknown[] } {
  const filter = projectIds ? `and p.id = any(array[?]::uuid[])` : '';
  const sql = `
    select p.id as project_id,
           -- a key's tier caps the rule's (src/access/keys.ts capToKey)
           case when me.key_tier is not null
                 and array_position(array['use', 'edit', 'full'], r.tier) > array_position(array['use', 'edit', 'full'], me.key_tier)
                then me.key_tier else r.tier end as tier,
           r.source
      from projects p
      cross join (select ?::uuid as id, ?::text as role, ?::uuid as department_id, ?::text as key_tier,
                         ?::boolean as key_scoped, array[?]::uuid[] as key_projects) me
      left join project_grants ug on ug.project_id = p.id and ug.user_id = me.id
      left join lateral (
        -- the highest tier over every group the caller belongs to
        select (array['use', 'edit', 'full'])[max(array_position(array['use', 'edit', 'full'], g.tier))] as tier
          from project_grants g
          join group_members gm on gm.group_id = g.group_id and gm.user_id = me.id
         where g.project_id = p.id
      ) gg on true
      left join project_grants dg on dg.project_id = p.id and dg.department_id = me.department_id
      cross join lateral (
        select rule.tier, rule.source
          from (values
            (1, case when me.role = 'superadmin' then 'full' end, 'platform'),
            (2, case when me.role = 'admin' then 'full' end, 'platform'),
            (3, case when p.owner_id = me.id then 'full' end, 'owner'),
            (4, ug.tier, 'user'),
            (5, gg.tier, 'group'),
            (6, dg.tier, 'department'),
            (7, case when not p.is_private then 'use' end, 'public')
          ) as rule(priority, tier, source)
         where rule.tier is not null
         order by rule.priority
         limit 1
      ) r
     where (not me.key_scoped or p.id = any(me.key_projects)) ${filter}`;
  const keyProjects = caller.key?.projectIds ?? null;
  const params: unknown[] = [
    caller.id,
    caller.platformRole,
    caller.departmentId,
    caller.key?.tier ?? null,
    keyProjects !== null,
    // array[NULL] holds no id: an empty list reaches nothing
    keyProjects?.length ? keyProjects : null,
  ];
  // an empty id filter must match nothing: array[NULL] holds no id
  if (projectIds) params.push(projectIds.length ? projectIds : null);
  return { sql, params };
}

/** The caller's access to each given project (absent = no access), in one query. */
export async function accessToProjects(em: EntityManager, caller: Caller, projectIds: string[]): Promise<Map<string, Access>> {
  const out = new Map<string, Access>();
  if (!projectIds.length) return out;
  const cte = accessibleProjectsCte(caller, projectIds);
  const rows: Array<{ project_id: string; tier: Tier; source: AccessSource }> = await query(em, cte.sql, cte.params);
  for (const r of rows) out.set(r.project_id, { tier: r.tier, source: r.source });
  return out;
}

/** One member of a project's visible list, with its user, as the list query returns it. */
export interface MemberRecord {
  projectId: string;
  userId: string;
  addedAt: string;
  user: {
    id: string;
    name: string;
    email: string;
    avatarUrl: string | null;
    platformRole: PlatformRole;
    orgPosition: OrgPosition;
    departmentId: string | null;
  };
}

/** A project row of the list query: the project's columns, the caller's access, members and counts. */
export interface AccessibleProjectRow {
  id: string;
  name: string;
  description: string | null;
  color: string;
  is_private: boolean;
  instructions: string;
  settings: Record<string, unknown>;
  owner_id: string | null;
  created_by_id: string | null;
  created_at: Date;
  updated_at: Date;
  access_tier: Tier;
  access_source: AccessSource;
  members: MemberRecord[];
  document_count: number;
  conversation_count: number;
  /** How many projects the caller can access in all (the list before limit/offset). */
  total_count: number;
}

/**
 * Every project the caller can access (newest first, then `limit`/`offset` when given), with tier,
 * source, members (with users), document and conversation counts and the unpaged total — one
 * statement however many projects (no per-project query).
 */
export async function listAccessibleProjects(
  em: EntityManager,
  caller: Caller,
  page: { limit?: number; offset?: number } = {},
): Promise<AccessibleProjectRow[]> {
  const cte = accessibleProjectsCte(caller);
  return query(
    em,
    `with accessible as (${cte.sql})
     select p.id, p.name, p.description, p.color, p.is_private, p.instructions, p.settings,
            p.owner_id, p.created_by_id, p.created_at, p.updated_at,
            a.tier as access_tier, a.source as access_source,
            coalesce(m.members, '[]'::json) as members,
            coalesce(d.n, 0)::int as document_count,
            coalesce(c.n, 0)::int as conversation_count,
            (count(*) over ())::int as total_count
       from accessible a
       join projects p on p.id = a.project_id
       left join (
         select pm.project_id,
                json_agg(json_build_object(
                  'projectId', pm.project_id, 'userId', pm.user_id, 'addedAt', pm.added_at,
                  'user', json_build_object('id', u.id, 'name', u.name, 'email', u.email, 'avatarUrl', u.avatar_url,
                                            'platformRole', u.platform_role, 'orgPosition', u.org_position,
                                            'departmentId', u.department_id)
                ) order by pm.added_at, pm.user_id) as members
           from project_members pm
           join users u on u.id = pm.user_id
          where pm.project_id in (select project_id from accessible)
          group by pm.project_id
       ) m on m.project_id = p.id
       left join (
         select project_id, count(*) as n from documents
          where project_id in (select project_id from accessible) group by project_id
       ) d on d.project_id = p.id
       left join (
         select project_id, count(*) as n from conversations
          where project_id in (select project_id from accessible) group by project_id
       ) c on c.project_id = p.id
      order by p.created_at desc, p.id
      limit ? offset ?`,
    [...cte.params, page.limit ?? null, page.offset ?? 0],
  );
}

/** How many projects the caller can access. */
export async function countAccessibleProjects(em: EntityManager, caller: Caller): Promise<number> {
  const cte = accessibleProjectsCte(caller);
  const [row] = await query<{ n: number }>(em, `select count(*)::int as n from (${cte.sql}) a`, cte.params);
  return row.n;
}
