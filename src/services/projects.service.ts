import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../access/actor';
import { gates } from '../access/gates';
import { accessibleProjectsCte, countAccessibleProjects, listAccessibleProjects, AccessibleProjectRow } from '../access/project-access.sql';
import { checkProjectAccess } from '../access/read-rules';
import { requireTier } from '../access/read-rules';
import type { Access } from '../access/resolver';
import { requireOwnerTransfer } from '../access/write-rules';
import { Project, ProjectMember, ProjectSettings, User } from '../entities';
import { NotFoundError, ValidationError } from '../errors';
import type { ProjectCounts } from '../presenters/project.presenter';
import { knownRerankModel } from '../llm/rerank-source';
import { isUuid } from '../validation';
import type { AuditService } from './audit.service';
import { Batch, groupBy, one, splitVerdicts } from './batch';
import { BaseService, ServiceContext } from '../db/service-context';
import { pageFromRows, type PageInput, type Paged } from './page';
import type { CreateProjectInput, ProjectSettingsInput, UpdateProjectInput } from './projects.inputs';
import { query } from '../db/sql';
import type { SearchWing } from '../search';

/** A project with its visible members (users populated) and counts, as the detail endpoints show it. */
export interface ProjectDetail {
  project: Project;
  members: ProjectMember[];
  counts: ProjectCounts;
}

/** A project read by id: its detail and the caller's access to it. */
export type ProjectRead = ProjectDetail & { access: Access };

/** A project a user is a visible member of, with the caller's access to it. */
export interface MemberProject {
  project: Project;
  access: Access;
}

const notFound = () => new NotFoundError('not_found', 'Project not found');

export class ProjectsService extends BaseService {
  constructor(
    ctx: ServiceContext,
    private readonly audit: AuditService,
    private readonly search: Pick<SearchWing, 'reindex'>,
  ) {
    super(ctx);
  }

  /** The projects the caller can access, newest first, with tier, source, members and counts: one query per page. */
  async list(actor: Actor, page?: PageInput): Promise<Paged<AccessibleProjectRow>> {
    const em = this.em();
    return pageFromRows(await listAccessibleProjects(em, actor, page), page, () => countAccessibleProjects(em, actor));
  }

  /** Any tier may read a project; 404 when missing (or a malformed id), 403 when the resolver gives nothing. */
  async get(actor: Actor, projectId: string): Promise<ProjectRead> {
    return one(await this.getMany(actor, [projectId]), projectId, notFound);
  }

  /** Projects by id with members, counts and the caller's access: the one read of projects, in four queries however many ids. */
  async getMany(actor: Actor, ids: readonly string[]): Promise<Batch<ProjectRead>> {
    const em = this.em();
    const out: Batch<ProjectRead> = new Map();
    const verdicts = await checkProjectAccess(em, actor, ids, 'use');
    const allowed = splitVerdicts(verdicts, out);
    if (!allowed.length) return out;
    const projects = await em.find(Project, { id: { $in: allowed } });
    const members = await this.membersOf(em, allowed);
    const counts = await this.countsOf(em, allowed);
    for (const project of projects) {
      out.set(project.id, {
        project,
        members: members.get(project.id)!,
        counts: counts.get(project.id)!,
        access: verdicts.get(project.id) as Access,
      });
    }
    for (const id of allowed) if (!out.has(id)) out.set(id, notFound()); // deleted meanwhile
    return out;
  }

  /**
   * For each user, the projects they are a visible member of among those the caller can access
   * (with the caller's tier and source), newest project first.
   */
  async listForMembers(actor: Actor, userIds: readonly string[]): Promise<Batch<MemberProject[]>> {
    const em = this.em();
    const ids = userIds.filter(isUuid);
    const cte = accessibleProjectsCte(actor);
    const rows: Array<{ user_id: string; project_id: string; tier: Access['tier']; source: Access['source'] }> = ids.length
      ? await query(
          em,
          `with accessible as (${cte.sql})
         select pm.user_id, a.project_id, a.tier, a.source
           from project_members pm
           join accessible a on a.project_id = pm.project_id
           join projects p on p.id = pm.project_id
          where pm.user_id = any(array[?]::uuid[])
          order by p.created_at desc, p.id`,
          [...cte.params, ids],
        )
      : [];
    const projects = new Map(
      rows.length ? (await em.find(Project, { id: { $in: [...new Set(rows.map((r) => r.project_id))] } })).map((p) => [p.id, p]) : [],
    );
    const byUser = groupBy(userIds, rows, (r) => r.user_id);
    return new Map(
      [...byUser].map(([id, rs]) => [
        id,
        rs.map((r) => ({ project: projects.get(r.project_id)!, access: { tier: r.tier, source: r.source } })),
      ]),
    );
  }

