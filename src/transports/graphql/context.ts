import type { Actor } from '../../access/actor';
import { AppError, UnauthorizedError } from '../../errors';
import type { Services } from '../../services';
import { authenticateBearer } from '../bearer';
import { createLoaders, Loaders } from './loaders';

/** What every resolver receives: the caller (or null), the one service container, per-operation loaders. */
export interface GraphqlContext {
  actor: Actor | null;
  /** Why a bearer token that was sent got rejected; reported instead of a bare "unauthorized". */
  authError: AppError | null;
  services: Services;
  loaders: Loaders;
  /** The client's address (login rate limits). */
  ip: string;
}

/** A fresh context for one operation (one HTTP request or one WebSocket operation). */
export async function createContext(services: Services, authorization: unknown, ip: string): Promise<GraphqlContext> {
  let actor: Actor | null = null;
  let authError: AppError | null = null;
  if (authorization !== undefined && authorization !== null && authorization !== '') {
    try {
      actor = await authenticateBearer(services.tokens, authorization, ip);
    } catch (e) {
      // a rejected token is not fatal for the whole request: public operations (login, refresh) still run
      authError = e as AppError;
    }
  }
  return { actor, authError, services, ip, loaders: createLoaders(services, actor) };
}

/** The authenticated caller; resolvers behind `@Authorized()` always have one. */
export function actorOf(ctx: GraphqlContext): Actor {
  if (!ctx.actor) throw ctx.authError ?? new UnauthorizedError('unauthorized', 'Authentication required');
  return ctx.actor;
}
