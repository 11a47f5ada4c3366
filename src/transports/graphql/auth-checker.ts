import { Authorized, Mutation, Query, type AuthChecker } from 'type-graphql';
import { UnauthorizedError } from '../../errors';
import type { GraphqlContext } from './context';

/** The role that marks an operation public: `@Authorized(PUBLIC)`. Plain `@Authorized()` means "authenticated". */
export const PUBLIC = 'public';

/**
 * Every operation declares its authentication with `@Authorized()`, most through `@SignedInQuery` and
 * `@SignedInMutation` below (like REST's `r.get(path, { auth }, …)`): public ones pass, the rest need an actor. Finer rules (roles, tiers) live in the services.
 */
export const authChecker: AuthChecker<GraphqlContext> = ({ context }, roles) => {
  if (roles.includes(PUBLIC)) return true;
  if (context.actor) return true;
  throw context.authError ?? new UnauthorizedError('unauthorized', 'Authentication required');
};

/** What `@Query(...)` and `@Mutation(...)` take: the return type and the options (name, description). */
type OperationArgs = Parameters<typeof Query>;

/** `@Authorized()` on an operation: what the signed-in forms below add to `@Query` and `@Mutation`. */
function signedIn(operation: MethodDecorator): MethodDecorator {
  return (target, key, descriptor) => {
    operation(target, key, descriptor);
    Authorized()(target, key, descriptor);
  };
}

/** A query for signed-in callers: `@Authorized()` and `@Query(...)` in one (the public ones spell out `@Authorized(PUBLIC)`). */
export const SignedInQuery = (...args: OperationArgs): MethodDecorator => signedIn(Query(...args));

/** A mutation for signed-in callers: `@Authorized()` and `@Mutation(...)` in one. */
export const SignedInMutation = (...args: OperationArgs): MethodDecorator => signedIn(Mutation(...args));
