import type { EntityName, FilterQuery, Loaded, Populate } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid } from '../validation';

/**
 * The row with this id (with `populate` loaded), or `notFound()` thrown: for an id that is no uuid
 * too, which no row can have (the database would refuse to compare it).
 */
export async function findByIdOr<T extends { id: string }, P extends string = never>(
  em: EntityManager,
  entity: EntityName<T>,
  id: string,
  notFound: () => Error,
  populate?: Populate<T, P>,
): Promise<Loaded<T, P>> {
  if (!isUuid(id)) throw notFound();
  const row = await em.findOne(entity, { id } as FilterQuery<T>, { populate });
  if (!row) throw notFound();
  return row;
}
