import type { Actor } from '../../src/access/actor';
import { capabilitiesOf, type DepartmentScope } from '../../src/access/capabilities';
import { gates } from '../../src/access/gates';
import { keyActor } from '../../src/access/keys';
import {
  checkConversationAccess,
  checkDepartmentAccess,
  checkGroupAccess,
  checkUserAccess,
  conversationProjectsToCheck,
  departmentListScope,
  groupReaderVerdict,
} from '../../src/access/read-rules';
import type { Access } from '../../src/access/resolver';
import { COMPLETABLE_VIEWS, granterView, requireCompletableView } from '../../src/access/view-rules';
import {
  requireAccountEditor,
  requireAnswerMessage,
  requireConversationAuthor,
  requireCreatableRole,
  requireDeactivatable,
  requireDeletable,
  requireOwnerTransfer,
  requirePlatformRoleChange,
  requireReplaceableAnswer,
} from '../../src/access/write-rules';
import type { OrgPosition, PlatformRole } from '../../src/entities/base';
import { AppError, ForbiddenError } from '../../src/errors';

/** One test per rule in src/access/ that is not a plain role gate or the tier resolver (those have their own tests). */
const D1 = '11111111-1111-4111-8111-111111111111';
const D2 = '22222222-2222-4222-8222-222222222222';
const ME = '33333333-3333-4333-8333-333333333333';
const OTHER = '44444444-4444-4444-8444-444444444444';
const P1 = '55555555-5555-4555-8555-555555555555';
const P2 = '66666666-6666-4666-8666-666666666666';

const actor = (platformRole: PlatformRole = 'none', orgPosition: OrgPosition = 'member', departmentId: string | null = null): Actor => ({
  id: ME,
  email: 'me@example.com',
  name: 'Me',
  platformRole,
  orgPosition,
  departmentId,
  status: 'active',
  avatarColor: '#336699',
  avatarUrl: null,
  lastLoginAt: null,
  createdAt: new Date(0),
});
const admin = actor('admin');
const superadmin = actor('superadmin');
const ceo = actor('none', 'ceo');
const manager = actor('none', 'manager', D1);
const member = actor('none', 'member', D1);
const engineer = actor('engineer');

/** A verdict map as `code` strings ('ok' for allowed) in id order. */
const codes = (m: Map<string, unknown>): Record<string, string> =>
  Object.fromEntries([...m].map(([id, v]) => [id, v instanceof AppError ? v.code + ':' + v.kind : v === true ? 'ok' : 'allowed']));
const code = (fn: () => unknown): string => {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return e instanceof AppError ? `${e.code}:${e.kind}` : String(e);
  }
};

