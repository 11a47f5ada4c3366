import { NotFoundError } from '../errors';

/** Per id: the value, or the error a single read of that id answers (403, 404). */
export type Batch<T> = Map<string, T | Error>;

/** The value a batch holds for one id, or that id's error thrown: `get` is `getMany` of one id. */
export function one<T>(batch: Batch<T>, id: string, missing: () => Error = () => new NotFoundError('not_found', 'Not found')): T {
  const v = batch.get(id);
  if (v === undefined) throw missing();
  if (v instanceof Error) throw v;
  return v;
}

/** Copies the refused ids' errors into `out` and returns the allowed ids, in order and without repeats. */
export function splitVerdicts<T>(verdicts: Map<string, unknown>, out: Batch<T>): string[] {
  const allowed: string[] = [];
  for (const [id, v] of verdicts) {
    if (v instanceof Error) out.set(id, v);
    else allowed.push(id);
  }
  return allowed;
}

/** Groups rows under their key, every key of `keys` present (an empty list when it has no rows). */
export function groupBy<T>(keys: readonly string[], rows: readonly T[], keyOf: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>(keys.map((k) => [k, []]));
  for (const r of rows) out.get(keyOf(r))?.push(r);
  return out;
}
