import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Runs one parameterised statement (`?` placeholders, values never spliced into the text) inside
 * the entity manager's transaction when it has one, and returns its rows typed as the caller says.
 *
 * The rule (CONTRIBUTING.md): the ORM for writes of one aggregate; this for set-based reads, bulk
 * writes and the search index.
 */
export async function query<T = Record<string, unknown>>(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  return await em.getConnection().execute<T[]>(sql, [...params], 'all', em.getTransactionContext());
}
