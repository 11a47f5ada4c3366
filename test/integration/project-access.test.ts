import fc from 'fast-check';
import { type Actor, actorFromRow } from '../../src/access/actor';
import { accessToProjects, listAccessibleProjects } from '../../src/access/project-access.sql';
import { keyActor } from '../../src/access/keys';
import { accessTo, GrantFacts, resolveAccess } from '../../src/access/resolver';
import { Project, Tier, TIERS, User } from '../../src/entities';
import { createTestApp, TestApp } from '../support/test-app';
import { client } from '../support/http';
import { factories } from '../support/factories';
import { projectFixtures } from '../support/project-fixtures';

/**
 * The list's SQL rule (access/project-access.sql.ts) and the single-project function
 * (resolveAccess) must give every caller the same tier and source on every project.
 */
let t: TestApp;
let f: ReturnType<typeof factories>;
let fx: ReturnType<typeof projectFixtures>;

beforeAll(async () => {
  t = await createTestApp();
  f = factories(t.orm, t.services);
  fx = projectFixtures(t.orm);
});
afterAll(async () => t?.close());

const em = () => t.orm.em.fork();
/** The entity as the row the auth path reads, made an Actor by the one mapper. */
const asActor = (u: User): Actor =>
  actorFromRow({
    id: u.id,
    email: u.email,
    name: u.name,
    platform_role: u.platformRole,
    org_position: u.orgPosition,
    department_id: u.department?.id ?? null,
    status: u.status,
    avatar_color: u.avatarColor,
    avatar_url: u.avatarUrl ?? null,
    last_login_at: u.lastLoginAt ?? null,
    created_at: u.createdAt,
  });

async function sqlAccess(u: User | Actor, projectId: string) {
  const actor = u instanceof User ? asActor(u) : u;
  return (await accessToProjects(em(), actor, [projectId])).get(projectId) ?? null;
}
async function functionAccess(u: User | Actor, projectId: string) {
  const e = em();
  return accessTo(e, u instanceof User ? asActor(u) : u, await e.findOneOrFail(Project, { id: projectId }));
}

describe('the SQL rule agrees with resolveAccess on every row of the priority list', () => {
  type Given = {
    role?: 'none' | 'admin' | 'engineer';
    superadmin?: boolean;
    owner?: boolean;
    isPrivate?: boolean;
    user?: Tier;
    groups?: Tier[];
    department?: Tier;
    otherGroup?: Tier;
    otherDepartment?: Tier;
  };
  it.each<[string, Given, ReturnType<typeof resolveAccess>]>([
    ['1 superadmin', { superadmin: true }, { tier: 'full', source: 'platform' }],
    ['2 admin', { role: 'admin', user: 'use' }, { tier: 'full', source: 'platform' }],
    ['3 owner', { owner: true, user: 'use', groups: ['edit'] }, { tier: 'full', source: 'owner' }],
    [
      '4 a direct user grant narrows a broader group grant',
      { user: 'use', groups: ['full'], department: 'full' },
      { tier: 'use', source: 'user' },
    ],
    ['5 the highest of several group grants', { groups: ['use', 'full', 'edit'], department: 'use' }, { tier: 'full', source: 'group' }],
    ['6 department grant', { department: 'edit', isPrivate: false }, { tier: 'edit', source: 'department' }],
    ['7 public', { isPrivate: false }, { tier: 'use', source: 'public' }],
    ['none: grants to other groups and departments do not count', { otherGroup: 'full', otherDepartment: 'full' }, null],
    ['engineers get nothing from their role', { role: 'engineer' }, null],
    ['engineers get what their grants give', { role: 'engineer', department: 'use' }, { tier: 'use', source: 'department' }],
  ])('%s', async (_label, g, expected) => {
    const dept = await f.makeDepartment();
    const me = g.superadmin ? await f.superadmin() : await f.makeUser({ platformRole: g.role ?? 'none', department: dept });
    const owner = g.owner ? me : await f.makeUser({ platformRole: 'admin' });
    const p = await f.makeProject({ owner, isPrivate: g.isPrivate ?? true });
    if (g.user) await f.makeGrant({ project: p, user: me, tier: g.user });
    for (const tier of g.groups ?? []) await f.makeGrant({ project: p, group: await f.makeGroup({ members: [me] }), tier });
    if (g.department) await f.makeGrant({ project: p, department: dept, tier: g.department });
    if (g.otherGroup) await f.makeGrant({ project: p, group: await f.makeGroup({ members: [owner] }), tier: g.otherGroup });
    if (g.otherDepartment) await f.makeGrant({ project: p, department: await f.makeDepartment(), tier: g.otherDepartment });

    expect(await functionAccess(me, p.id)).toEqual(expected);
    expect(await sqlAccess(me, p.id)).toEqual(expected);
    const listed = (await listAccessibleProjects(em(), asActor(me))).find((r) => r.id === p.id);
    expect(listed ? { tier: listed.access_tier, source: listed.access_source } : null).toEqual(expected);
  });
});

