import type { AccessibleProjectRow, MemberRecord } from '../access/project-access.sql';
import type { Project, ProjectMember, ProjectSettings } from '../entities';
import { presentMemberUser } from './user.presenter';
import type { ProjectDetailDto, ProjectListItemDto, ProjectMemberDto, ProjectRefDto } from './dto.generated';
import { iso } from './time';

/** A project's own fields as the services hand them over (from an entity or a list row). */
export interface ProjectFields {
  id: string;
  name: string;
  description: string | null;
  color: string;
  isPrivate: boolean;
  instructions: string;
  settings: ProjectSettings;
  ownerId: string | null;
  createdBy: string | null;
  createdAt: Date | string;
  updatedAt: Date | string;
}

export function projectFields(p: Project): ProjectFields {
  return {
    id: p.id,
    name: p.name,
    description: p.description ?? null,
    color: p.color,
    isPrivate: p.isPrivate,
    instructions: p.instructions,
    settings: p.settings ?? {},
    ownerId: p.owner ? p.owner.id : null,
    createdBy: p.createdBy ? p.createdBy.id : null,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
}

export function projectFieldsFromRow(r: AccessibleProjectRow): ProjectFields {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    color: r.color,
    isPrivate: r.is_private,
    instructions: r.instructions,
    settings: r.settings ?? {},
    ownerId: r.owner_id,
    createdBy: r.created_by_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The project fields on the wire (no members, counts or access). */
/** The caller's tier on a project and why (the graph's Project carries them in every view). */
export type ProjectAccessDto = Pick<ProjectListItemDto, 'accessTier' | 'accessSource'>;
/** The graph's full Project: the REST detail and the caller's access. */
export type GraphProjectDto = ProjectDetailDto & ProjectAccessDto;
/** A project in a user's project list (the graph's User.projects). */
export type GraphMemberProjectDto = ProjectBaseDto & ProjectAccessDto;

/** A project's own fields, without its members and counts. */
export type ProjectBaseDto = Omit<ProjectDetailDto, 'members' | '_count'>;

export function presentProjectBase(p: ProjectFields): ProjectBaseDto {
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    color: p.color,
    isPrivate: p.isPrivate,
    instructions: p.instructions,
    settings: {
      ...(p.settings.model !== undefined ? { model: p.settings.model } : {}),
      ...(p.settings.temperature !== undefined ? { temperature: p.settings.temperature } : {}),
      ...(p.settings.topK !== undefined ? { topK: p.settings.topK } : {}),
      ...(p.settings.embeddingModel !== undefined ? { embeddingModel: p.settings.embeddingModel } : {}),
      ...(p.settings.rerankModel !== undefined ? { rerankModel: p.settings.rerankModel } : {}),
    },
    ownerId: p.ownerId,
    createdBy: p.createdBy,
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
  };
}

/** A ProjectMember entity (user populated) on the wire. */
export function presentProjectMember(m: ProjectMember): ProjectMemberDto {
  return {
    projectId: m.project.id,
    userId: m.user.id,
    addedAt: iso(m.addedAt),
    user: presentMemberUser(m.user),
  };
}

/** A member as aggregated by the list query. */
export function presentMemberRecord(m: MemberRecord): ProjectMemberDto {
  return {
    projectId: m.projectId,
    userId: m.userId,
    addedAt: iso(m.addedAt),
    user: {
      id: m.user.id,
      name: m.user.name,
      email: m.user.email,
      avatarUrl: m.user.avatarUrl,
      platformRole: m.user.platformRole,
      orgPosition: m.user.orgPosition,
      departmentId: m.user.departmentId,
    },
  };
}

/** GET /projects entry: members, `_count {documents, conversations}`, and the caller's access. */
export function presentProjectListItem(r: AccessibleProjectRow): ProjectListItemDto {
  return {
    ...presentProjectBase(projectFieldsFromRow(r)),
    members: r.members.map(presentMemberRecord),
    _count: { documents: r.document_count, conversations: r.conversation_count },
    accessTier: r.access_tier,
    accessSource: r.access_source,
  };
}

export interface ProjectCounts {
  documents: number;
  conversations: number;
  chunks: number;
}

/** GET/POST/PATCH /projects/:id `project`: members with users and `_count` including chunks. */
export function presentProjectDetail(d: { project: Project; members: ProjectMember[]; counts: ProjectCounts }): ProjectDetailDto {
  return {
    ...presentProjectBase(projectFields(d.project)),
    members: d.members.map(presentProjectMember),
    _count: { documents: d.counts.documents, conversations: d.counts.conversations, chunks: d.counts.chunks },
  };
}

/** A short project reference (grants by user). */
export function presentProjectRef(p: {
  id: string;
  name: string;
  color: string;
  isPrivate: boolean;
  ownerId: string | null;
}): ProjectRefDto {
  return { id: p.id, name: p.name, color: p.color, isPrivate: p.isPrivate, ownerId: p.ownerId };
}
