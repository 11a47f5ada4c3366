export { Actor } from './actor';
export { gates } from './gates';
export { resolveAccess, requireTier, accessTo, loadGrantFacts, tierAtLeast, TIER_RANK } from './resolver';
export type { Access, AccessSource, GrantFacts } from './resolver';
export { accessibleProjectsCte, accessToProjects, listAccessibleProjects } from './project-access.sql';
export type { AccessibleProjectRow, MemberRecord } from './project-access.sql';
