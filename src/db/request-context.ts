import { RequestContext } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';

/**
 * Runs `fn` with an EntityManager fork of its own (what Express requests get from app.ts), for work
 * that does not arrive through Express — e.g. each GraphQL operation over a WebSocket.
 */
export function inRequestContext<T>(orm: MikroORM, fn: () => T): T {
  return RequestContext.create(orm.em, fn);
}