describe('read rules', () => {
  it('users: admins and the superadmin read anyone; everyone else only themselves', () => {
    for (const a of [admin, superadmin]) expect(codes(checkUserAccess(a, [ME, OTHER]))).toEqual({ [ME]: 'ok', [OTHER]: 'ok' });
    for (const a of [member, manager, ceo, engineer])
      expect(codes(checkUserAccess(a, [ME, OTHER]))).toEqual({ [ME]: 'ok', [OTHER]: 'forbidden:forbidden' });
  });

  it('departments: admin, superadmin and the CEO read any; a manager only their own; malformed ids are 404 first', () => {
    for (const a of [admin, superadmin, ceo]) expect(codes(checkDepartmentAccess(a, [D1, D2]))).toEqual({ [D1]: 'ok', [D2]: 'ok' });
    expect(codes(checkDepartmentAccess(manager, [D1, D2]))).toEqual({ [D1]: 'ok', [D2]: 'forbidden:forbidden' });
    for (const a of [member, engineer]) expect(codes(checkDepartmentAccess(a, [D1]))).toEqual({ [D1]: 'forbidden:forbidden' });
    expect(codes(checkDepartmentAccess(admin, ['nope']))).toEqual({ nope: 'not_found:not_found' });
  });

  it('"sees all" scoping of the department and group lists: null (all) for admin, superadmin, CEO; own department for a manager; refused otherwise', () => {
    for (const a of [admin, superadmin, ceo]) expect(departmentListScope(a)).toBeNull();
    expect(departmentListScope(manager)).toBe(D1);
    for (const a of [member, engineer]) expect(code(() => departmentListScope(a))).toBe('forbidden:forbidden');
  });

  it("groups: readers of the group's department; callers who read no group are refused before any group is loaded", () => {
    const groups = [
      { id: 'g1', departmentId: D1 },
      { id: 'g2', departmentId: D2 },
    ];
    for (const a of [admin, superadmin, ceo]) expect(codes(checkGroupAccess(a, groups))).toEqual({ g1: 'ok', g2: 'ok' });
    expect(codes(checkGroupAccess(manager, groups))).toEqual({ g1: 'ok', g2: 'forbidden:forbidden' });
    expect(groupReaderVerdict(manager)).toBe(true);
    for (const a of [member, engineer]) expect(groupReaderVerdict(a)).toBeInstanceOf(ForbiddenError);
  });

  it('conversations: staff read any; the author while the project allows them (else its error); anyone else 404', () => {
    const convs = [
      { id: 'mine', userId: ME, projectId: P1 },
      { id: 'mine-lost', userId: ME, projectId: P2 },
      { id: 'theirs', userId: OTHER, projectId: P1 },
      { id: 'orphan', userId: null, projectId: P1 },
    ];
    const access = new Map<string, Access | Error>([
      [P1, { tier: 'use', source: 'public' }],
      [P2, new ForbiddenError('forbidden', 'no access')],
    ]);
    expect(codes(checkConversationAccess(member, convs, access))).toEqual({
      mine: 'ok',
      'mine-lost': 'forbidden:forbidden',
      theirs: 'not_found:not_found',
      orphan: 'not_found:not_found',
    });
    expect(conversationProjectsToCheck(member, convs)).toEqual([P1, P2]);
    for (const a of [admin, superadmin]) {
      expect(codes(checkConversationAccess(a, convs, new Map()))).toEqual({ mine: 'ok', 'mine-lost': 'ok', theirs: 'ok', orphan: 'ok' });
      expect(conversationProjectsToCheck(a, convs)).toEqual([]);
    }
  });
});

