import type { Department } from '../entities';
import type { DepartmentDto } from './dto.generated';
import { iso } from './time';

export interface DepartmentCounts {
  members: number;
  groups: number;
  grants: number;
}

/** A department as REST answers it: the spec's fields, with `_count` whenever the service computed it. */
export function presentDepartmentRecord(d: Department, counts?: DepartmentCounts): DepartmentDto {
  return {
    id: d.id,
    name: d.name,
    color: d.color,
    description: d.description,
    ...(counts ? { _count: { members: counts.members, groups: counts.groups, grants: counts.grants } } : {}),
  };
}

/** The graph's department (GraphQL selects fields): the REST fields plus createdAt. */
/** The graph's Department: the REST record with its creation time. */
export type GraphDepartmentDto = DepartmentDto & { createdAt: string };

export function presentDepartment(d: Department, counts?: DepartmentCounts): GraphDepartmentDto {
  return { ...presentDepartmentRecord(d, counts), createdAt: iso(d.createdAt) };
}