describe('property: any mix of ownership, visibility and grants', () => {
  it('gives the same tier and source through SQL, through accessTo, and by the rule on the known facts', async () => {
    // five callers with different roles, departments and group memberships
    const d1 = await f.makeDepartment();
    const d2 = await f.makeDepartment();
    const callers = [
      await f.makeUser({ department: d1 }),
      await f.makeUser(),
      await f.makeUser({ platformRole: 'engineer', department: d1 }),
      await f.makeUser({ platformRole: 'admin', department: d2 }),
      await f.superadmin(),
    ];
    const groups = [
      await f.makeGroup({ department: d1, members: [callers[0], callers[3]] }),
      await f.makeGroup({ department: d1, members: [callers[0], callers[4]] }),
      await f.makeGroup({ department: d2, members: [callers[1]] }),
      await f.makeGroup({ department: d2, members: [] }),
    ];
    const departments = [d1, d2];
    const outsider = await f.makeUser({ platformRole: 'admin' });
    const memberOf = (c: number, g: number) => [[0, 3], [0, 4], [1], []][g].includes(c);
    const deptOf = (c: number) => [0, null, 0, 1, null][c];

    const tier = fc.constantFrom(...TIERS);
    const scenario = fc.record({
      isPrivate: fc.boolean(),
      owner: fc.integer({ min: -1, max: callers.length - 1 }), // -1: someone else
      userGrants: fc.array(fc.option(tier, { nil: null }), { minLength: callers.length, maxLength: callers.length }),
      groupGrants: fc.array(fc.option(tier, { nil: null }), { minLength: groups.length, maxLength: groups.length }),
      departmentGrants: fc.array(fc.option(tier, { nil: null }), { minLength: 2, maxLength: 2 }),
      // issue 38: the caller may come with a key (capped tier, limited projects, platform or not)
      key: fc.option(fc.record({ tier, platform: fc.boolean(), projects: fc.constantFrom('all', 'this', 'other', 'none') }), { nil: null }),
    });

    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const p = await f.makeProject({ owner: s.owner >= 0 ? callers[s.owner] : outsider, isPrivate: s.isPrivate });
        for (const [i, g] of s.userGrants.entries()) if (g) await f.makeGrant({ project: p, user: callers[i], tier: g });
        for (const [i, g] of s.groupGrants.entries()) if (g) await f.makeGrant({ project: p, group: groups[i], tier: g });
        for (const [i, g] of s.departmentGrants.entries()) if (g) await f.makeGrant({ project: p, department: departments[i], tier: g });
        for (const [c, caller] of callers.entries()) {
          const facts: GrantFacts = {
            userGrant: s.userGrants[c],
            groupGrants: s.groupGrants.flatMap((g, i) => (g && memberOf(c, i) ? [g] : [])),
            departmentGrant: deptOf(c) === null ? null : s.departmentGrants[deptOf(c)!],
          };
          const k = s.key;
          const projectIds = { all: null, this: [p.id], other: [outsider.id], none: [] };
          const actor = k
            ? keyActor(asActor(caller), {
                id: 'k',
                tier: k.tier,
                platform: k.platform,
                projectIds: projectIds[k.projects],
              })
            : asActor(caller);
          const byRule = resolveAccess(
            actor,
            { id: p.id, ownerId: s.owner >= 0 ? callers[s.owner].id : outsider.id, isPrivate: s.isPrivate },
            facts,
          );
          expect(await sqlAccess(actor, p.id)).toEqual(byRule);
          expect(await functionAccess(actor, p.id)).toEqual(byRule);
        }
      }),
      { numRuns: 60, seed: 20261122 },
    );
  });
});

describe('GET /api/projects runs a constant number of queries', () => {
  /** A caller who sees `n` projects: a quarter each by user, group, department grant and public. */
  async function callerSeeing(n: number) {
    const dept = await f.makeDepartment();
    const me = await f.makeUser({ department: dept });
    const group = await f.makeGroup({ department: dept, members: [me] });
    const owner = await f.makeUser({ platformRole: 'admin' });
    const colleague = await f.makeUser();
    for (let i = 0; i < n; i++) {
      const p = await f.makeProject({ owner, isPrivate: i % 4 !== 3 });
      if (i % 4 === 0) await f.makeGrant({ project: p, user: me, tier: 'edit' });
      if (i % 4 === 1) await f.makeGrant({ project: p, group, tier: 'use' });
      if (i % 4 === 2) await f.makeGrant({ project: p, department: dept, tier: 'full' });
      await f.makeGrant({ project: p, user: colleague, tier: 'use' }); // every project has a member
      if (i % 10 === 0) {
        await fx.addDocument(p.id);
        await fx.addConversation(p.id, me.id);
      }
    }
    return me;
  }

  it('for 5 and for 100 visible projects', async () => {
    await fx.exec(`delete from projects where is_private = false`); // earlier tests' public projects
    const small = await callerSeeing(5);
    const smallSeen = (await client(t.baseUrl, small.token).get('/api/projects')).body.projects.length;
    const a = await fx.countQueries(() => client(t.baseUrl, small.token).get('/api/projects'));
    await fx.exec(`delete from projects where is_private = false`);
    const large = await callerSeeing(100);
    const b = await fx.countQueries(() => client(t.baseUrl, large.token).get('/api/projects'));
    expect(smallSeen).toBe(5);
    expect(b.result.body.projects).toHaveLength(100);
    expect(b.result.body.projects.every((p: any) => p.members.length >= 1)).toBe(true);
    expect(b.result.body.projects.filter((p: any) => p._count.documents === 1)).toHaveLength(10);
    // one query lists the projects with access, members and counts (authentication reads the
    // caller through its own prepared statement, outside the ORM counted here)
    expect(a.queries).toBe(1);
    expect(b.queries).toBe(a.queries);
  });
});