describe('write rules', () => {
  it('only bootstrap creates the superadmin', () => {
    expect(code(() => requireCreatableRole('superadmin'))).toBe('forbidden_role:forbidden');
    for (const r of ['none', 'admin', 'engineer'] as const) expect(code(() => requireCreatableRole(r))).toBe('ok');
  });

  it("the superadmin's account is edited by the superadmin alone", () => {
    expect(code(() => requireAccountEditor(admin, { platformRole: 'superadmin' }))).toBe('forbidden:forbidden');
    expect(code(() => requireAccountEditor(superadmin, { platformRole: 'superadmin' }))).toBe('ok');
    expect(code(() => requireAccountEditor(admin, { platformRole: 'none' }))).toBe('ok');
  });

  it("platform-role edits: never to superadmin, never the superadmin's, and only by the superadmin", () => {
    expect(code(() => requirePlatformRoleChange(superadmin, { platformRole: 'none' }, 'superadmin'))).toBe('forbidden_role:forbidden');
    expect(code(() => requirePlatformRoleChange(superadmin, { platformRole: 'superadmin' }, 'admin'))).toBe('singleton_immutable:conflict');
    expect(code(() => requirePlatformRoleChange(admin, { platformRole: 'none' }, 'engineer'))).toBe('forbidden_role:forbidden');
    expect(code(() => requirePlatformRoleChange(admin, { platformRole: 'admin' }, 'engineer'))).toBe('forbidden_role:forbidden');
    expect(code(() => requirePlatformRoleChange(superadmin, { platformRole: 'none' }, 'admin'))).toBe('ok');
    expect(code(() => requirePlatformRoleChange(superadmin, { platformRole: 'admin' }, 'none'))).toBe('ok');
  });

  it('the superadmin cannot be deactivated or deleted; nobody deletes themselves', () => {
    expect(code(() => requireDeactivatable({ platformRole: 'superadmin' }))).toBe('forbidden:forbidden');
    expect(code(() => requireDeactivatable({ platformRole: 'admin' }))).toBe('ok');
    expect(code(() => requireDeletable(superadmin, { id: OTHER, platformRole: 'superadmin' }))).toBe('forbidden:forbidden');
    expect(code(() => requireDeletable(admin, { id: ME, platformRole: 'admin' }))).toBe('forbidden:forbidden');
    expect(code(() => requireDeletable(admin, { id: OTHER, platformRole: 'admin' }))).toBe('ok');
  });

  it('a conversation is changed (renamed, deleted, rated) by its author only; feedback is on answers only', () => {
    expect(code(() => requireConversationAuthor(actor(), { userId: actor().id }))).toBe('ok');
    expect(code(() => requireConversationAuthor(admin, { userId: OTHER }))).toBe('forbidden:forbidden');
    expect(code(() => requireConversationAuthor(superadmin, { userId: null }))).toBe('forbidden:forbidden');
    expect(code(() => requireAnswerMessage({ role: 'assistant' }))).toBe('ok');
    expect(code(() => requireAnswerMessage({ role: 'user' }))).toBe('validation_failed:validation');
  });

  it("regenerating replaces the last answer of the caller's own conversation in the project asked, nothing else", () => {
    const C = '77777777-7777-4777-8777-777777777777';
    const last = { role: 'assistant', conversationId: C, projectId: P1, userId: ME, isLast: true };
    const asked = { projectId: P1 };
    expect(requireReplaceableAnswer(member, asked, last)).toBe(C);
    expect(requireReplaceableAnswer(member, { projectId: P1, conversationId: C }, last)).toBe(C);
    // someone else's (staff included), another project's or conversation's, or no such message: the conversation's 404
    expect(code(() => requireReplaceableAnswer(admin, asked, { ...last, userId: OTHER }))).toBe('not_found:not_found');
    expect(code(() => requireReplaceableAnswer(member, asked, { ...last, userId: null }))).toBe('not_found:not_found');
    expect(code(() => requireReplaceableAnswer(member, { projectId: P2 }, last))).toBe('not_found:not_found');
    expect(code(() => requireReplaceableAnswer(member, { projectId: P1, conversationId: OTHER }, last))).toBe('not_found:not_found');
    expect(code(() => requireReplaceableAnswer(member, asked, null))).toBe('not_found:not_found');
    // a question is not an answer; an earlier answer is no longer replaceable
    expect(code(() => requireReplaceableAnswer(member, asked, { ...last, role: 'user' }))).toBe('validation_failed:validation');
    expect(code(() => requireReplaceableAnswer(member, asked, { ...last, isLast: false }))).toBe('not_last_answer:conflict');
  });

  it("transferring a project's ownership needs the full tier", () => {
    expect(code(() => requireOwnerTransfer({ tier: 'edit', source: 'user' }))).toBe('forbidden:forbidden');
    expect(code(() => requireOwnerTransfer({ tier: 'use', source: 'public' }))).toBe('forbidden:forbidden');
    expect(code(() => requireOwnerTransfer({ tier: 'full', source: 'group' }))).toBe('ok');
  });
});

