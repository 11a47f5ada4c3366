import type { MikroORM } from '@mikro-orm/postgresql';
import bcrypt from 'bcrypt';
import { randomBytes } from 'node:crypto';
import {
  Department, Group, GroupMember, OrgPosition, PlatformRole, Project, ProjectGrant, ProjectMember, Tier, User,
} from '../../src/entities';
import type { Services } from '../../src/services';

export const DEFAULT_PASSWORD = 'correct-horse-battery';
let hashCache: string | null = null;
const defaultHash = (): string => (hashCache ??= bcrypt.hashSync(DEFAULT_PASSWORD, 4));
const uniq = () => randomBytes(4).toString('hex');

/**
 * Factories that build their own parents, so tests share no rows. Each writes straight to the
 * database (no service rules), which is what a test's "given" needs.
 */
export function factories(orm: MikroORM, services: Services) {
  const em = () => orm.em.fork();

  async function makeDepartment(over: Partial<{ name: string; color: string; description: string }> = {}): Promise<Department> {
    const e = em();
    const d = e.create(Department, { name: over.name ?? `Dept ${uniq()}`, color: over.color ?? '#123456', description: over.description ?? '' });
    await e.flush();
    return d;
  }

  async function makeUser(over: Partial<{
    email: string; name: string; platformRole: PlatformRole; orgPosition: OrgPosition;
    department: Department | null; status: 'active' | 'inactive'; password: string;
  }> = {}): Promise<User & { token: string }> {
    const e = em();
    const u = e.create(User, {
      email: over.email ?? `user-${uniq()}@example.com`,
      name: over.name ?? `User ${uniq()}`,
      passwordHash: over.password ? bcrypt.hashSync(over.password, 4) : defaultHash(),
      platformRole: over.platformRole ?? 'none',
      orgPosition: over.orgPosition ?? 'member',
      department: over.department ? e.getReference(Department, over.department.id) : null,
      avatarColor: '#abcdef',
      status: over.status ?? 'active',
    });
    await e.flush();
    return Object.assign(u, { token: services.auth.signAccess(u.id) });
  }

  /** The superadmin (created on first use; at most one exists). */
  async function superadmin(): Promise<User & { token: string }> {
    const e = em();
    const existing = await e.findOne(User, { platformRole: 'superadmin' });
    if (existing) return Object.assign(existing, { token: services.auth.signAccess(existing.id) });
    return makeUser({ platformRole: 'superadmin', email: `root-${uniq()}@example.com` });
  }

  /** The CEO (created on first use; at most one exists). */
  async function ceo(): Promise<User & { token: string }> {
    const e = em();
    const existing = await e.findOne(User, { orgPosition: 'ceo' });
    if (existing) return Object.assign(existing, { token: services.auth.signAccess(existing.id) });
    return makeUser({ orgPosition: 'ceo', email: `ceo-${uniq()}@example.com` });
  }

  async function makeGroup(over: Partial<{ name: string; department: Department; members: User[] }> = {}): Promise<Group> {
    const dept = over.department ?? (await makeDepartment());
    const e = em();
    const g = e.create(Group, { name: over.name ?? `Group ${uniq()}`, department: e.getReference(Department, dept.id) });
    for (const m of over.members ?? []) e.create(GroupMember, { group: g, user: e.getReference(User, m.id) });
    await e.flush();
    return g;
  }

  async function makeProject(over: Partial<{ name: string; owner: User; isPrivate: boolean; instructions: string; settings: Record<string, unknown> }> = {}): Promise<Project> {
    const owner = over.owner ?? (await makeUser({ platformRole: 'admin' }));
    const e = em();
    const p = e.create(Project, {
      name: over.name ?? `Project ${uniq()}`,
      owner: e.getReference(User, owner.id),
      createdBy: e.getReference(User, owner.id),
      isPrivate: over.isPrivate ?? true,
      instructions: over.instructions ?? '',
      settings: over.settings ?? {},
    });
    await e.flush();
    return p;
  }

  async function makeGrant(over: { project?: Project; user?: User; group?: Group; department?: Department; tier?: Tier; grantedBy?: User }): Promise<ProjectGrant> {
    const project = over.project ?? (await makeProject());
    const e = em();
    const g = e.create(ProjectGrant, {
      project: e.getReference(Project, project.id),
      user: over.user ? e.getReference(User, over.user.id) : null,
      group: over.group ? e.getReference(Group, over.group.id) : null,
      department: over.department ? e.getReference(Department, over.department.id) : null,
      tier: over.tier ?? 'use',
      grantedBy: over.grantedBy ? e.getReference(User, over.grantedBy.id) : null,
    });
    if (over.user) e.create(ProjectMember, { project: e.getReference(Project, project.id), user: e.getReference(User, over.user.id) });
    await e.flush();
    return g;
  }

  return { makeDepartment, makeUser, superadmin, ceo, makeGroup, makeProject, makeGrant, em };
}
