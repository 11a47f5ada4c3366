import type { Actor } from '../access/actor';
import { gates } from '../access/gates';
import { accessToProjects } from '../access/project-access.sql';
import type { Access } from '../access/resolver';
import { Project, ProjectGrant, ProjectMember, User } from '../entities';
import { ForbiddenError, NotFoundError } from '../errors';
import type { ProjectCounts } from '../presenters/project.presenter';
import { BaseService } from './context';

/** Per key: the value, or the error REST would have answered for that key alone. */
export type Batch<T> = Map<string, T | Error>;

const noAccess = () => new ForbiddenError('forbidden', 'You have no access to this project');

/**
 * Batched reads behind GraphQL's DataLoaders: the same rules as the single-object service methods
 * (the `use` tier through the list form of the resolver, the platform-admin gate for users), but
 * for many ids in a constant number of queries, so nested fields never query per parent.
 */
export class GraphBatchService extends BaseService {
  /** The caller's access to each project; projects they cannot access are absent. */
  async access(actor: Actor, projectIds: readonly string[]): Promise<Map<string, Access>> {
    return accessToProjects(this.em(), actor, [...projectIds]);
  }

  /** Splits ids into those the caller can read (any tier is `use` or more) and a forbidden result for the rest. */
  private async readable<T>(actor: Actor, projectIds: readonly string[]): Promise<{ allowed: string[]; out: Batch<T>; access: Map<string, Access> }> {
    const access = await this.access(actor, projectIds);
    const out: Batch<T> = new Map();
    const allowed: string[] = [];
    for (const id of projectIds) {
      if (access.has(id)) allowed.push(id);
      else out.set(id, noAccess());
    }
    return { allowed, out, access };
  }

  /** Projects by id with the caller's access (GET /projects/:id needs any tier). */
  async projects(actor: Actor, ids: readonly string[]): Promise<Batch<{ project: Project; access: Access }>> {
    const { allowed, out, access } = await this.readable<{ project: Project; access: Access }>(actor, ids);
    if (allowed.length) {
      for (const p of await this.em().find(Project, { id: { $in: allowed } })) out.set(p.id, { project: p, access: access.get(p.id)! });
    }
    for (const id of allowed) if (!out.has(id)) out.set(id, new NotFoundError('not_found', 'Project not found'));
    return out;
  }

  /** Each project's visible members with their users (what GET /projects/:id lists). */
  async members(actor: Actor, projectIds: readonly string[]): Promise<Batch<ProjectMember[]>> {
    const { allowed, out } = await this.readable<ProjectMember[]>(actor, projectIds);
    for (const id of allowed) out.set(id, []);
    if (allowed.length) {
      const rows = await this.em().find(ProjectMember, { project: { $in: allowed } }, { populate: ['user'], orderBy: { addedAt: 'asc', user: { id: 'asc' } } });
      for (const m of rows) (out.get(m.project.id) as ProjectMember[]).push(m);
    }
    return out;
  }

  /** Each project's grants with targets populated (GET /projects/:id/grants needs `use`). */
  async grants(actor: Actor, projectIds: readonly string[]): Promise<Batch<ProjectGrant[]>> {
    const { allowed, out } = await this.readable<ProjectGrant[]>(actor, projectIds);
    for (const id of allowed) out.set(id, []);
    if (allowed.length) {
      const rows = await this.em().find(ProjectGrant, { project: { $in: allowed } }, {
        populate: ['user', 'group', 'group.department', 'department'],
        strategy: 'joined',
        orderBy: { createdAt: 'asc', id: 'asc' },
      });
      for (const g of rows) (out.get(g.project.id) as ProjectGrant[]).push(g);
    }
    return out;
  }

  /** Each project's document, conversation and chunk counts (the detail's `_count`). */
  async counts(actor: Actor, projectIds: readonly string[]): Promise<Batch<ProjectCounts>> {
    const { allowed, out } = await this.readable<ProjectCounts>(actor, projectIds);
    if (allowed.length) {
      const rows: Array<ProjectCounts & { id: string }> = await this.em().execute(
        `select p.id,
                (select count(*) from documents d where d.project_id = p.id)::int as documents,
                (select count(*) from conversations c where c.project_id = p.id)::int as conversations,
                (select count(*) from chunks k where k.project_id = p.id)::int as chunks
           from projects p where p.id = any(array[?]::uuid[])`,
        [allowed],
      );
      for (const r of rows) out.set(r.id, { documents: r.documents, conversations: r.conversations, chunks: r.chunks });
    }
    return out;
  }

  /** Full users (GET /users/:id is admin-only; GET /users/me is the caller's own). */
  async users(actor: Actor, ids: readonly string[]): Promise<Batch<User>> {
    const out: Batch<User> = new Map();
    const allowed = gates.isPlatformAdmin(actor) ? [...ids] : ids.filter((id) => id === actor.id);
    for (const id of ids) if (!allowed.includes(id)) out.set(id, new ForbiddenError('forbidden', 'requires platform role admin or superadmin'));
    if (allowed.length) {
      for (const u of await this.em().find(User, { id: { $in: allowed } }, { populate: ['department'] })) out.set(u.id, u);
    }
    for (const id of allowed) if (!out.has(id)) out.set(id, new NotFoundError('user_not_found', 'User not found'));
    return out;
  }
}
