import DataLoader from 'dataloader';
import type { Actor } from '../../access/actor';
import { UnauthorizedError } from '../../errors';
import { presentUser } from '../../presenters/user.presenter';
import type { Services } from '../../services';

type Row = Record<string, unknown>;

/** Runs one service call per key and keeps each key's error as that key's result. */
function perKey<V>(fn: (id: string) => Promise<V>) {
  return async (ids: readonly string[]): Promise<Array<V | Error>> =>
    Promise.all(ids.map((id) => fn(id).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))))));
}

/**
 * Per-operation DataLoaders: nested fields ask these instead of the database, so a list of N parents
 * costs one batched call per field, not N. Every batch goes through a service with the caller, so
 * the service's access rules decide what comes back.
 */
export function createLoaders(services: Services, actor: Actor | null) {
  const caller = (): Actor => {
    if (!actor) throw new UnauthorizedError('unauthorized', 'Authentication required');
    return actor;
  };

  /** Full views, for fields a partial view lacks (FromView): the same reads REST's GET /x/:id does. */
  const fullUser = new DataLoader<string, Row>(
    perKey(async (id) => presentUser(id === caller().id ? await services.users.me(caller()) : await services.users.get(caller(), id))),
  );

  const fullByType: Record<string, DataLoader<string, Row>> = { User: fullUser };

  return {
    fullUser,
    /** The full view of a `typeName` object, read with the caller's rights. */
    full(typeName: string, id: string): Promise<Row> {
      const loader = fullByType[typeName];
      if (!loader) throw new Error(`no full view for ${typeName}`);
      return loader.load(id);
    },
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
