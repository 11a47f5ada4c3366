import type { Tier } from '../entities/base';
import type { ProjectGrant } from '../entities';
import { presentProjectRef } from './project.presenter';
import { iso } from './user.presenter';

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
export function presentGrant(g: ProjectGrant) {
  return {
    id: g.id,
    projectId: g.project.id,
    userId: g.user ? g.user.id : null,
    groupId: g.group ? g.group.id : null,
    departmentId: g.department ? g.department.id : null,
    tier: g.tier,
    grantedById: g.grantedBy ? g.grantedBy.id : null,
    createdAt: iso(g.createdAt),
    updatedAt: iso(g.updatedAt),
    user: g.user ? { id: g.user.id, name: g.user.name, email: g.user.email } : null,
    group: g.group ? { id: g.group.id, name: g.group.name, department: { name: g.group.department.name } } : null,
    department: g.department ? { id: g.department.id, name: g.department.name, color: g.department.color } : null,
  };
}

function project(r: UserGrantRow) {
  return presentProjectRef({
    id: r.project_id,
    name: r.project_name,
    color: r.project_color,
    isPrivate: r.project_is_private,
    ownerId: r.project_owner_id,
  });
}

/** GET /grants/by-user/:userId: exactly the spec's entries (`{projectId, tier, project}`, plus `group` / `department`). */
export function presentGrantsReachingUser(g: GrantsByUser) {
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

/** The graph's view of the same lists: each entry also names its grant (`grantId`). */
export function presentGrantsByUser(g: GrantsByUser) {
  const withId = <T>(rows: UserGrantRow[], entries: T[]) => entries.map((e, i) => ({ grantId: rows[i].grant_id, ...e }));
  const rest = presentGrantsReachingUser(g);
  return {
    direct: withId(g.direct, rest.direct),
    viaGroup: withId(g.viaGroup, rest.viaGroup),
    viaDepartment: withId(g.viaDepartment, rest.viaDepartment),
  };
}
