import { MiddlewareFn, UseMiddleware } from 'type-graphql';
import { ForbiddenError } from '../../errors';
import type { GraphqlContext } from './context';

/**
 * The same object reaches GraphQL in different views, exactly as REST presents it: a grant's `user`
 * is `{id, name, email}`, a project member's user adds roles, `users` gives everything. A field the
 * view lacks is answered by loading the full object through the service call REST uses to read it
 * (`users.get`, `departments.get`, ...), so its gate decides: an admin sees the rest, anyone else
 * gets `null` and a `forbidden` error for that field. Presenters emit `null`, never `undefined`,
 * for empty values, so `undefined` means "not in this view".
 */
export const FromView = (): PropertyDecorator & MethodDecorator => UseMiddleware(completeFromFullView);

const completeFromFullView: MiddlewareFn<GraphqlContext> = async ({ root, info, context }, next) => {
  const value: unknown = await next();
  if (value !== undefined) return value;
  const id = (root as { id?: string }).id;
  // a view without even an id (a grant's group's department) cannot be completed
  if (id === undefined) throw new ForbiddenError('forbidden', `${info.parentType.name}.${info.fieldName} is not visible here`);
  const full = await context.loaders.full(info.parentType.name, id);
  const completed = full[info.fieldName];
  return completed === undefined ? null : completed;
};
