import { Check, Entity, Enum, Index, ManyToOne, Opt, Property, Unique } from '@mikro-orm/core';
import { CreatedEntity, TimestampedEntity } from './columns';
import { TIERS, Tier } from './base';
import type { AuditAction, AuditTargetType } from '../domain/values';
import { Department } from './department.entity';
import { Group } from './group.entity';
import { User } from './user.entity';

export interface ProjectSettings {
  model?: string;
  temperature?: number;
  topK?: number;
  /** Embedding model for retrieval: `<provider_slug>/<model>` or a bare name (retrieval/embedding-source.ts). */
  embeddingModel?: string;
  /** Reranker for retrieval: `<provider_slug>/<model>` or a bare name a provider lists (retrieval/rerank-source.ts). */
  rerankModel?: string;
}

@Entity({ tableName: 'projects' })
export class Project extends TimestampedEntity {
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text', nullable: true })
  description?: string | null;

  @Property({ type: 'text' })
  color: string & Opt = '#3b82f6';

  @Property({ type: 'boolean' })
  isPrivate: boolean & Opt = true;

  @Property({ type: 'text' })
  instructions: string & Opt = '';

  @Property({ type: 'jsonb', defaultRaw: `'{}'::jsonb` })
  settings: ProjectSettings & Opt = {};

  // deleting the owner's account keeps the project (ownership falls back to platform staff)
  @ManyToOne(() => User, { nullable: true, deleteRule: 'set null', index: true })
  owner?: User | null;

  @ManyToOne(() => User, { nullable: true, deleteRule: 'set null' })
  createdBy?: User | null;
}

/** Legacy visible-member list; access is decided by grants, not by these rows. */
@Entity({ tableName: 'project_members' })
export class ProjectMember {
  @ManyToOne(() => Project, { primary: true, deleteRule: 'cascade' })
  project!: Project;

  @ManyToOne(() => User, { primary: true, deleteRule: 'cascade', index: true })
  user!: User;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  addedAt: Date & Opt = new Date();
}

@Entity({ tableName: 'project_grants' })
// spec invariant: exactly one of userId, groupId, departmentId is set
@Check({ name: 'project_grants_one_target', expression: 'num_nonnulls(user_id, group_id, department_id) = 1' })
// spec: one grant per (project, target); NULLs are distinct so plain composite unique indexes suffice
@Unique({ name: 'project_grants_project_user_unique', properties: ['project', 'user'] })
@Unique({ name: 'project_grants_project_group_unique', properties: ['project', 'group'] })
@Unique({ name: 'project_grants_project_department_unique', properties: ['project', 'department'] })
export class ProjectGrant extends TimestampedEntity {
  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  project!: Project;

  @ManyToOne(() => User, { nullable: true, deleteRule: 'cascade', index: true })
  user?: User | null;

  @ManyToOne(() => Group, { nullable: true, deleteRule: 'cascade', index: true })
  group?: Group | null;

  // a department referenced by a grant cannot be deleted (spec: 409 blocker)
  @ManyToOne(() => Department, { nullable: true, deleteRule: 'restrict', index: true })
  department?: Department | null;

  @Enum({ items: () => TIERS as unknown as string[], type: 'text' })
  tier!: Tier;

  @ManyToOne(() => User, { nullable: true, deleteRule: 'set null' })
  grantedBy?: User | null;
}

/** Grant history; ids are plain values (no FKs) so entries outlive the rows they describe. */
@Entity({ tableName: 'audit_entries' })
@Index({ name: 'audit_entries_project_created_idx', properties: ['projectId', 'createdAt'] })
@Index({ name: 'audit_entries_created_idx', properties: ['createdAt'] })
export class AuditEntry extends CreatedEntity {
  @Property({ type: 'text' })
  action!: AuditAction;

  @Property({ type: 'uuid', nullable: true })
  actorId?: string | null;

  /** Null for entries about a user rather than a project (platform role, status, memberships). */
  @Property({ type: 'uuid', nullable: true })
  projectId?: string | null;

  @Property({ type: 'text' })
  targetType!: AuditTargetType;

  @Property({ type: 'uuid' })
  targetId!: string;

  @Property({ type: 'jsonb', defaultRaw: `'{}'::jsonb` })
  metadata: Record<string, unknown> & Opt = {};
}
