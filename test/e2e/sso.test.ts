import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, client } from '../support/http';
import type { Proc } from '../support/processes';
import { startSsoWorld } from '../support/sso-world';

jest.setTimeout(180_000);

/**
 * Issue 38 part 2: single sign-on with OpenID Connect against a real provider (oidc-provider, in a
 * process of its own on loopback). The test plays the browser: it follows the redirects itself.
 */
const REDIRECT = 'http://app.test/sso/callback';
const ACCOUNTS = {
  alice: { email: 'alice@corp.test', email_verified: true, name: 'Alice' },
  newbie: { email: 'newbie@corp.test', email_verified: true, name: 'New Person', department: 'Research' },
  unverified: { email: 'mallory@corp.test', email_verified: false, name: 'Mallory' },
  outsider: { email: 'olga@elsewhere.test', email_verified: true, name: 'Olga' },
  sleeper: { email: 'sleeper@corp.test', email_verified: true, name: 'Sleeper' },
  joiner: { email: 'joiner@corp.test', email_verified: true, name: 'Joiner', department: 'Research' },
};

describe('single sign-on with OpenID Connect', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docqa-sso-'));
  const procs: Proc[] = [];
  let node: Proc & { baseUrl: string };
  let rootToken: string;
  let issuer: string;

  beforeAll(async () => {
    const world = await startSsoWorld(dir, {
      redirect: REDIRECT,
      accounts: ACCOUNTS,
      env: { OIDC_AUTO_CREATE: 'true', OIDC_ALLOWED_DOMAINS: 'corp.test', OIDC_DEPARTMENT_CLAIM: 'department', PASSWORD_LOGIN: 'false' },
    });
    procs.push(...world.procs);
    ({ node, issuer, rootToken } = world);
    const admin = client(node.baseUrl, rootToken);
    for (const [email, name] of [
      ['alice@corp.test', 'Alice'],
      ['sleeper@corp.test', 'Sleeper'],
      ['joiner@corp.test', 'Joiner'],
    ])
      expect(
        (await admin.post('/api/users', { email, name, password: 'a-password-1', platformRole: 'none', orgPosition: 'member' })).status,
      ).toBe(201);
    expect((await admin.post('/api/departments', { name: 'Research' })).status).toBe(201);
  });
  afterAll(async () => {
    for (const p of procs) await p.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  /** GET /api/auth/oidc/start: the provider's authorization URL and the flow cookie. */
  const start = async () => {
    const res = await fetch(`${node.baseUrl}/api/auth/oidc/start`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const flow = res.headers.getSetCookie().find((c) => c.startsWith('docqa_oidc='))!;
    expect(flow).toMatch(/HttpOnly/i);
    return { authUrl: new URL(res.headers.get('location')!), cookie: flow.split(';')[0] };
  };

  /** The browser at the provider: follows redirects (keeping the provider's cookies) back to the redirect URL. */
  const atProvider = async (authUrl: URL, account: string): Promise<string> => {
    authUrl.searchParams.set('login_hint', account);
    const jar = new Map<string, string>();
    let url = authUrl.href;
    for (let i = 0; i < 10; i++) {
      const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
      for (const c of res.headers.getSetCookie()) {
        const [kv] = c.split(';');
        const at = kv.indexOf('=');
        jar.set(kv.slice(0, at), kv.slice(at + 1));
      }
      const next = new URL(res.headers.get('location') ?? '', url).href;
      if (next.startsWith(REDIRECT)) return next;
      url = next;
    }
    throw new Error('the provider never sent the browser back');
  };

  const callback = (callbackUrl: string, cookie: string) =>
    api(node.baseUrl, 'POST', '/api/auth/oidc/callback', { body: { callbackUrl }, headers: { cookie } });

  /** The audit log's entries of one action about one user (as the superadmin reads it). */
  const auditOf = async (action: string, userId: string) => {
    const res = await client(node.baseUrl, rootToken).get(`/api/audit-log?action=${action}&limit=200`);
    expect(res.status).toBe(200);
    return (res.body.entries as Array<{ targetId: string }>).filter((e) => e.targetId === userId);
  };

  const signIn = async (account: string) => {
    const { authUrl, cookie } = await start();
    return callback(await atProvider(authUrl, account), cookie);
  };

  it('the sign-in page is told single sign-on is offered, and that password sign-in is off', async () => {
    const res = await api(node.baseUrl, 'GET', '/api/auth/sso');
    expect(res.body).toEqual({ oidc: { name: 'Corp ID' }, passwordLogin: false });
  });

  it('the authorization request uses the code flow with PKCE (S256), state and nonce', async () => {
    const { authUrl } = await start();
    expect(Object.fromEntries(authUrl.searchParams)).toEqual(
      expect.objectContaining({
        response_type: 'code',
        client_id: 'docqa',
        redirect_uri: REDIRECT,
        code_challenge_method: 'S256',
        code_challenge: expect.stringMatching(/^[\w-]{43}$/),
        state: expect.stringMatching(/.{20,}/),
        nonce: expect.stringMatching(/.{20,}/),
      }),
    );
  });

  it('a full code flow signs in the account with that verified email, with tokens as a password login gives', async () => {
    const res = await signIn('alice');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['accessToken', 'refreshToken', 'user']);
    expect(res.body.user).toEqual(expect.objectContaining({ email: 'alice@corp.test', platformRole: 'none', orgPosition: 'member' }));
    const me = await client(node.baseUrl, res.body.accessToken).get('/api/auth/me');
    expect(me.body.user.email).toBe('alice@corp.test');
    expect(me.body.user.lastLoginAt).not.toBeNull();
    expect((await api(node.baseUrl, 'POST', '/api/auth/refresh', { body: { refreshToken: res.body.refreshToken } })).status).toBe(200);
  });

  it('an unknown verified email in an allowed domain gets a member account in the department its claim names', async () => {
    const res = await signIn('newbie');
    expect(res.status).toBe(200);
    const depts = (await client(node.baseUrl, rootToken).get('/api/departments')).body.departments as Array<{ id: string; name: string }>;
    expect(res.body.user).toEqual(
      expect.objectContaining({
        email: 'newbie@corp.test',
        name: 'New Person',
        platformRole: 'none',
        orgPosition: 'member',
        departmentId: depts.find((d) => d.name === 'Research')!.id,
      }),
    );
    // audited: the account's creation names the provider, and so does its department by claim
    const created = await auditOf('user_created_by_sso', res.body.user.id);
    expect(created).toEqual([
      expect.objectContaining({ actorId: res.body.user.id, projectId: null, targetType: 'user', metadata: { issuer } }),
    ]);
    const joined = await auditOf('department_member_added', res.body.user.id);
    expect(joined).toEqual([
      expect.objectContaining({
        actorId: res.body.user.id,
        metadata: { departmentId: res.body.user.departmentId, reason: 'sso_claim', issuer },
      }),
    ]);
    // a second sign-in creates nothing more
    expect((await signIn('newbie')).status).toBe(200);
    expect(await auditOf('user_created_by_sso', res.body.user.id)).toHaveLength(1);
  });

  it("an existing member without a department is placed in the claim's department, audited; no account is created", async () => {
    const res = await signIn('joiner');
    expect(res.status).toBe(200);
    const depts = (await client(node.baseUrl, rootToken).get('/api/departments')).body.departments as Array<{ id: string; name: string }>;
    const research = depts.find((d) => d.name === 'Research')!.id;
    expect(res.body.user.departmentId).toBe(research);
    expect(await auditOf('department_member_added', res.body.user.id)).toEqual([
      expect.objectContaining({ metadata: expect.objectContaining({ departmentId: research, reason: 'sso_claim' }) }),
    ]);
    expect(await auditOf('user_created_by_sso', res.body.user.id)).toEqual([]);
  });

  it('a wrong state is refused: the answer of one sign-in under the cookie of another', async () => {
    const first = await start();
    const second = await start();
    const res = await callback(await atProvider(second.authUrl, 'alice'), first.cookie);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('sso_failed');
  });

  it('a wrong nonce is refused', async () => {
    const { authUrl, cookie } = await start();
    authUrl.searchParams.set('nonce', 'a-nonce-this-sign-in-never-sent');
    const res = await callback(await atProvider(authUrl, 'alice'), cookie);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('sso_failed');
    expect(res.body.message).toMatch(/nonce/);
  });

  it('an unverified email is refused', async () => {
    const res = await signIn('unverified');
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/not verified/);
  });

  it('a domain outside OIDC_ALLOWED_DOMAINS gets no account', async () => {
    const res = await signIn('outsider');
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('sso_domain_not_allowed');
  });

  it('an inactive user is refused', async () => {
    const admin = client(node.baseUrl, rootToken);
    const users = (await admin.get('/api/users?search=sleeper')).body.users as Array<{ id: string }>;
    expect((await admin.patch(`/api/users/${users[0].id}`, { status: 'inactive' })).status).toBe(200);
    const res = await signIn('sleeper');
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/inactive/);
  });

  it('PASSWORD_LOGIN=false: members cannot sign in with a password, the superadmin still can', async () => {
    const member = await api(node.baseUrl, 'POST', '/api/auth/login', { body: { email: 'alice@corp.test', password: 'a-password-1' } });
    expect(member.status).toBe(401);
    const root = await api(node.baseUrl, 'POST', '/api/auth/login', { body: { email: 'root@corp.test', password: 'rootpassword' } });
    expect(root.status).toBe(200);
  });
});
