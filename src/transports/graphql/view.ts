import type { GraphQLFieldResolver } from 'graphql';
import { Extensions } from 'type-graphql';
import { requireCompletableView } from '../../access/view-rules';
import type { GraphqlContext } from './context';

/** The field extension that marks a FromView field (read by `streamlineResolvers`). */
export const FROM_VIEW = 'completeFromView';

/**
 * Completes a field a partial view lacks from the object's full view (see access/view-rules.ts):
 * loaded through the service call REST uses to read it (`users.getMany`, `departments.getMany`, ...),
 * so its rule decides: an admin sees the rest, anyone else gets `null` and a `forbidden` error for
 * that field. Presenters emit `null`, never `undefined`, for empty values, so `undefined` means
 * "not in this view". A value the view has is answered synchronously, without a promise.
 */
export const FromView = (): PropertyDecorator & MethodDecorator => Extensions({ [FROM_VIEW]: true });

export const resolveFromView: GraphQLFieldResolver<Record<string, unknown>, GraphqlContext> = (root, _args, context, info) => {
  const value = root[info.fieldName];
  if (value !== undefined) return value;
  const id = root.id as string | undefined;
  requireCompletableView(info.parentType.name, info.fieldName, id);
  return context.loaders.full(info.parentType.name, id).then((full) => full[info.fieldName] ?? null);
};
