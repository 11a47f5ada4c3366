import type { Project, Tier, User } from '../../src/entities';
import { createTestApp, TestApp } from '../support/test-app';
import { api, ApiResponse } from '../support/http';
import { factories } from '../support/factories';
import { gql } from '../support/graphql';

/**
 * Who may do what — the spec's "Role gates" and "Project tiers" (and DESIGN §3) as one table: the
 * project tiers, grants, the audit log, and the platform-role gates of users, departments, groups and
 * providers. Each row is a kind of caller, each column an operation, each cell the outcome, which
 * REST and GraphQL must both give: every cell runs once per transport, each against a world built
 * fresh for it (so deletes cannot leak).
 *
 *   ok     2xx                      403  refused (authenticated, not allowed)
 *   401    not authenticated        hid  GET /projects answers 200 but without the project
 */
const ok = 'ok',
  no = '403',
  un = '401',
  hid = 'hid';
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
  'GET /users',
  'GET /departments',
  'GET /groups',
  'GET /providers/admin',
] as const;

const CALLERS = [
  'anonymous',
  'none-role, no grant',
  'CEO',
  'department manager',
  'engineer',
  'public-project reader',
  'user grant use',
  'user grant edit',
  'user grant full',
  'group grant use',
  'group grant edit',
  'group grant full',
  'department grant use',
  'department grant edit',
  'department grant full',
  'owner (role none)',
  'admin',
  'superadmin',
] as const;
type CallerKind = (typeof CALLERS)[number];

// prettier-ignore
const MATRIX: Record<CallerKind, Outcome[]> = {
  //                          list get  patch owner del  member create grants grant+ grant- byUser audit users depts groups provs
  'anonymous':               [un,  un,  un,   un,   un,  un,    un,    un,    un,    un,    un,    un, un,    un,    un,    un],
  'none-role, no grant':     [hid, no,  no,   no,   no,  no,    no,    no,    no,    no,    no,    no, no,    no,    no,    no],
  'CEO':                     [hid, no,  no,   no,   no,  no,    no,    no,    no,    no,    no,    no, no,    ok,    ok,    no],
  'department manager':      [hid, no,  no,   no,   no,  no,    no,    no,    no,    no,    no,    no, no,    ok,    ok,    no],
  'engineer':                [hid, no,  no,   no,   no,  no,    no,    no,    no,    no,    no,    no, no,    no,    no,    ok],
  'public-project reader':   [ok,  ok,  no,   no,   no,  no,    no,    ok,    no,    no,    no,    no, no,    no,    no,    no],
  'user grant use':          [ok,  ok,  no,   no,   no,  no,    no,    ok,    no,    no,    no,    no, no,    no,    no,    no],
  'user grant edit':         [ok,  ok,  ok,   no,   no,  ok,    no,    ok,    no,    no,    no,    no, no,    no,    no,    no],
  'user grant full':         [ok,  ok,  ok,   ok,   ok,  ok,    no,    ok,    ok,    ok,    no,    no, no,    no,    no,    no],
  'group grant use':         [ok,  ok,  no,   no,   no,  no,    no,    ok,    no,    no,    no,    no, no,    no,    no,    no],
  'group grant edit':        [ok,  ok,  ok,   no,   no,  ok,    no,    ok,    no,    no,    no,    no, no,    no,    no,    no],
  'group grant full':        [ok,  ok,  ok,   ok,   ok,  ok,    no,    ok,    ok,    ok,    no,    no, no,    no,    no,    no],
  'department grant use':    [ok,  ok,  no,   no,   no,  no,    no,    ok,    no,    no,    no,    no, no,    no,    no,    no],
  'department grant edit':   [ok,  ok,  ok,   no,   no,  ok,    no,    ok,    no,    no,    no,    no, no,    no,    no,    no],
  'department grant full':   [ok,  ok,  ok,   ok,   ok,  ok,    no,    ok,    ok,    ok,    no,    no, no,    no,    no,    no],
  'owner (role none)':       [ok,  ok,  ok,   ok,   ok,  ok,    no,    ok,    ok,    ok,    no,    no, no,    no,    no,    no],
  'admin':                   [ok,  ok,  ok,   ok,   ok,  ok,    ok,    ok,    ok,    ok,    ok,    ok, ok,    ok,    ok,    no],
  'superadmin':              [ok,  ok,  ok,   ok,   ok,  ok,    ok,    ok,    ok,    ok,    ok,    ok, ok,    ok,    ok,    ok],
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
  const token = caller ? t.services.tokens.signAccess(caller.id) : undefined;
  return {
    token,
    project,
    member,
    memberGrantId: memberGrant.id,
    newOwner: await f.makeUser({ platformRole: 'admin' }),
    grantTarget: await f.makeUser(),
  };
}

