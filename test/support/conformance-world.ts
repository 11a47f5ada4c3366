/**
 * The conformance suite's organisation (test/e2e/conformance/), built through REST only after
 * bootstrap, on an app of its own. `useWorld(stage)` registers a beforeAll/afterAll in the calling
 * describe block, so every `it` of that block finds the world ready whether it runs with the others
 * or alone (`-t`). The stages follow the spec's scenario, each one including the ones before it:
 *
 * - bootstrapped: the root superadmin (logged in) and the CEO, made by bootstrap;
 * - department:   + the platform admin Ada (logged in) and the Sales department;
 * - people:       + the Sales manager and member (both have logged in once);
 * - project:      + the member renamed, the group "Closers 🔒" holding the member, the admin's project;
 * - granted:      + on the project: the member's grant (use, then edit), the group's and Sales' (use);
 * - audited:      + the member taken off the project's member list and the member's grant deleted.
 */
import { api, ApiResponse, client } from './http';
import { createTestApp, TestApp } from './test-app';

export const ROOT = { email: 'Root.Admin@Example.com', password: 'root-password-1', name: 'Root Admin' };
export const CEO = { email: 'ceo@example.com', password: 'ceo-password-1', name: 'Chief Exec' };
export const ADMIN = { email: 'Ada.Admin@Example.com', password: 'admin-password', name: 'Ada Admin' };
export const MANAGER = { email: 'mgr@example.com', password: 'manager-password', name: 'Mária Ødegård-山田' };
export const MEMBER = { email: 'member@example.com', password: 'member-password', name: 'Zoë 🚀' };

export type Client = ReturnType<typeof client>;
export type Stage = 'bootstrapped' | 'department' | 'people' | 'project' | 'granted' | 'audited';
const STAGES: Stage[] = ['bootstrapped', 'department', 'people', 'project', 'granted', 'audited'];

export interface World {
  t: TestApp;
  anon: () => Client;
  login: (email: string, password: string) => Promise<ApiResponse>;
  /** Logs in (expecting 200) and answers the access token. */
  tokenFor: (email: string, password: string) => Promise<string>;
  root: Client;
  rootId: string;
  admin: Client;
  adminId: string;
  sales: { id: string; name: string; color: string };
  manager: { id: string; email: string };
  memberUser: { id: string; email: string };
  groupId: string;
  projectId: string;
  /** The member's direct grant on the project (stage granted; deleted at stage audited). */
  userGrantId: string;
}

/** Fails the world's setup loudly: a step that does not answer as the scenario expects is a broken fixture. */
async function step<T extends { status: number; body: any }>(what: string, status: number, res: Promise<T>): Promise<T> {
  const r = await res;
  if (r.status !== status) throw new Error(`conformance world: ${what} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r;
}

function helpers(t: TestApp) {
  const login = (email: string, password: string) => api(t.baseUrl, 'POST', '/api/auth/login', { body: { email, password } });
  const tokenFor = async (email: string, password: string): Promise<string> => {
    const res = await login(email, password);
    expect(res.status).toBe(200);
    return res.body.accessToken;
  };
  return { anon: () => client(t.baseUrl), login, tokenFor };
}

/** A fresh app and the world up to `stage` on it. */
export async function buildWorld(stage: Stage): Promise<World> {
  const t = await createTestApp();
  const w = { t, ...helpers(t) } as World;
  const upTo = (s: Stage) => STAGES.indexOf(stage) >= STAGES.indexOf(s);
  const token = async (email: string, password: string) =>
    (await step(`login ${email}`, 200, w.login(email, password))).body.accessToken as string;

  await t.services.bootstrap.bootstrap(ROOT, CEO);
  const rootLogin = await step('root login', 200, w.login(ROOT.email, ROOT.password));
  w.root = client(t.baseUrl, rootLogin.body.accessToken);
  w.rootId = rootLogin.body.user.id;
  if (!upTo('department')) return w;

  const admin = await step(
    'POST /users (admin)',
    201,
    w.root.post('/api/users', { ...ADMIN, platformRole: 'admin', orgPosition: 'member' }),
  );
  w.adminId = admin.body.user.id;
  w.admin = client(t.baseUrl, await token(ADMIN.email, ADMIN.password));
  w.sales = (
    await step('POST /departments', 201, w.root.post('/api/departments', { name: 'Sales', color: '#10b981', description: 'Sells things' }))
  ).body.department;
  if (!upTo('people')) return w;

  const person = async (p: typeof MANAGER, orgPosition: string) => {
    const res = await step(
      `POST /users (${p.email})`,
      201,
      w.admin.post('/api/users', { ...p, platformRole: 'none', orgPosition, departmentId: w.sales.id }),
    );
    await token(p.email, p.password);
    return res.body.user;
  };
  w.manager = await person(MANAGER, 'manager');
  w.memberUser = await person(MEMBER, 'member');
  if (!upTo('project')) return w;

  await step('PATCH member', 200, w.admin.patch(`/api/users/${w.memberUser.id}`, { name: 'Zoë Renamed 🎉' }));
  w.groupId = (
    await step('POST /groups', 201, w.admin.post('/api/groups', { name: 'Closers 🔒', departmentId: w.sales.id }))
  ).body.group.id;
  await step('POST group members', 200, w.admin.post(`/api/groups/${w.groupId}/members`, { userIds: [w.memberUser.id] }));
  w.projectId = (
    await step(
      'POST /projects',
      201,
      w.admin.post('/api/projects', { name: 'Playbook 📘', description: 'How we sell', isPrivate: true, instructions: 'Be brief.' }),
    )
  ).body.project.id;
  if (!upTo('granted')) return w;

  const grant = (targetType: string, targetId: string, tier: string, status: number) =>
    step(`POST grant ${targetType} ${tier}`, status, w.admin.post(`/api/projects/${w.projectId}/grants`, { targetType, targetId, tier }));
  w.userGrantId = (await grant('user', w.memberUser.id, 'use', 201)).body.grant.id;
  await grant('user', w.memberUser.id, 'edit', 200);
  await grant('group', w.groupId, 'use', 201);
  await grant('department', w.sales.id, 'use', 201);
  if (!upTo('audited')) return w;

  await step('DELETE project member', 200, w.admin.delete(`/api/projects/${w.projectId}/members/${w.memberUser.id}`));
  await step('DELETE grant', 200, w.admin.delete(`/api/projects/${w.projectId}/grants/${w.userGrantId}`));
  return w;
}

/**
 * Registers, in the calling describe block, a beforeAll that builds a fresh app and the world up to
 * `stage`, and an afterAll that closes it. The returned object is filled in by the beforeAll.
 */
export function useWorld(stage: Stage): World {
  const w = {} as World;
  beforeAll(async () => {
    Object.assign(w, await buildWorld(stage));
  });
  afterAll(async () => w.t?.close());
  return w;
}

/** An app of its own that is never bootstrapped (the "before bootstrap" behaviour). */
export function useUnbootstrappedApp(): { t: TestApp; login: (email: string, password: string) => Promise<ApiResponse> } {
  const a = {} as { t: TestApp; login: (email: string, password: string) => Promise<ApiResponse> };
  beforeAll(async () => {
    a.t = await createTestApp();
    a.login = helpers(a.t).login;
  });
  afterAll(async () => a.t?.close());
  return a;
}
