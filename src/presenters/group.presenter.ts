import type { Group, User } from '../entities';
import { presentDepartmentRef, presentUserSummary } from './user.presenter';
import type { GroupDto } from './dto.generated';
import { iso } from './time';

/** A group; `members` only in single-group answers (the list carries `memberCount` alone). */
export function presentGroup(g: Group, extra: { memberCount: number; members?: User[] }): GroupDto {
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    departmentId: g.department.id,
    department: presentDepartmentRef(g.department),
    memberCount: extra.memberCount,
    ...(extra.members ? { members: extra.members.map(presentUserSummary) } : {}),
    createdAt: iso(g.createdAt),
  };
}