describe('capabilities: what the server tells the app the caller may do', () => {
  const all: DepartmentScope = { all: true, departmentIds: [] };
  const own: DepartmentScope = { all: false, departmentIds: [D1] };
  const none: DepartmentScope = { all: false, departmentIds: [] };
  // one row per caller, as the spec's role gates read: [users, roles, projects, audit, feedback, providers, dept read, create/delete/add, dept edit, remove members, groups read, groups edit]
  const rows: Array<
    [
      string,
      Actor,
      boolean,
      boolean,
      boolean,
      boolean,
      boolean,
      boolean,
      DepartmentScope,
      boolean,
      DepartmentScope,
      DepartmentScope,
      DepartmentScope,
      DepartmentScope,
    ]
  > = [
    ['superadmin', superadmin, true, true, true, true, true, true, all, true, all, all, all, all],
    ['admin', admin, true, false, true, true, true, false, all, true, all, all, all, all],
    ['engineer', engineer, false, false, false, false, false, true, none, false, none, none, none, none],
    ['CEO', ceo, false, false, false, false, false, false, all, false, none, all, all, none],
    ['manager of D1', manager, false, false, false, false, false, false, own, false, own, own, own, own],
    ['member of D1', member, false, false, false, false, false, false, none, false, none, none, none, none],
    [
      'an admin through a key without platform',
      keyActor(admin, { id: 'k', tier: 'full', projectIds: null, platform: false }),
      false,
      false,
      false,
      false,
      false,
      false,
      none,
      false,
      none,
      none,
      none,
      none,
    ],
  ];
  it.each(rows)(
    '%s',
    (_, a, users, roles, projects, audit, feedback, providers, read, createDept, edit, remove, groupsRead, groupsEdit) => {
      expect(capabilitiesOf(a)).toEqual({
        manageUsers: users,
        changePlatformRoles: roles,
        createProjects: projects,
        readAuditLog: audit,
        listFeedback: feedback,
        manageProviders: providers,
        departments: { read, create: createDept, delete: createDept, addMembers: createDept, edit, removeMembers: remove },
        groups: { read: groupsRead, edit: groupsEdit },
      });
    },
  );

  it("each department scope says exactly what its gate decides, for the caller's department and another", () => {
    const passes = (gate: () => void) => code(gate) === 'ok';
    const allows = (s: DepartmentScope, d: string) => s.all || s.departmentIds.includes(d);
    for (const [, a] of rows) {
      const c = capabilitiesOf(a);
      for (const d of [D1, D2]) {
        expect(allows(c.departments.read, d)).toBe(passes(() => gates.requireDepartmentReader(a, d)));
        expect(allows(c.departments.edit, d)).toBe(passes(() => gates.requireDepartmentEditor(a, d)));
        expect(allows(c.departments.removeMembers, d)).toBe(passes(() => gates.requireDepartmentMemberRemover(a, d)));
        expect(allows(c.groups.read, d)).toBe(passes(() => gates.requireGroupReader(a, d)));
        expect(allows(c.groups.edit, d)).toBe(passes(() => gates.requireGroupEditor(a, d)));
      }
      expect(c.manageUsers).toBe(passes(() => gates.requirePlatformAdmin(a)));
      expect(c.manageProviders).toBe(passes(() => gates.requireProviderAdmin(a)));
      expect(c.changePlatformRoles).toBe(passes(() => requirePlatformRoleChange(a, { platformRole: 'none' }, 'engineer')));
    }
  });
});

describe('GraphQL view rules', () => {
  it('a partial view is completed only for types with a full view, and only when it carries an id', () => {
    expect([...COMPLETABLE_VIEWS].sort()).toEqual(['Department', 'Group', 'Project', 'Provider', 'User']);
    expect(code(() => requireCompletableView('User', 'status', ME))).toBe('ok');
    expect(code(() => requireCompletableView('Department', 'color', undefined))).toBe('forbidden:forbidden');
    expect(code(() => requireCompletableView('ProjectGrant', 'tier', 'x'))).toBe('forbidden:forbidden');
  });

  it("a grant's granter: in full to those who read users; as a member when on the visible list; else refused", async () => {
    const never = (): Promise<string[]> => Promise.reject(new Error('the member list is not needed'));
    await expect(granterView(admin, OTHER, never)).resolves.toBe('full');
    await expect(granterView(member, ME, never)).resolves.toBe('full');
    await expect(granterView(member, OTHER, () => Promise.resolve([OTHER]))).resolves.toBe('member');
    await expect(granterView(member, OTHER, () => Promise.resolve([ME]))).rejects.toBeInstanceOf(ForbiddenError);
  });
});
