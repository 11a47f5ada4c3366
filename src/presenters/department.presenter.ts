import type { Department } from '../entities';
import { iso } from './user.presenter';

export interface DepartmentCounts {
  members: number;
  groups: number;
  grants: number;
}

/** A department; `_count` is included whenever the service computed it. */
export function presentDepartment(d: Department, counts?: DepartmentCounts) {
  return {
    id: d.id,
    name: d.name,
    color: d.color,
    description: d.description,
    createdAt: iso(d.createdAt),
    ...(counts ? { _count: { members: counts.members, groups: counts.groups, grants: counts.grants } } : {}),
  };
}
