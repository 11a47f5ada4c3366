import { Router } from 'express';
import { LoginInput, LogoutInput, OidcCallbackInput, RefreshInput } from '../../../auth/auth.inputs';
import { presentMe } from '../../../presenters/user.presenter';
import { parse } from '../../../validation';
import { OIDC_COOKIE } from '../../../auth/oidc';
import { Reply, RouteTable } from '../route';
import type { Services } from '../../../services';

/** One cookie's value from a Cookie header. */
function cookieOf(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return undefined;
}

export function authRoutes(s: Services): Router {
  const r = new RouteTable(s.tokens);
  r.post('/auth/login', { auth: 'public' }, async (req) => s.login.attempt(await parse(LoginInput, req.body), req.ip ?? 'unknown'));
  r.get('/auth/sso', { auth: 'public' }, () => s.sso.options());
  // single sign-on: the browser is sent to the provider with the flow's secrets in a signed cookie
  r.get('/auth/oidc/start', { auth: 'public' }, async (_req, res) => {
    const { url, cookie, maxAgeSeconds } = await s.sso.start();
    res.cookie(OIDC_COOKIE, cookie, {
      httpOnly: true,
      sameSite: 'lax',
      secure: url.startsWith('https:'),
      path: '/api/auth/oidc',
      maxAge: maxAgeSeconds * 1000,
    });
    res.redirect(302, url);
  });
  r.post('/auth/oidc/callback', { auth: 'public' }, async (req, res) => {
    const { callbackUrl } = await parse(OidcCallbackInput, req.body);
    res.clearCookie(OIDC_COOKIE, { path: '/api/auth/oidc' });
    return s.sso.finish(callbackUrl, cookieOf(req.headers.cookie, OIDC_COOKIE));
  });
  r.post('/auth/refresh', { auth: 'public' }, async (req) => s.tokens.refresh((await parse(RefreshInput, req.body)).refreshToken));
  r.post('/auth/logout', { auth: 'required' }, async (req) => {
    await s.tokens.logout(req.actor, (await parse(LogoutInput, req.body)).refreshToken);
    return new Reply(204);
  });
  r.get('/auth/me', { auth: 'required' }, (req) => ({ user: presentMe(req.actor) }));
  // beside /auth/me, not in it: the app asks once per session, /auth/me stays as lean as it is
  r.get('/auth/capabilities', { auth: 'required' }, (req) => ({ capabilities: s.users.capabilities(req.actor) }));
  return r.router;
}
