import type { Project, Tier, User } from '../../src/entities';
import { createTestApp, TestApp } from '../support/test-app';
import { api, ApiResponse } from '../support/http';
import { factories } from '../support/factories';

/**
 * Who may do what on projects, grants and the audit log — the spec's "Role gates" and "Project
 * tiers" (and DESIGN §3) as one table. Each row is a kind of caller, each column an endpoint, each
 * cell the outcome. Every cell runs against a world built fresh for it (so deletes cannot leak).
 *
 *   ok     2xx                      403  refused (authenticated, not allowed)
 *   401    not authenticated        hid  GET /projects answers 200 but without the project
 */
const ok = 'ok', no = '403', un = '401', hid = 'hid';
type Outcome = typeof ok | typeof no | typeof un | typeof hid;

const OPERATIONS = [
  'GET /projects',
  'GET /projects/:id',
  'PATCH /projects/:id',
  'PATCH /projects/:id ownerId',
  'DELETE /projects/:id',
  'DELETE /projects/:id/members/:userId',
  'POST /projects',
  'GET /projects/:id/grants',
  'POST /projects/:id/grants',
  'DELETE /projects/:id/grants/:grantId',
  'GET /grants/by-user/:userId',
  'GET /audit-log',
] as const;

const CALLERS = [
  'anonymous', 'none-role, no grant', 'CEO', 'department manager', 'engineer', 'public-project reader',
  'user grant use', 'user grant edit', 'user grant full',
  'group grant use', 'group grant edit', 'group grant full',
  'department grant use', 'department grant edit', 'department grant full',
  'owner (role none)', 'admin', 'superadmin',
] as const;
type CallerKind = (typeof CALLERS)[number];

// prettier-ignore
const MATRIX: Record<CallerKind, Outcome[]> = {
  //                          list get  patch owner del  member create grants grant+ grant- byUser audit
  'anonymous':               [un,  un,  un,   un,   un,  un,    un,    un,    un,    un,    un,    un],
  'none-role, no grant':     [hid, no,  no,   no,   no,  no,    no,    no,    no,    no,    no,    no],
  'CEO':                     [hid, no,  no,   no,   no,  no,    no,    no,    no,    no,    no,    no],
  'department manager':      [hid, no,  no,   no,   no,  no,    no,    no,    no,    no,    no,    no],
  'engineer':                [hid, no,  no,   no,   no,  no,    no,    no,    no,    no,    no,    no],
  'public-project reader':   [ok,  ok,  no,   no,   no,  no,    no,    ok,    no,    no,    no,    no],
  'user grant use':          [ok,  ok,  no,   no,   no,  no,    no,    ok,    no,    no,    no,    no],
  'user grant edit':         [ok,  ok,  ok,   no,   no,  ok,    no,    ok,    no,    no,    no,    no],
  'user grant full':         [ok,  ok,  ok,   ok,   ok,  ok,    no,    ok,    ok,    ok,    no,    no],
  'group grant use':         [ok,  ok,  no,   no,   no,  no,    no,    ok,    no,    no,    no,    no],
  'group grant edit':        [ok,  ok,  ok,   no,   no,  ok,    no,    ok,    no,    no,    no,    no],
  'group grant full':        [ok,  ok,  ok,   ok,   ok,  ok,    no,    ok,    ok,    ok,    no,    no],
  'department grant use':    [ok,  ok,  no,   no,   no,  no,    no,    ok,    no,    no,    no,    no],
  'department grant edit':   [ok,  ok,  ok,   no,   no,  ok,    no,    ok,    no,    no,    no,    no],
  'department grant full':   [ok,  ok,  ok,   ok,   ok,  ok,    no,    ok,    ok,    ok,    no,    no],
  'owner (role none)':       [ok,  ok,  ok,   ok,   ok,  ok,    no,    ok,    ok,    ok,    no,    no],
  'admin':                   [ok,  ok,  ok,   ok,   ok,  ok,    ok,    ok,    ok,    ok,    ok,    ok],
  'superadmin':              [ok,  ok,  ok,   ok,   ok,  ok,    ok,    ok,    ok,    ok,    ok,    ok],
};

let t: TestApp;
let f: ReturnType<typeof factories>;

beforeAll(async () => {
  t = await createTestApp();
  f = factories(t.orm, t.services);
});
afterAll(async () => t?.close());

/** Everything one cell needs: a project, the caller's relation to it, and things to act on. */
interface World {
  token?: string;
  project: Project;
  member: User; // on the member list, with a `use` grant
  memberGrantId: string;
  newOwner: User; // an admin, a valid transfer target
  grantTarget: User; // a user without grants
}

