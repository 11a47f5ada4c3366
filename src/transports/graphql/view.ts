import { MiddlewareFn, UseMiddleware } from 'type-graphql';
import { requireCompletableView } from '../../access/view-rules';
import type { GraphqlContext } from './context';

/**
 * Completes a field a partial view lacks from the object's full view (see access/view-rules.ts):
 * loaded through the service call REST uses to read it (`users.getMany`, `departments.getMany`, ...),
 * so its rule decides: an admin sees the rest, anyone else gets `null` and a `forbidden` error for
 * that field. Presenters emit `null`, never `undefined`, for empty values, so `undefined` means
 * "not in this view".
 */
export const FromView = (): PropertyDecorator & MethodDecorator => UseMiddleware(completeFromFullView);

const completeFromFullView: MiddlewareFn<GraphqlContext> = async ({ root, info, context }, next) => {
  const value: unknown = await next();
  if (value !== undefined) return value;
  const id = (root as { id?: string }).id;
  requireCompletableView(info.parentType.name, info.fieldName, id);
  const full = await context.loaders.full(info.parentType.name, id);
  const completed = full[info.fieldName];
  return completed === undefined ? null : completed;
};
