import { listRoutes } from '../support/routes';

// Forgetting a check fails here: every REST route must be declared through route({ auth }),
// and only these may be public.
// spec: login and refresh are public; single sign-on's three steps (issue 38) run before anyone is signed in
const PUBLIC = new Set([
  'POST /api/auth/login',
  'POST /api/auth/refresh',
  'GET /api/auth/sso',
  'GET /api/auth/oidc/start',
  'POST /api/auth/oidc/callback',
]);

describe('every route declares its authentication', () => {
  const routes = listRoutes();

  it('finds the routes', () => {
    expect(routes.length).toBeGreaterThan(3);
  });

  it.each(routes.map((r) => [`${r.method} ${r.path}`, r.auth] as const))('%s', (op, auth) => {
    expect(auth).toBeDefined();
    expect(auth).toBe(PUBLIC.has(op) ? 'public' : 'required');
  });
});
