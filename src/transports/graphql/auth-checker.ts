import type { AuthChecker } from 'type-graphql';
import { UnauthorizedError } from '../../errors';
import type { GraphqlContext } from './context';

/** The role that marks an operation public: `@Authorized(PUBLIC)`. Plain `@Authorized()` means "authenticated". */
export const PUBLIC = 'public';

/**
 * Every operation declares its authentication with `@Authorized()` (like REST's `route({ auth })`):
 * public ones pass, the rest need an actor. Finer rules (roles, tiers) live in the services.
 */
export const authChecker: AuthChecker<GraphqlContext> = ({ context }, roles) => {
  if (roles.includes(PUBLIC)) return true;
  if (context.actor) return true;
  throw context.authError ?? new UnauthorizedError('unauthorized', 'Authentication required');
};