  /** Admin or superadmin only; the caller becomes owner and creator. */
  async create(actor: Actor, input: CreateProjectInput): Promise<ProjectDetail> {
    gates.requirePlatformAdmin(actor);
    return this.em().transactional(async (tx) => {
      await this.assertRerankModel(tx, input.settings?.rerankModel);
      const project = tx.create(Project, {
        name: input.name.trim(),
        description: input.description ?? null,
        owner: tx.getReference(User, actor.id),
        createdBy: tx.getReference(User, actor.id),
        ...(input.color !== undefined ? { color: input.color } : {}),
        ...(input.isPrivate !== undefined ? { isPrivate: input.isPrivate } : {}),
        ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
        settings: mergeSettings({}, input.settings),
      });
      await tx.flush();
      await this.audit.record(tx, actor, {
        action: 'project_created',
        projectId: project.id,
        targetType: 'user',
        targetId: actor.id,
        metadata: { tier: 'full', isPrivate: project.isPrivate },
      });
      return { project, members: [], counts: { documents: 0, conversations: 0, chunks: 0 } };
    });
  }

  /**
   * PATCH rules: `edit` tier for fields; changing `ownerId` needs `full` (rule 1) and an active
   * admin or superadmin as the new owner (rule 2); settings keys are merged, null removes one.
   */
  async update(actor: Actor, projectId: string, input: UpdateProjectInput): Promise<ProjectDetail> {
    let embeddingModelChanged = false;
    const detail = await this.em().transactional(async (tx) => {
      const { project, access } = await requireTier(tx, actor, projectId, 'edit');
      const currentOwner = project.owner ? project.owner.id : null;
      const wasPrivate = project.isPrivate;
      if (input.ownerId !== undefined && input.ownerId !== currentOwner) {
        requireOwnerTransfer(access);
        const owner = await tx.findOne(User, { id: input.ownerId });
        if (!owner) throw new NotFoundError('not_found', 'The new owner does not exist');
        // spec rule 2: ownership only goes to platform administrators
        if (owner.platformRole !== 'admin' && owner.platformRole !== 'superadmin')
          throw ValidationError.field('ownerId', 'The new owner must have platformRole admin or superadmin');
        if (owner.status !== 'active') throw ValidationError.field('ownerId', 'The new owner must be an active user');
        project.owner = owner;
      }
      if (input.name !== undefined) project.name = input.name.trim();
      if (input.description !== undefined) project.description = input.description;
      if (input.instructions !== undefined) project.instructions = input.instructions;
      if (input.color !== undefined) project.color = input.color;
      if (input.isPrivate !== undefined) project.isPrivate = input.isPrivate;
      await this.assertRerankModel(tx, input.settings?.rerankModel);
      if (input.settings !== undefined) {
        const before = project.settings?.embeddingModel;
        project.settings = mergeSettings(project.settings ?? {}, input.settings);
        embeddingModelChanged = project.settings.embeddingModel !== before;
      }
      await tx.flush();
      await this.audit.recordProjectAccessChange(tx, actor, {
        projectId: project.id,
        visibility: { from: wasPrivate, to: project.isPrivate },
        owner: project.owner ? { from: currentOwner, to: project.owner.id } : undefined,
      });
      return this.detail(tx, project);
    });
    // a new embedding model: the project's documents are queued for it now (best effort: else the sweep does)
    if (embeddingModelChanged)
      await this.search.reindex(projectId).catch((err) => this.logger.warn({ err, projectId }, 're-embedding not queued; the sweep will'));
    return detail;
  }

  /**
   * `full` tier. One transaction: the project row goes (foreign keys cascade to chunks, documents,
   * conversations and their messages, grants and members), then the retrieval statistics that have
   * no foreign key. The grants removed are recorded in the audit log as grant_deleted, the deletion as
   * project_deleted (target: the acting user, metadata.previousOwnerId).
   */
  async delete(actor: Actor, projectId: string): Promise<{ id: string }> {
    await this.em().transactional(async (tx) => {
      await requireTier(tx, actor, projectId, 'full');
      // the row lock keeps grants from being added until we commit (an insert's foreign-key check
      // waits on it); the grants then go with an audit entry per row deleted, before the project
      await query(tx, `select 1 from projects where id = ? for update`, [projectId]);
      await this.audit.deleteProjectGrants(tx, actor, projectId);
      // deleting the row locks it, so an ingestion commit touching the project waits and then fails
      // on its foreign key; the statistics go after that, so a concurrent ingest leaves no rows behind
      const deleted: Array<{ owner_id: string | null }> = await query(tx, `delete from projects where id = ? returning owner_id`, [
        projectId,
      ]);
      if (!deleted.length) throw new NotFoundError('not_found', 'Project not found');
      await this.audit.record(tx, actor, {
        action: 'project_deleted',
        projectId,
        targetType: 'user',
        targetId: actor.id,
        metadata: { tier: 'full', previousOwnerId: deleted[0].owner_id },
      });
      await query(tx, `delete from term_stats where project_id = ?`, [projectId]);
      await query(tx, `delete from project_index_stats where project_id = ?`, [projectId]);
    });
    return { id: projectId };
  }

