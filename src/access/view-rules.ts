import { ForbiddenError } from '../errors';
import type { Actor } from './actor';
import { checkUserAccess } from './read-rules';

/**
 * GraphQL views. The same object reaches GraphQL in different views, exactly as REST presents it
 * (a grant's `user` is `{id, name, email}`, `users` gives everything). A field a view lacks is
 * completed from the object's full view, read with the caller's rights through the service call
 * REST uses; only these types have one. Anything else, or a view without an id, is refused.
 */
export const COMPLETABLE_VIEWS: ReadonlySet<string> = new Set(['User', 'Project', 'Department', 'Group', 'Provider']);

export function requireCompletableView(typeName: string, fieldName: string, id: string | undefined): asserts id is string {
  // a view without even an id (a grant's group's department) cannot be completed
  if (id === undefined) throw new ForbiddenError('forbidden', `${typeName}.${fieldName} is not visible here`);
  if (!COMPLETABLE_VIEWS.has(typeName)) throw new ForbiddenError('forbidden', `This ${typeName} field is not visible here`);
}

/**
 * Who may see a grant's granter (REST shows only `grantedById`): in full whoever may read the user
 * (`checkUserAccess`: admins, or the granter themselves); as a project member whoever can see the
 * project's visible member list, when the granter is on it; nobody else.
 */
export async function granterView(
  actor: Actor,
  granterId: string,
  visibleMemberIds: () => Promise<readonly string[]>,
): Promise<'full' | 'member'> {
  if (checkUserAccess(actor, [granterId]).get(granterId) === true) return 'full';
  if ((await visibleMemberIds()).includes(granterId)) return 'member';
  throw new ForbiddenError('forbidden', 'The granting user is not visible to you');
}
