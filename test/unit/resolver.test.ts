import fc from 'fast-check';
import type { KeyScope } from '../../src/access/actor';
import { gates } from '../../src/access/gates';
import { keyActor, requireKeyManager, requireKeyOwnerOrAdmin } from '../../src/access/keys';
import { resolveAccess, GrantFacts, TIER_RANK } from '../../src/access/resolver';
import { ForbiddenError } from '../../src/errors';
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

/** Issue 38: a key's access is its owner's, capped by its tier and limited to its projects (src/access/keys.ts). */
describe('keys: what a request with a key may reach', () => {
  const owner = {
    id: ME,
    email: 'me@example.com',
    name: 'Me',
    platformRole: 'admin' as PlatformRole,
    orgPosition: 'ceo' as const,
    departmentId: 'dept',
    status: 'active' as const,
    avatarColor: '#000000',
    avatarUrl: null,
    lastLoginAt: null,
    createdAt: new Date(0),
  };
  const scope = (over: Partial<KeyScope> = {}): KeyScope => ({ id: 'k', tier: 'full', projectIds: null, platform: false, ...over });
  const P = { id: 'p1', ownerId: ME, isPrivate: true };
  it.each<[string, KeyScope, GrantFacts, typeof P, ReturnType<typeof resolveAccess>]>([
    ['an unscoped full key: the owner access', scope(), none, P, { tier: 'full', source: 'owner' }],
    ['the tier caps the owner access', scope({ tier: 'use' }), none, P, { tier: 'use', source: 'owner' }],
    [
      'the tier caps a grant',
      scope({ tier: 'edit' }),
      { ...none, userGrant: 'full' },
      { ...P, ownerId: 'x' },
      { tier: 'edit', source: 'user' },
    ],
    [
      'a tier above the grant gives no more than the grant',
      scope({ tier: 'full' }),
      { ...none, groupGrants: ['use'] },
      { ...P, ownerId: 'x' },
      { tier: 'use', source: 'group' },
    ],
    ['a project in projectIds', scope({ projectIds: ['p1'] }), none, P, { tier: 'full', source: 'owner' }],
    ['a project outside projectIds: nothing, even as owner', scope({ projectIds: ['p2'] }), none, P, null],
    ['an empty projectIds reaches nothing', scope({ projectIds: [] }), none, { ...P, isPrivate: false }, null],
    ['no access of the owner: none through the key', scope(), none, { ...P, ownerId: 'x' }, null],
  ])('%s', (_name, key, grants, p, expected) => {
    expect(resolveAccess(keyActor(owner, key), p, grants)).toEqual(expected);
  });

  it('without platform: true a key passes no platform-role or org-position gate; with it, the owner role applies', () => {
    const plain = keyActor(owner, scope());
    expect([plain.platformRole, plain.orgPosition, gates.isPlatformAdmin(plain), gates.isCeo(plain)]).toEqual([
      'none',
      'member',
      false,
      false,
    ]);
    expect(() => gates.requirePlatformAdmin(plain)).toThrow(ForbiddenError);
    // an admin's plain key gets platform access to nobody's project
    expect(resolveAccess(plain, { id: 'p', ownerId: 'x', isPrivate: true }, none)).toBeNull();
    const platform = keyActor(owner, scope({ platform: true }));
    expect([platform.platformRole, gates.isPlatformAdmin(platform)]).toEqual(['admin', true]);
    expect(
      resolveAccess(keyActor(owner, scope({ platform: true, tier: 'use' })), { id: 'p', ownerId: 'x', isPrivate: true }, none),
    ).toEqual({
      tier: 'use',
      source: 'platform',
    });
  });

  it('keys are managed by people; platform keys by admins', () => {
    expect(() => requireKeyManager(keyActor(owner, scope({ platform: true })))).toThrow(ForbiddenError);
    expect(() => requireKeyManager({ ...owner, platformRole: 'none' }, { platform: true })).toThrow(ForbiddenError);
    expect(() => requireKeyManager(owner, { platform: true })).not.toThrow();
    expect(() => requireKeyOwnerOrAdmin({ ...owner, platformRole: 'none' }, 'someone')).toThrow(ForbiddenError);
    expect(() => requireKeyOwnerOrAdmin(owner, 'someone')).not.toThrow();
  });
});