async function buildWorld(kind: CallerKind): Promise<World> {
  const owner = await f.makeUser({ platformRole: 'admin' });
  const dept = await f.makeDepartment();
  let caller: User | undefined;
  let projectOwner: User = owner;
  if (kind === 'owner (role none)') projectOwner = caller = await f.makeUser();
  const project = await f.makeProject({ owner: projectOwner, isPrivate: kind !== 'public-project reader' });
  const member = await f.makeUser({ department: dept });
  const memberGrant = await f.makeGrant({ project, user: member, tier: 'use' });

  const grantMatch = /^(user|group|department) grant (use|edit|full)$/.exec(kind);
  if (grantMatch) {
    const [, via, tier] = grantMatch as unknown as [string, 'user' | 'group' | 'department', Tier];
    caller = await f.makeUser({ department: dept });
    if (via === 'user') await f.makeGrant({ project, user: caller, tier });
    if (via === 'group') await f.makeGrant({ project, group: await f.makeGroup({ department: dept, members: [caller] }), tier });
    if (via === 'department') await f.makeGrant({ project, department: dept, tier });
  }
  switch (kind) {
    case 'none-role, no grant':
    case 'public-project reader':
      caller = await f.makeUser({ department: dept });
      break;
    case 'CEO':
      caller = await f.ceo();
      break;
    case 'department manager':
      // manages the very department the project's member sits in, still no project access
      caller = await f.makeUser({ orgPosition: 'manager', department: dept });
      break;
    case 'engineer':
      caller = await f.makeUser({ platformRole: 'engineer' });
      break;
    case 'admin':
      caller = await f.makeUser({ platformRole: 'admin' });
      break;
    case 'superadmin':
      caller = await f.superadmin();
      break;
    default:
      break;
  }
  const token = caller ? t.services.auth.signAccess(caller.id) : undefined;
  return { token, project, member, memberGrantId: memberGrant.id, newOwner: await f.makeUser({ platformRole: 'admin' }), grantTarget: await f.makeUser() };
}

type Call = (w: World, call: (method: string, path: string, body?: unknown) => Promise<ApiResponse>) => Promise<ApiResponse>;
const CALLS: Record<(typeof OPERATIONS)[number], Call> = {
  'GET /projects': (_w, c) => c('GET', '/api/projects'),
  'GET /projects/:id': (w, c) => c('GET', `/api/projects/${w.project.id}`),
  'PATCH /projects/:id': (w, c) => c('PATCH', `/api/projects/${w.project.id}`, { name: 'Renamed', settings: { topK: 4 } }),
  'PATCH /projects/:id ownerId': (w, c) => c('PATCH', `/api/projects/${w.project.id}`, { ownerId: w.newOwner.id }),
  'DELETE /projects/:id': (w, c) => c('DELETE', `/api/projects/${w.project.id}`),
  'DELETE /projects/:id/members/:userId': (w, c) => c('DELETE', `/api/projects/${w.project.id}/members/${w.member.id}`),
  'POST /projects': (_w, c) => c('POST', '/api/projects', { name: 'New project' }),
  'GET /projects/:id/grants': (w, c) => c('GET', `/api/projects/${w.project.id}/grants`),
  'POST /projects/:id/grants': (w, c) => c('POST', `/api/projects/${w.project.id}/grants`, { targetType: 'user', targetId: w.grantTarget.id, tier: 'use' }),
  'DELETE /projects/:id/grants/:grantId': (w, c) => c('DELETE', `/api/projects/${w.project.id}/grants/${w.memberGrantId}`),
  'GET /grants/by-user/:userId': (w, c) => c('GET', `/api/grants/by-user/${w.member.id}`),
  'GET /audit-log': (w, c) => c('GET', `/api/audit-log?projectId=${w.project.id}`),
};

function outcome(op: (typeof OPERATIONS)[number], res: ApiResponse, w: World): string {
  if (res.status === 401) return un;
  if (res.status === 403) return no;
  if (res.status >= 200 && res.status < 300) {
    if (op === 'GET /projects') return res.body.projects.some((p: { id: string }) => p.id === w.project.id) ? ok : hid;
    return ok;
  }
  return `unexpected ${res.status} ${JSON.stringify(res.body)}`;
}

const cells = CALLERS.flatMap((kind) => OPERATIONS.map((op, i) => [kind, op, MATRIX[kind][i]] as const));

describe('authorization matrix', () => {
  it('covers every caller kind and every operation', () => {
    for (const kind of CALLERS) expect(MATRIX[kind]).toHaveLength(OPERATIONS.length);
    expect(cells).toHaveLength(CALLERS.length * OPERATIONS.length);
  });

  it.each(cells)('%s × %s → %s', async (kind, op, expected) => {
    const w = await buildWorld(kind);
    const res = await CALLS[op](w, (method, path, body) => api(t.baseUrl, method, path, { token: w.token, body }));
    expect(outcome(op, res, w)).toBe(expected);
  });
});
