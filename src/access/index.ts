export { Actor } from './actor';
export { gates } from './gates';
export { resolveAccess, requireTier, accessTo, loadGrantFacts, tierAtLeast, TIER_RANK } from './resolver';
export type { Access, AccessSource, GrantFacts } from './resolver';
