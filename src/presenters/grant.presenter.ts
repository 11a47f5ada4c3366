import type { Tier } from '../entities/base';
import { presentProjectRef } from './project.presenter';
import type { EffectiveAccessDto, GrantDto, GrantsByUserDto } from './dto.generated';
import type { ProjectRefDto } from './dto.generated';

/** A grant as the services read it: its columns and what REST shows of its target. */
export interface GrantRow {
  id: string;
  project_id: string;
  user_id: string | null;
  group_id: string | null;
  department_id: string | null;
  tier: Tier;
  granted_by_id: string | null;
  /** ISO 8601 text, as the wire shows it */
  created_at: string;
  updated_at: string;
  user_name: string | null;
  user_email: string | null;
  group_name: string | null;
  group_department_name: string | null;
  department_name: string | null;
  department_color: string | null;
}

/** One row of GET /grants/by-user, before presentation. */
export interface UserGrantRow {
  grant_id: string;
  project_id: string;
  tier: Tier;
  via: 'user' | 'group' | 'department';
  project_name: string;
  project_color: string;
  project_is_private: boolean;
  project_owner_id: string | null;
  group_id: string | null;
  group_name: string | null;
  department_id: string | null;
  department_name: string | null;
  department_color: string | null;
}

export interface GrantsByUser {
  direct: UserGrantRow[];
  viaGroup: UserGrantRow[];
  viaDepartment: UserGrantRow[];
}

/** A grant with its target nested; the two non-target relations are null. */
export function presentGrant(g: GrantRow): GrantDto {
  return {
    id: g.id,
    projectId: g.project_id,
    userId: g.user_id,
    groupId: g.group_id,
    departmentId: g.department_id,
    tier: g.tier,
    grantedById: g.granted_by_id,
    createdAt: g.created_at,
    updatedAt: g.updated_at,
    user: g.user_id ? { id: g.user_id, name: g.user_name!, email: g.user_email! } : null,
    group: g.group_id ? { id: g.group_id, name: g.group_name!, department: { name: g.group_department_name! } } : null,
    department: g.department_id ? { id: g.department_id, name: g.department_name!, color: g.department_color! } : null,
  };
}

function project(r: UserGrantRow): ProjectRefDto {
  return presentProjectRef({
    id: r.project_id,
    name: r.project_name,
    color: r.project_color,
    isPrivate: r.project_is_private,
    ownerId: r.project_owner_id,
  });
}

/** GET /grants/by-user/:userId: exactly the spec's entries (`{projectId, tier, project}`, plus `group` / `department`). */
export function presentGrantsReachingUser(g: GrantsByUser): GrantsByUserDto {
  return {
    direct: g.direct.map((r) => ({ projectId: r.project_id, tier: r.tier, project: project(r) })),
    viaGroup: g.viaGroup.map((r) => ({
      projectId: r.project_id,
      tier: r.tier,
      group: { id: r.group_id!, name: r.group_name! },
      project: project(r),
    })),
    viaDepartment: g.viaDepartment.map((r) => ({
      projectId: r.project_id,
      tier: r.tier,
      department: { id: r.department_id!, name: r.department_name!, color: r.department_color! },
      project: project(r),
    })),
  };
}

/** The graph's view of GrantsByUser: each entry also names its grant. */
export type GraphGrantsByUserDto = { [K in keyof GrantsByUserDto]: Array<GrantsByUserDto[K][number] & { grantId: string }> };

/** The graph's view of the same lists: each entry also names its grant (`grantId`). */
export function presentGrantsByUser(g: GrantsByUser): GraphGrantsByUserDto {
  const withId = <T>(rows: UserGrantRow[], entries: T[]): Array<T & { grantId: string }> =>
    entries.map((e, i) => ({ grantId: rows[i].grant_id, ...e }));
  const rest = presentGrantsReachingUser(g);
  return {
    direct: withId(g.direct, rest.direct),
    viaGroup: withId(g.viaGroup, rest.viaGroup),
    viaDepartment: withId(g.viaDepartment, rest.viaDepartment),
  };
}

/** GET /projects/:projectId/access/:userId: what the access resolver gives one user on one project. */
export function presentEffectiveAccess(a: {
  projectId: string;
  userId: string;
  tier: EffectiveAccessDto['tier'];
  source: EffectiveAccessDto['source'];
}): EffectiveAccessDto {
  return { projectId: a.projectId, userId: a.userId, tier: a.tier, source: a.source };
}