type Call = (w: World, call: (method: string, path: string, body?: unknown) => Promise<ApiResponse>) => Promise<ApiResponse>;
const REST: Record<(typeof OPERATIONS)[number], Call> = {
  'GET /projects': (_w, c) => c('GET', '/api/projects'),
  'GET /projects/:id': (w, c) => c('GET', `/api/projects/${w.project.id}`),
  'PATCH /projects/:id': (w, c) => c('PATCH', `/api/projects/${w.project.id}`, { name: 'Renamed', settings: { topK: 4 } }),
  'PATCH /projects/:id ownerId': (w, c) => c('PATCH', `/api/projects/${w.project.id}`, { ownerId: w.newOwner.id }),
  'DELETE /projects/:id': (w, c) => c('DELETE', `/api/projects/${w.project.id}`),
  'DELETE /projects/:id/members/:userId': (w, c) => c('DELETE', `/api/projects/${w.project.id}/members/${w.member.id}`),
  'POST /projects': (_w, c) => c('POST', '/api/projects', { name: 'New project' }),
  'GET /projects/:id/grants': (w, c) => c('GET', `/api/projects/${w.project.id}/grants`),
  'POST /projects/:id/grants': (w, c) =>
    c('POST', `/api/projects/${w.project.id}/grants`, { targetType: 'user', targetId: w.grantTarget.id, tier: 'use' }),
  'DELETE /projects/:id/grants/:grantId': (w, c) => c('DELETE', `/api/projects/${w.project.id}/grants/${w.memberGrantId}`),
  'GET /grants/by-user/:userId': (w, c) => c('GET', `/api/grants/by-user/${w.member.id}`),
  'GET /audit-log': (w, c) => c('GET', `/api/audit-log?projectId=${w.project.id}`),
  'GET /users': (_w, c) => c('GET', '/api/users'),
  'GET /departments': (_w, c) => c('GET', '/api/departments'),
  'GET /groups': (_w, c) => c('GET', '/api/groups'),
  'GET /providers/admin': (_w, c) => c('GET', '/api/providers/admin'),
};

/** The same operations in GraphQL: the document and its variables. */
const GRAPHQL: Record<(typeof OPERATIONS)[number], (w: World) => [string, Record<string, unknown>?]> = {
  'GET /projects': () => ['{ projects(limit: 200) { items { id } } }'],
  'GET /projects/:id': (w) => ['query($id: ID!) { project(id: $id) { id } }', { id: w.project.id }],
  'PATCH /projects/:id': (w) => [
    'mutation($id: ID!) { updateProject(id: $id, input: { name: "Renamed", settings: { topK: 4 } }) { id } }',
    { id: w.project.id },
  ],
  'PATCH /projects/:id ownerId': (w) => [
    'mutation($id: ID!, $o: ID!) { updateProject(id: $id, input: { ownerId: $o }) { id } }',
    { id: w.project.id, o: w.newOwner.id },
  ],
  'DELETE /projects/:id': (w) => ['mutation($id: ID!) { deleteProject(id: $id) { id } }', { id: w.project.id }],
  'DELETE /projects/:id/members/:userId': (w) => [
    'mutation($p: ID!, $u: ID!) { removeProjectMember(projectId: $p, userId: $u) { userId } }',
    { p: w.project.id, u: w.member.id },
  ],
  'POST /projects': () => ['mutation { createProject(input: { name: "New project" }) { id } }'],
  'GET /projects/:id/grants': (w) => ['query($p: ID!) { projectGrants(projectId: $p) { id } }', { p: w.project.id }],
  'POST /projects/:id/grants': (w) => [
    'mutation($p: ID!, $t: ID!) { upsertGrant(projectId: $p, input: { targetType: "user", targetId: $t, tier: "use" }) { action } }',
    { p: w.project.id, t: w.grantTarget.id },
  ],
  'DELETE /projects/:id/grants/:grantId': (w) => [
    'mutation($p: ID!, $g: ID!) { deleteGrant(projectId: $p, grantId: $g) { id } }',
    { p: w.project.id, g: w.memberGrantId },
  ],
  'GET /grants/by-user/:userId': (w) => ['query($u: ID!) { grantsByUser(userId: $u) { direct { grantId } } }', { u: w.member.id }],
  'GET /audit-log': (w) => ['query($p: ID) { auditLog(filter: { projectId: $p }) { total } }', { p: w.project.id }],
  'GET /users': () => ['{ users { total } }'],
  'GET /departments': () => ['{ departments { total } }'],
  'GET /groups': () => ['{ groups { total } }'],
  'GET /providers/admin': () => ['{ adminProviders { id } }'],
};

/** A GraphQL answer in REST's terms: the status its error code stands for, the data as the body. */
async function viaGraphql(op: (typeof OPERATIONS)[number], w: World): Promise<ApiResponse> {
  const [query, variables] = GRAPHQL[op](w);
  const r = await gql(t.baseUrl, query, { token: w.token, variables });
  const code = r.errors?.[0]?.extensions?.code;
  const status = !r.errors ? 200 : code === 'unauthorized' ? 401 : code === 'forbidden' || code === 'forbidden_role' ? 403 : 500;
  const body = op === 'GET /projects' && r.data ? { projects: r.data.projects.items } : r.body;
  return { ...r, status, body };
}

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
    const res = await REST[op](w, (method, path, body) => api(t.baseUrl, method, path, { token: w.token, body }));
    expect({ rest: outcome(op, res, w) }).toEqual({ rest: expected });
    const g = await buildWorld(kind);
    expect({ graphql: outcome(op, await viaGraphql(op, g), g) }).toEqual({ graphql: expected });
  });
});
