import fc from 'fast-check';
import { api } from '../support/http';
import { factories } from '../support/factories';
import { listRoutes } from '../support/routes';
import { APP_TABLES, projectFixtures } from '../support/project-fixtures';
import { createTestApp, TestApp } from '../support/test-app';

jest.setTimeout(300_000);

// Bounded so the suite stays fast; raise FUZZ_RUNS locally for a deeper search.
const RUNS = Number(process.env.FUZZ_RUNS ?? 250);

const FIELD_NAMES = [
  'email',
  'password',
  'name',
  'platformRole',
  'orgPosition',
  'departmentId',
  'status',
  'color',
  'description',
  'isPrivate',
  'instructions',
  'settings',
  'ownerId',
  'targetType',
  'targetId',
  'tier',
  'userIds',
  'replace',
  'slug',
  'type',
  'baseUrl',
  'apiKey',
  'models',
  'isDefault',
  'isEnabled',
  'model',
  'message',
  'conversationId',
  'modelId',
  'mode',
  'refreshToken',
  'search',
  'limit',
  'offset',
  'topK',
  'temperature',
  '__proto__',
  'constructor',
];

const weird = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    'null',
    'undefined',
    '../../etc/passwd',
    '%00',
    '💥',
    'a'.repeat(5000),
    '00000000-0000-0000-0000-000000000000',
    "' or 1=1 --",
    '{"a":1}',
  ),
  fc.uuid(),
);

const value = fc.oneof(
  { depthSize: 'small' },
  weird,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(weird, { maxLength: 3 }),
  fc.dictionary(fc.constantFrom(...FIELD_NAMES), weird, { maxKeys: 3 }),
);

const body = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELD_NAMES), value, { maxKeys: 6 }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constant('not json at all'),
);

let t: TestApp;
let tokens: Record<string, string | undefined>;
let ids: string[];

/** A fingerprint of every application table, to prove rejected requests change nothing. */
async function fingerprint(): Promise<string> {
  return projectFixtures(t.orm).fingerprint([...APP_TABLES, 'term_stats', 'project_index_stats']);
}

beforeAll(async () => {
  t = await createTestApp();
  const f = factories(t.orm, t.services);
  const root = await f.superadmin();
  const dept = await f.makeDepartment();
  const admin = await f.makeUser({ platformRole: 'admin' });
  const engineer = await f.makeUser({ platformRole: 'engineer' });
  const member = await f.makeUser({ department: dept });
  const group = await f.makeGroup({ department: dept, members: [member] });
  const project = await f.makeProject({ owner: admin });
  const grant = await f.makeGrant({ project, user: member, tier: 'edit' });
  tokens = {
    anonymous: undefined,
    member: member.token,
    engineer: engineer.token,
    admin: admin.token,
    superadmin: root.token,
    garbage: 'not-a-token',
  };
  ids = [root.id, dept.id, admin.id, member.id, group.id, project.id, grant.id];
});
afterAll(async () => t?.close());

it('no generated request to any REST endpoint gets a 5xx; every 4xx has the error body and changes nothing', async () => {
  const routes = listRoutes();
  expect(routes.length).toBeGreaterThan(10);
  const pathParam = fc.oneof(
    fc.constantFrom(...ids),
    weird.map((s) => encodeURIComponent(s).slice(0, 300) || 'x'),
    fc.constant('draft'),
  );
  const query = fc.dictionary(
    fc.constantFrom(
      'search',
      'limit',
      'offset',
      'platformRole',
      'orgPosition',
      'departmentId',
      'projectId',
      'actorId',
      'action',
      'from',
      'to',
    ),
    weird,
    { maxKeys: 3 },
  );

  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...routes),
      fc.constantFrom(...Object.keys(tokens)),
      fc.array(pathParam, { minLength: 3, maxLength: 3 }),
      query,
      body,
      async (route, who, params, q, b) => {
        let i = 0;
        const path = route.path.replace(/:[A-Za-z]+/g, () => params[i++ % params.length]);
        const qs = new URLSearchParams(q).toString();
        const before = await fingerprint();
        const rawBody = typeof b === 'string' ? b : JSON.stringify(b);
        const res = await api(t.baseUrl, route.method, path + (qs ? `?${qs}` : ''), {
          token: tokens[who],
          rawBody: route.method === 'GET' ? undefined : rawBody,
          headers: route.method === 'GET' ? {} : { 'content-type': 'application/json' },
        });
        if (res.status >= 500) throw new Error(`${route.method} ${path} as ${who} → ${res.status} ${res.text.slice(0, 300)}`);
        if (res.status >= 400) {
          expect(typeof res.body?.error).toBe('string');
          expect(res.text).not.toMatch(/\bat .*\.(js|ts):\d+/);
          const after = await fingerprint();
          if (after !== before) throw new Error(`${route.method} ${path} as ${who} → ${res.status} changed the database`);
        }
      },
    ),
    { numRuns: RUNS },
  );
});
