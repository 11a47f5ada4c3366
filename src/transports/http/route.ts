import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
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

export type Handler<A extends AuthMode> = (req: A extends 'required' ? AuthedRequest : Request<PathParams>, res: Response) => unknown;

/** What a route declares beside its path: who may call it, and the status of a body it returns (200 unless told). */
export interface RouteOptions<A extends AuthMode> {
  auth: A;
  status?: number;
}

/** Marker a router test reads to prove every route declares its authentication. */
export const AUTH_MODE = Symbol('authMode');

export type RouteHandler = RequestHandler & { [AUTH_MODE]: AuthMode };

/**
 * A route table: each route is declared in one call with its path, its authentication and its
 * handler, `r.get('/groups/:id', { auth: 'required' }, async (req) => …)`. Required-auth routes
 * verify bearer tokens with `tokens`. A route module builds one from the services it receives and
 * returns its `router`.
 */
export class RouteTable {
  readonly router = Router();

  constructor(private readonly tokens: Services['tokens']) {}

  get<A extends AuthMode>(path: string, opts: RouteOptions<A>, handler: Handler<A>): void {
    this.router.get(path, declareRoute(this.tokens, opts, handler));
  }

  post<A extends AuthMode>(path: string, opts: RouteOptions<A>, handler: Handler<A>): void {
    this.router.post(path, declareRoute(this.tokens, opts, handler));
  }

  patch<A extends AuthMode>(path: string, opts: RouteOptions<A>, handler: Handler<A>): void {
    this.router.patch(path, declareRoute(this.tokens, opts, handler));
  }

  delete<A extends AuthMode>(path: string, opts: RouteOptions<A>, handler: Handler<A>): void {
    this.router.delete(path, declareRoute(this.tokens, opts, handler));
  }
}

/**
 * Declares one route: authenticates when required (re-reading the user), runs the handler, and
 * writes its result. Errors go to the one error handler. Handlers that stream write to `res`
 * themselves and return undefined after `res.headersSent`.
 */
function declareRoute<A extends AuthMode>(tokens: Services['tokens'], opts: RouteOptions<A>, handler: Handler<A>): RouteHandler {
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
