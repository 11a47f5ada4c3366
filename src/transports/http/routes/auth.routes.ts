import { Router } from 'express';
import { LoginInput, LogoutInput, RefreshInput } from '../../../services/auth.inputs';
import { presentMe } from '../../../presenters/user.presenter';
import { parse } from '../../../validation';
import { Reply, routeWith } from '../route';
import type { Services } from '../../../services';

export function authRoutes(s: Services): Router {
  const route = routeWith(s.tokens);
  const r = Router();
  r.post(
    '/auth/login',
    route({ auth: 'public' }, async (req) => s.login.attempt(await parse(LoginInput, req.body), req.ip ?? 'unknown')),
  );
  r.post(
    '/auth/refresh',
    route({ auth: 'public' }, async (req) => s.tokens.refresh((await parse(RefreshInput, req.body)).refreshToken)),
  );
  r.post(
    '/auth/logout',
    route({ auth: 'required' }, async (req) => {
      await s.tokens.logout(req.actor, (await parse(LogoutInput, req.body)).refreshToken);
      return new Reply(204);
    }),
  );
  r.get(
    '/auth/me',
    route({ auth: 'required' }, (req) => ({ user: presentMe(req.actor) })),
  );
  return r;
}
