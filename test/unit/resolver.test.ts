import fc from 'fast-check';
import { resolveAccess, GrantFacts, TIER_RANK } from '../../src/access/resolver';
import { PLATFORM_ROLES, PlatformRole, TIERS } from '../../src/entities/base';
import { assertOneTarget, grantTarget } from '../../src/services/grants.service';
import { mergeSettings } from '../../src/services/projects.service';

const ME = 'me';
const none: GrantFacts = { userGrant: null, groupGrants: [], departmentGrant: null };
const actor = (platformRole: PlatformRole) => ({ id: ME, platformRole });
const project = (over: Partial<{ ownerId: string | null; isPrivate: boolean }> = {}) => ({
  ownerId: 'someone-else',
  isPrivate: true,
  ...over,
});

/** DESIGN §3, one row per line: first match wins. */
describe('resolveAccess: the priority list', () => {
  const everyGrant: GrantFacts = { userGrant: 'use', groupGrants: ['edit'], departmentGrant: 'use' };
  it.each<[string, PlatformRole, ReturnType<typeof project>, GrantFacts, ReturnType<typeof resolveAccess>]>([
    ['1 superadmin → full/platform, whatever grants say', 'superadmin', project(), everyGrant, { tier: 'full', source: 'platform' }],
    ['1 superadmin needs no grant at all', 'superadmin', project(), none, { tier: 'full', source: 'platform' }],
    ['2 admin → full/platform', 'admin', project(), none, { tier: 'full', source: 'platform' }],
    ['2 admin beats ownership (platform comes first)', 'admin', project({ ownerId: ME }), none, { tier: 'full', source: 'platform' }],
    [
      '3 owner → full/owner even with a narrower user grant',
      'none',
      project({ ownerId: ME }),
      everyGrant,
      { tier: 'full', source: 'owner' },
    ],
    ['4 direct user grant → its tier', 'none', project(), { ...none, userGrant: 'edit' }, { tier: 'edit', source: 'user' }],
    [
      '4 a direct grant narrows a broader group grant',
      'none',
      project(),
      { userGrant: 'use', groupGrants: ['full'], departmentGrant: 'full' },
      { tier: 'use', source: 'user' },
    ],
    [
      '5 the highest of several group grants',
      'none',
      project(),
      { ...none, groupGrants: ['use', 'full', 'edit'] },
      { tier: 'full', source: 'group' },
    ],
    [
      '5 group beats department even when narrower',
      'none',
      project(),
      { ...none, groupGrants: ['use'], departmentGrant: 'full' },
      { tier: 'use', source: 'group' },
    ],
    ['6 department grant → its tier', 'none', project(), { ...none, departmentGrant: 'edit' }, { tier: 'edit', source: 'department' }],
    [
      '6 a department grant beats public use',
      'none',
      project({ isPrivate: false }),
      { ...none, departmentGrant: 'full' },
      { tier: 'full', source: 'department' },
    ],
    ['7 non-private project → use/public', 'none', project({ isPrivate: false }), none, { tier: 'use', source: 'public' }],
    ['nothing applies → null', 'none', project(), none, null],
    ['engineers get nothing from their role', 'engineer', project(), none, null],
    ['engineers read public projects like anyone', 'engineer', project({ isPrivate: false }), none, { tier: 'use', source: 'public' }],
    ['engineers get what grants give', 'engineer', project(), { ...none, groupGrants: ['edit'] }, { tier: 'edit', source: 'group' }],
    ['an ownerless project has no owner row', 'none', project({ ownerId: null }), none, null],
  ])('%s', (_label, role, p, grants, expected) => {
    expect(resolveAccess(actor(role), p, grants)).toEqual(expected);
  });

  it('property: a grant can only raise access for callers below the platform rows', () => {
    const tier = fc.constantFrom(...TIERS);
    const facts = fc.record({
      userGrant: fc.option(tier, { nil: null }),
      groupGrants: fc.array(tier, { maxLength: 4 }),
      departmentGrant: fc.option(tier, { nil: null }),
    });
    fc.assert(
      fc.property(fc.constantFrom(...PLATFORM_ROLES), fc.boolean(), fc.boolean(), facts, (role, owner, isPrivate, g) => {
        const p = project({ ownerId: owner ? ME : 'x', isPrivate });
        const got = resolveAccess(actor(role), p, g);
        if (role === 'superadmin' || role === 'admin') return got?.source === 'platform' && got.tier === 'full';
        if (owner) return got?.source === 'owner';
        if (g.userGrant) return got?.tier === g.userGrant && got.source === 'user';
        if (g.groupGrants.length)
          return got?.source === 'group' && got.tier === g.groupGrants.reduce((a, b) => (TIER_RANK[b] > TIER_RANK[a] ? b : a));
        if (g.departmentGrant) return got?.tier === g.departmentGrant && got.source === 'department';
        return isPrivate ? got === null : got?.tier === 'use' && got.source === 'public';
      }),
    );
  });
});

describe('grant targets', () => {
  it('exactly one target is set for each target type', () => {
    expect(grantTarget('user', 'u')).toEqual({ userId: 'u', groupId: null, departmentId: null });
    expect(grantTarget('group', 'g')).toEqual({ userId: null, groupId: 'g', departmentId: null });
    expect(grantTarget('department', 'd')).toEqual({ userId: null, groupId: null, departmentId: 'd' });
  });

  it('refuses zero or two targets', () => {
    expect(() => assertOneTarget({ userId: null, groupId: null, departmentId: null })).toThrow(/exactly one/);
    expect(() => assertOneTarget({ userId: 'u', groupId: 'g', departmentId: null })).toThrow(/exactly one/);
  });
});

describe('settings merge', () => {
  it('keeps unspecified keys, sets given ones, removes nulls', () => {
    expect(mergeSettings({ model: 'a', topK: 3 }, { temperature: 1 })).toEqual({ model: 'a', topK: 3, temperature: 1 });
    expect(mergeSettings({ model: 'a', topK: 3 }, { model: null, topK: 7 })).toEqual({ topK: 7 });
    expect(mergeSettings({ model: 'a' }, undefined)).toEqual({ model: 'a' });
  });
});
