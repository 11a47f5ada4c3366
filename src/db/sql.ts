import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Runs one parameterised statement (`?` placeholders, values never spliced into the text) inside
 * the entity manager's transaction when it has one, and returns its rows typed as the caller says.
 *
 * The rule (CONTRIBUTING.md): the ORM for writes of one aggregate; this for set-based reads, locks
 * and the search index; `bulk` below for statements with large parameters.
 */
export async function query<T = Record<string, unknown>>(em: EntityManager, sql: string, params: readonly unknown[] = []): Promise<T[]> {
  return await em.getConnection().execute<T[]>(sql, [...params], 'all', em.getTransactionContext());
}

/**
 * Runs a statement whose parameters are large (batches of rows, slices of originals) with real bind
 * parameters on `em`'s transaction. MikroORM's execute() inlines parameters into the SQL text, which
 * escapes megabytes of text on the event loop (and doubles what the garbage collector has to free).
 */
export async function bulk(em: EntityManager, sql: string, params: unknown[]): Promise<void> {
  const q = em
    .getConnection()
    .getKnex()
    .raw(sql, params as never);
  const ctx: unknown = em.getTransactionContext();
  if (ctx) q.transacting(ctx as never);
  await q;
}
