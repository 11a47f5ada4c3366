import path from 'node:path';
import { api } from './http';
import { startPgProcess, startProcess, startServerProcess, type Proc } from './processes';

export interface SsoWorld {
  /** Kill in this order (the server first). */
  procs: Proc[];
  node: Proc & { baseUrl: string };
  issuer: string;
  /** An access token of the superadmin root@corp.test (password `rootpassword`). */
  rootToken: string;
}

/**
 * A real OpenID provider (oidc-provider, test/support/oidc-provider.mjs, with `accounts`) that sends
 * the browser back to `redirect`, and the real server (dist, its own process, a fresh embedded
 * PostgreSQL in `dir`) set up for single sign-on with it as "Corp ID", plus any further `env`.
 * openid-client is ESM-only, so the server runs as a process, not in the test's module system.
 */
export async function startSsoWorld(
  dir: string,
  opts: { redirect: string; accounts: Record<string, unknown>; env?: Record<string, string> },
): Promise<SsoWorld> {
  const procs: Proc[] = [];
  const op = await startProcess(
    'test/support/oidc-provider.mjs',
    [],
    {
      OP_CLIENT_ID: 'docqa',
      OP_CLIENT_SECRET: 'docqa-client-secret',
      OP_REDIRECT_URI: opts.redirect,
      OP_ACCOUNTS: JSON.stringify(opts.accounts),
    },
    /oidc provider ready \S+\n/,
  );
  procs.push(op);
  const issuer = /oidc provider ready (\S+)\n/.exec(op.output())![1];
  const pg = await startPgProcess(dir);
  procs.push(pg);
  const node = await startServerProcess({
    DATABASE_URL: pg.url,
    DATA_DIR: path.join(dir, 'data'),
    BOOTSTRAP_SUPERADMIN_EMAIL: 'root@corp.test',
    BOOTSTRAP_SUPERADMIN_PASSWORD: 'rootpassword',
    OIDC_ISSUER: issuer,
    OIDC_CLIENT_ID: 'docqa',
    OIDC_CLIENT_SECRET: 'docqa-client-secret',
    OIDC_REDIRECT_URL: opts.redirect,
    OIDC_NAME: 'Corp ID',
    ...opts.env,
  });
  procs.unshift(node);
  const root = await api(node.baseUrl, 'POST', '/api/auth/login', { body: { email: 'root@corp.test', password: 'rootpassword' } });
  return { procs, node, issuer, rootToken: root.body.accessToken as string };
}
