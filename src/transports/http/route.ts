import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Actor } from '../../access/actor';
import type { Services } from '../../services';
import { authenticateBearer } from '../bearer';

declare module 'express-serve-static-core' {
  interface Request {
    actor?: Actor;
    id: string;
  }
}

export type AuthMode = 'required' | 'public';

/** What a handler may return: a body (sent as JSON with the route's status) or a Reply. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body?: unknown,
  ) {}
}

/** Named path parameters are always strings in Express 5 (only wildcards give arrays, and no route uses one). */
export type PathParams = Record<string, string>;

export interface AuthedRequest extends Request<PathParams> {
  actor: Actor;
}

type Handler<A extends AuthMode> = (req: A extends 'required' ? AuthedRequest : Request<PathParams>, res: Response) => unknown;

/** Marker a router test reads to prove every route declares its authentication. */
export const AUTH_MODE = Symbol('authMode');

export type RouteHandler = RequestHandler & { [AUTH_MODE]: AuthMode };

/**
 * The `route` of a router whose required-auth routes verify bearer tokens with `tokens`: each
 * route module builds it from the services it receives (`const route = routeWith(s.tokens)`).
 */
export function routeWith(tokens: Services['tokens']) {
  return function route<A extends AuthMode>(opts: { auth: A; status?: number }, handler: Handler<A>): RouteHandler {
    return declareRoute(tokens, opts, handler);
  };
}

/**
 * Declares one route: authenticates when required (re-reading the user), runs the handler, and
 * writes its result. Errors go to the one error handler. Handlers that stream write to `res`
 * themselves and return undefined after `res.headersSent`.
 */
function declareRoute<A extends AuthMode>(
  tokens: Services['tokens'],
  opts: { auth: A; status?: number },
  handler: Handler<A>,
): RouteHandler {
  const fn = (async (req: Request, res: Response, next: NextFunction) => {
    // the template, not the raw path, names the request in metrics (read here: the mount path is known now)
    res.locals.routeTemplate = req.baseUrl + String((req.route as { path?: unknown } | undefined)?.path);
    try {
      if (opts.auth === 'required') {
        // the address is worked out (X-Forwarded-For under TRUST_PROXY) only for a key
        req.actor = await authenticateBearer(tokens, req.headers.authorization, () => req.ip);
      }
      const out = await handler(req as never, res);
      if (res.headersSent) return;
      if (out instanceof Reply) {
        if (out.body === undefined) res.status(out.status).end();
        else res.status(out.status).json(out.body);
      } else if (out === undefined) {
        res.status(opts.status ?? 204).end();
      } else {
        res.status(opts.status ?? 200).json(out);
      }
    } catch (e) {
      next(e);
    }
  }) as RouteHandler;
  fn[AUTH_MODE] = opts.auth;
  return fn;
}
