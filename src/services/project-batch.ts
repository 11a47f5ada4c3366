import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../access/actor';
import { checkProjectAccess } from '../access/read-rules';
import { Batch, groupBy, splitVerdicts } from './batch';

/**
 * A list of many projects at once (GraphQL's per-project loaders, and REST's list of one): `use` is
 * checked on each project (a refused one answers its error, as a single read would), then `read`
 * runs once for the allowed projects and its rows are grouped under their project, in order.
 */
export async function listPerProject<T>(
  em: EntityManager,
  actor: Actor,
  projectIds: readonly string[],
  read: (allowed: string[]) => Promise<T[]>,
  projectOf: (row: T) => string,
): Promise<Batch<T[]>> {
  const out: Batch<T[]> = new Map();
  const allowed = splitVerdicts(await checkProjectAccess(em, actor, projectIds, 'use'), out);
  if (!allowed.length) return out;
  for (const [id, rows] of groupBy(allowed, await read(allowed), projectOf)) out.set(id, rows);
  return out;
}
