/** limit/offset of a list; no limit means every row. */
export interface PageInput {
  limit?: number;
  offset?: number;
}

/** One page of a list and the number of rows across all pages. */
export interface Paged<T> {
  items: T[];
  total: number;
}

/**
 * A page from rows that carry the unpaged total as a window column (`count(*) over ()`); only a
 * page past the end has no row to carry it, and then `count` asks once more.
 */
export async function pageFromRows<R extends { total_count: number }>(
  rows: R[],
  page: PageInput | undefined,
  count: () => Promise<number>,
): Promise<Paged<R>> {
  const total = rows.length ? rows[0].total_count : page?.offset ? await count() : 0;
  return { items: rows, total };
}

/** SQL parameters for `limit ? offset ?` (a null limit is no limit in PostgreSQL). */
export const limitOffset = (page: PageInput | undefined): [number | null, number] => [page?.limit ?? null, page?.offset ?? 0];
