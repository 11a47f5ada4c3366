import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../access/actor';
import { gates } from '../access/gates';
import { listAccessibleProjects, AccessibleProjectRow } from '../access/project-access.sql';
import { requireTier, tierAtLeast } from '../access/resolver';
import { Project, ProjectMember, ProjectSettings, User } from '../entities';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors';
import type { ProjectCounts } from '../presenters/project.presenter';
import { isUuid } from '../validation';
import type { AuditService } from './audit.service';
import { BaseService, ServiceContext } from './context';
import type { CreateProjectInput, ProjectSettingsInput, UpdateProjectInput } from './projects.inputs';

/** A project with its visible members (users populated) and counts, as the detail endpoints show it. */
export interface ProjectDetail {
  project: Project;
  members: ProjectMember[];
  counts: ProjectCounts;
}

export class ProjectsService extends BaseService {
  constructor(
    ctx: ServiceContext,
    private readonly audit: AuditService,
  ) {
    super(ctx);
  }

  /** Every project the caller can access, with tier, source, members and counts, in one query. */
  async list(actor: Actor): Promise<AccessibleProjectRow[]> {
    return listAccessibleProjects(this.em(), actor);
  }

  /** Any tier may read a project; 404 when missing (or a malformed id), 403 when the resolver gives nothing. */
  async get(actor: Actor, projectId: string): Promise<ProjectDetail> {
    const em = this.em();
    const { project } = await requireTier(em, actor, projectId, 'use');
    return this.detail(em, project);
  }

  /** Admin or superadmin only; the caller becomes owner and creator. */
  async create(actor: Actor, input: CreateProjectInput): Promise<ProjectDetail> {
    gates.requirePlatformAdmin(actor);
    return this.em().transactional(async (tx) => {
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
      return { project, members: [], counts: { documents: 0, conversations: 0, chunks: 0 } };
    });
  }

  /**
   * PATCH rules: `edit` tier for fields; changing `ownerId` needs `full` (rule 1) and an active
   * admin or superadmin as the new owner (rule 2); settings keys are merged, null removes one.
   */
  async update(actor: Actor, projectId: string, input: UpdateProjectInput): Promise<ProjectDetail> {
    return this.em().transactional(async (tx) => {
      const { project, access } = await requireTier(tx, actor, projectId, 'edit');
      const currentOwner = project.owner ? project.owner.id : null;
      if (input.ownerId !== undefined && input.ownerId !== currentOwner) {
        // spec rule 1: transferring ownership is a `full` tier operation
        if (!tierAtLeast(access.tier, 'full')) throw new ForbiddenError('forbidden', 'Changing the owner requires the full tier on the project');
        const owner = await tx.findOne(User, { id: input.ownerId });
        if (!owner) throw new NotFoundError('not_found', 'The new owner does not exist');
        // spec rule 2: ownership only goes to platform administrators
        if (owner.platformRole !== 'admin' && owner.platformRole !== 'superadmin') throw ValidationError.field('ownerId', 'The new owner must have platformRole admin or superadmin');
        if (owner.status !== 'active') throw ValidationError.field('ownerId', 'The new owner must be an active user');
        project.owner = owner;
      }
      if (input.name !== undefined) project.name = input.name.trim();
      if (input.description !== undefined) project.description = input.description;
      if (input.instructions !== undefined) project.instructions = input.instructions;
      if (input.color !== undefined) project.color = input.color;
      if (input.isPrivate !== undefined) project.isPrivate = input.isPrivate;
      if (input.settings !== undefined) project.settings = mergeSettings(project.settings ?? {}, input.settings);
      await tx.flush();
      return this.detail(tx, project);
    });
  }

  /**
   * `full` tier. One transaction: the project row goes (foreign keys cascade to chunks, documents,
   * conversations and their messages, grants and members), then the retrieval statistics that have
   * no foreign key. The grants removed are recorded in the audit log as grant_deleted.
   */
  async delete(actor: Actor, projectId: string): Promise<{ id: string }> {
    await this.em().transactional(async (tx) => {
      await requireTier(tx, actor, projectId, 'full');
      // audit rows first, while the grants still exist (same transaction as the delete)
      await this.audit.recordProjectGrantsDeleted(tx, actor, projectId);
      // deleting the row locks it, so an ingestion commit touching the project waits and then fails
      // on its foreign key; the statistics go after that, so a concurrent ingest leaves no rows behind
      const deleted: unknown[] = await tx.execute(`delete from projects where id = ? returning id`, [projectId]);
      if (!deleted.length) throw new NotFoundError('not_found', 'Project not found');
      await tx.execute(`delete from term_stats where project_id = ?`, [projectId]);
      await tx.execute(`delete from project_index_stats where project_id = ?`, [projectId]);
    });
    return { id: projectId };
  }

  /** `edit` tier. Removes the user from the visible member list only; grants are not revoked. */
  async removeMember(actor: Actor, projectId: string, userId: string): Promise<{ projectId: string; userId: string }> {
    const em = this.em();
    await requireTier(em, actor, projectId, 'edit');
    if (!isUuid(userId)) throw new NotFoundError('not_found', 'The user is not a member of this project');
    const rows: unknown[] = await em.execute(`delete from project_members where project_id = ? and user_id = ? returning user_id`, [projectId, userId]);
    if (!rows.length) throw new NotFoundError('not_found', 'The user is not a member of this project');
    return { projectId, userId };
  }

  /** Members (users populated) and the three counts, in two queries. */
  private async detail(em: EntityManager, project: Project): Promise<ProjectDetail> {
    const members = await em.find(ProjectMember, { project: project.id }, { populate: ['user'], orderBy: { addedAt: 'asc' } });
    const [counts] = await em.execute<ProjectCounts[]>(
      `select (select count(*) from documents where project_id = ?)::int as documents,
              (select count(*) from conversations where project_id = ?)::int as conversations,
              (select count(*) from chunks where project_id = ?)::int as chunks`,
      [project.id, project.id, project.id],
    );
    return { project, members, counts };
  }
}

/** Merges given settings keys into stored ones; null removes a key, undefined leaves it. */
export function mergeSettings(stored: ProjectSettings, patch: ProjectSettingsInput | undefined): ProjectSettings {
  const out: ProjectSettings = { ...stored };
  if (!patch) return out;
  for (const key of ['model', 'temperature', 'topK', 'embeddingModel'] as const) {
    const v = patch[key];
    if (v === null) delete out[key];
    else if (v !== undefined) (out as Record<string, unknown>)[key] = v;
  }
  return out;
}
