import type { MikroORM } from '@mikro-orm/postgresql';
import bcrypt from 'bcrypt';
import { randomBytes } from 'node:crypto';
import { Actor } from '../../src/access/actor';
import { rebuildPostings } from '../../src/search/index-writer';
import {
  Department,
  Group,
  GroupMember,
  OrgPosition,
  PlatformRole,
  Project,
  ProjectGrant,
  ProjectMember,
  Provider,
  Tier,
  User,
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
    const d = e.create(Department, {
      name: over.name ?? `Dept ${uniq()}`,
      color: over.color ?? '#123456',
      description: over.description ?? '',
    });
    await e.flush();
    return d;
  }

  async function makeUser(
    over: Partial<{
      email: string;
      name: string;
      platformRole: PlatformRole;
      orgPosition: OrgPosition;
      department: Department | null;
      status: 'active' | 'inactive';
      password: string;
    }> = {},
  ): Promise<User & { token: string }> {
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
    return Object.assign(u, { token: services.tokens.signAccess(u.id) });
  }

  /** The superadmin (created on first use; at most one exists). */
  async function superadmin(): Promise<User & { token: string }> {
    const e = em();
    const existing = await e.findOne(User, { platformRole: 'superadmin' });
    if (existing) return Object.assign(existing, { token: services.tokens.signAccess(existing.id) });
    return makeUser({ platformRole: 'superadmin', email: `root-${uniq()}@example.com` });
  }

  /** The CEO (created on first use; at most one exists). */
  async function ceo(): Promise<User & { token: string }> {
    const e = em();
    const existing = await e.findOne(User, { orgPosition: 'ceo' });
    if (existing) return Object.assign(existing, { token: services.tokens.signAccess(existing.id) });
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

  async function makeProject(
    over: Partial<{ name: string; owner: User; isPrivate: boolean; instructions: string; settings: Record<string, unknown> }> = {},
  ): Promise<Project> {
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

  async function makeGrant(over: {
    project?: Project;
    user?: User;
    group?: Group;
    department?: Department;
    tier?: Tier;
    grantedBy?: User;
  }): Promise<ProjectGrant> {
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

  /**
   * Every kind of caller the role gates distinguish, around one department `dept`: a plain member and
   * the manager of `dept`, the manager of another department, an engineer, an admin, the superadmin, the CEO.
   */
  async function makeCast() {
    const dept = await makeDepartment();
    const otherDept = await makeDepartment();
    return {
      dept,
      otherDept,
      member: await makeUser({ department: dept }),
      manager: await makeUser({ orgPosition: 'manager', department: dept }),
      otherManager: await makeUser({ orgPosition: 'manager', department: otherDept }),
      engineer: await makeUser({ platformRole: 'engineer' }),
      admin: await makeUser({ platformRole: 'admin' }),
      superadmin: await superadmin(),
      ceo: await ceo(),
    };
  }

  return { makeDepartment, makeUser, superadmin, ceo, makeGroup, makeProject, makeGrant, makeCast, em };
}

/**
 * Chat test data. Providers go through the service (so keys are encrypted as in production);
 * documents and chunks are written straight in SQL, indexed the way ingestion indexes them
 * (tsv = to_tsvector('english', docqa_unaccent(text)), term statistics kept current).
 */
export function chatFactories(orm: MikroORM, services: Services) {
  async function makeProvider(over: {
    baseUrl: string;
    name?: string;
    slug?: string;
    apiKey?: string;
    models?: string[];
    isDefault?: boolean;
    isEnabled?: boolean;
  }): Promise<Provider> {
    const slug = over.slug ?? `prov-${uniq()}`;
    return services.providers.create(Actor.system(), {
      name: over.name ?? `Provider ${slug}`,
      slug,
      baseUrl: over.baseUrl,
      apiKey: over.apiKey ?? 'sk-test-key',
      models: over.models ?? ['stub-model'],
      isDefault: over.isDefault,
      isEnabled: over.isEnabled,
    });
  }

  /** One ready document whose chunks are the given texts, each on its page (1-based unless given). */
  async function makeDocumentChunks(over: {
    project: Project;
    name?: string;
    chunks: Array<string | { text: string; page: number }>;
  }): Promise<{ documentId: string; name: string; chunks: Array<{ id: string; pageNumber: number; text: string }> }> {
    const conn = orm.em.fork().getConnection();
    const name = over.name ?? `Document ${uniq()}.pdf`;
    const items = over.chunks.map((c, i) => (typeof c === 'string' ? { text: c, page: i + 1 } : c));
    const pages = Math.max(1, ...items.map((c) => c.page));
    const [doc] = await conn.execute(
      `insert into documents (project_id, name, mime_type, size, sha256, status, pages_done, pages_total, page_count, chunk_count, content)
       values (?, ?, 'application/pdf', 1, ?, 'ready', ?, ?, ?, ?, ?) returning id`,
      [over.project.id, name, randomBytes(32).toString('hex'), pages, pages, pages, items.length, Buffer.from('')],
    );
    const chunks: Array<{ id: string; pageNumber: number; text: string }> = [];
    for (const [ordinal, c] of items.entries()) {
      const [row] = await conn.execute(
        `insert into chunks (document_id, project_id, ordinal, page_number, page_end, text, context, tsv)
         values (?, ?, ?, ?, ?, ?, ?, to_tsvector('english', docqa_unaccent(?))) returning id`,
        [doc.id, over.project.id, ordinal, c.page, c.page, c.text, c.text, c.text],
      );
      chunks.push({ id: row.id, pageNumber: c.page, text: c.text });
    }
    await conn.execute(
      `update chunks c set term_count = (select coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0) from unnest(c.tsv) u) where c.document_id = ?`,
      [doc.id],
    );
    await conn.execute(
      `insert into term_stats (project_id, term, df)
       select ?, u.lexeme, count(*) from chunks c, unnest(c.tsv) u where c.document_id = ? group by u.lexeme
       on conflict (project_id, term) do update set df = term_stats.df + excluded.df`,
      [over.project.id, doc.id],
    );
    await conn.execute(
      `insert into project_index_stats (project_id, chunk_count, total_terms)
       select ?, count(*), coalesce(sum(term_count), 0) from chunks where document_id = ?
       on conflict (project_id) do update set chunk_count = project_index_stats.chunk_count + excluded.chunk_count,
                                             total_terms = project_index_stats.total_terms + excluded.total_terms`,
      [over.project.id, doc.id],
    );
    await rebuildPostings(orm.em.fork(), over.project.id, [doc.id]);
    return { documentId: doc.id, name, chunks };
  }

  return { makeProvider, makeDocumentChunks };
}