  /** `edit` tier. Removes the user from the visible member list only; grants are not revoked. */
  async removeMember(actor: Actor, projectId: string, userId: string): Promise<{ projectId: string; userId: string }> {
    const em = this.em();
    await requireTier(em, actor, projectId, 'edit');
    if (!isUuid(userId)) throw new NotFoundError('not_found', 'The user is not a member of this project');
    const rows: unknown[] = await query(em, `delete from project_members where project_id = ? and user_id = ? returning user_id`, [
      projectId,
      userId,
    ]);
    if (!rows.length) throw new NotFoundError('not_found', 'The user is not a member of this project');
    return { projectId, userId };
  }

  /** Members (users populated) and the three counts, in two queries. */
  private async detail(em: EntityManager, project: Project): Promise<ProjectDetail> {
    const members = await this.membersOf(em, [project.id]);
    const counts = await this.countsOf(em, [project.id]);
    return { project, members: members.get(project.id)!, counts: counts.get(project.id)! };
  }

  /** `settings.rerankModel` must name a reranker a provider lists (or RERANK_MODEL): an unknown one is a 400, not a silent fallback. */
  private async assertRerankModel(em: EntityManager, name: string | null | undefined): Promise<void> {
    if (typeof name !== 'string') return;
    const rows: Array<{ slug: string; rerank_models: string[] }> = await query(em, 'select slug, rerank_models from providers');
    const providers = rows.map((r) => ({ slug: r.slug, rerankModels: r.rerank_models }));
    if (!knownRerankModel(providers, name, this.config.rerank)) {
      throw ValidationError.field(
        'settings.rerankModel',
        `"${name}" is not a reranking model of any provider: use <provider_slug>/<model> or a name listed in a provider's rerankModels`,
      );
    }
  }

  /**
   * Each project's visible members with their users. The order is REST's (by addedAt) with the
   * user id breaking ties, the same as the list query's `order by pm.added_at, pm.user_id`.
   */
  private async membersOf(em: EntityManager, projectIds: string[]): Promise<Map<string, ProjectMember[]>> {
    const rows = await em.find(
      ProjectMember,
      { project: { $in: projectIds } },
      { populate: ['user'], orderBy: { addedAt: 'asc', user: { id: 'asc' } } },
    );
    return groupBy(projectIds, rows, (m) => m.project.id);
  }

  /** Each project's document, conversation and chunk counts (the detail's `_count`), in one query. */
  private async countsOf(em: EntityManager, projectIds: string[]): Promise<Map<string, ProjectCounts>> {
    const rows: Array<ProjectCounts & { id: string }> = await query(
      em,
      `select p.id,
              (select count(*) from documents d where d.project_id = p.id)::int as documents,
              (select count(*) from conversations c where c.project_id = p.id)::int as conversations,
              (select count(*) from chunks k where k.project_id = p.id)::int as chunks
         from projects p where p.id = any(array[?]::uuid[])`,
      [projectIds],
    );
    const out = new Map<string, ProjectCounts>(projectIds.map((id) => [id, { documents: 0, conversations: 0, chunks: 0 }]));
    for (const r of rows) out.set(r.id, { documents: r.documents, conversations: r.conversations, chunks: r.chunks });
    return out;
  }
}

/** Merges given settings keys into stored ones; null removes a key, undefined leaves it. */
export function mergeSettings(stored: ProjectSettings, patch: ProjectSettingsInput | undefined): ProjectSettings {
  const out: ProjectSettings = { ...stored };
  if (!patch) return out;
  for (const key of ['model', 'temperature', 'topK', 'embeddingModel', 'rerankModel'] as const) {
    const v = patch[key];
    if (v === null) delete out[key];
    else if (v !== undefined) (out as Record<string, unknown>)[key] = v;
  }
  return out;
}
