import { EntityManager, RequestContext } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The forks of a request context, made on first use: `RequestContext.getEntityManager()` (and every
 * MikroORM call that resolves the context) reads `map.get(name)`, so a request that never touches
 * the ORM — `/api/auth/me`, whose user read is one prepared statement on the auth pool — never pays
 * for a fork (an EntityManager and its identity map, ~6 % of that route's processor time).
 */
class LazyForks extends Map<string, EntityManager> {
  private forking = false;

  constructor(private readonly root: EntityManager) {
    super();
  }

  override get(name: string): EntityManager | undefined {
    let em = super.get(name);
    if (em === undefined && name === this.root.name && !this.forking) {
      // what RequestContext.create does eagerly, outside the context: a fork of the root that
      // resolves to itself as the context (while it is being built, the context has none yet)
      this.forking = true;
      try {
        em = this.root.fork({ useContext: true, disableContextResolution: true });
      } finally {
        this.forking = false;
      }
      super.set(name, em);
    }
    return em;
  }
}

// MikroORM's own async storage (a private static of RequestContext, pinned version 6.6.16): a
// context run in it is the one `RequestContext.getEntityManager()` and the ORM's calls see
const storage = (RequestContext as unknown as { storage?: unknown }).storage;

/**
 * Runs `fn` with an EntityManager fork of its own (made on first use), as `RequestContext.create`
 * does: what Express requests under /api and /graphql get (app.ts), and each GraphQL operation over a
 * WebSocket. Falls back to `RequestContext.create` should the ORM's storage ever move.
 */
export function inRequestContext<T>(orm: MikroORM, fn: () => T): T {
  if (!(storage instanceof AsyncLocalStorage)) return RequestContext.create(orm.em, fn);
  return (storage as AsyncLocalStorage<RequestContext>).run(new RequestContext(new LazyForks(orm.em)), fn);
}
