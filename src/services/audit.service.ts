import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../access/actor';
import { gates } from '../access/gates';
import { AuditAction, AuditEntry, TargetType, Tier } from '../entities';
import { ValidationError } from '../errors';
import { AUDIT_DEFAULT_LIMIT, AuditLogQuery } from './audit.inputs';
import { BaseService } from './context';

export interface AuditRecord {
  action: AuditAction;
  projectId: string;
  targetType: TargetType;
  targetId: string;
  metadata: { tier: Tier; previousTier?: Tier } & Record<string, unknown>;
}

/** What a project PATCH changed that decides who has access (audited like a grant). */
export interface ProjectAccessChange {
  projectId: string;
  visibility?: { from: boolean; to: boolean };
  owner?: { from: string | null; to: string };
}

/** The grant history (DESIGN §4). Writers pass the EntityManager of the transaction making the change. */
export class AuditService extends BaseService {
  /**
   * Writes one entry inside the caller's transaction, so the entry exists exactly when the change
   * it describes commits (a failed change leaves no entry, and a failed entry undoes the change).
   */
  async record(tx: EntityManager, actor: Actor, entry: AuditRecord): Promise<void> {
    await tx.execute(
      // clock_timestamp, not now(): entries of transactions that took turns on a lock sort in the order they happened
      `insert into audit_entries (action, actor_id, project_id, target_type, target_id, metadata, created_at)
       values (?, ?, ?, ?, ?, ?::jsonb, clock_timestamp())`,
      [entry.action, actor.system ? null : actor.id, entry.projectId, entry.targetType, entry.targetId, JSON.stringify(entry.metadata)],
    );
  }

  /**
   * `isPrivate` and owner changes decide access like grants do: `project_visibility_changed`
   * (target: the acting user; metadata.tier `use`, the tier a public project gives everyone, with
   * `isPrivate`/`previousIsPrivate`) and `project_owner_changed` (target: the new owner; metadata.tier
   * `full`, with `previousOwnerId`). Same transaction as the change.
   */
  async recordProjectAccessChange(tx: EntityManager, actor: Actor, change: ProjectAccessChange): Promise<void> {
    if (change.visibility && change.visibility.from !== change.visibility.to) {
      await this.record(tx, actor, {
        action: 'project_visibility_changed',
        projectId: change.projectId,
        targetType: 'user',
        targetId: actor.id,
        metadata: { tier: 'use', isPrivate: change.visibility.to, previousIsPrivate: change.visibility.from },
      });
    }
    if (change.owner && change.owner.from !== change.owner.to) {
      await this.record(tx, actor, {
        action: 'project_owner_changed',
        projectId: change.projectId,
        targetType: 'user',
        targetId: change.owner.to,
        metadata: { tier: 'full', previousOwnerId: change.owner.from },
      });
    }
  }

  /**
   * Deletes a project's grants and records a grant_deleted entry for each row actually deleted
   * (one `DELETE … RETURNING` statement), inside the transaction that deletes the project; the
   * caller holds the project row's lock, so no grant can be added in between.
   */
  deleteProjectGrants(tx: EntityManager, actor: Actor, projectId: string): Promise<void> {
    return this.deleteGrantsAudited(tx, actor, 'project_id = ?', projectId, 'project_deleted');
  }

  /** The same for the grants to a user being deleted (the caller holds the user row's lock). */
  deleteUserGrants(tx: EntityManager, actor: Actor, userId: string): Promise<void> {
    return this.deleteGrantsAudited(tx, actor, 'user_id = ?', userId, 'user_deleted');
  }

  /** No grant vanishes unaudited (spec Grants rule 4): the entries come from the deleted rows themselves. */
  private async deleteGrantsAudited(tx: EntityManager, actor: Actor, where: string, id: string, reason: string): Promise<void> {
    await tx.execute(
      `with gone as (delete from project_grants where ${where} returning project_id, user_id, group_id, department_id, tier)
       insert into audit_entries (action, actor_id, project_id, target_type, target_id, metadata, created_at)
       select 'grant_deleted', ?, g.project_id,
              case when g.user_id is not null then 'user' when g.group_id is not null then 'group' else 'department' end,
              coalesce(g.user_id, g.group_id, g.department_id),
              jsonb_build_object('tier', g.tier, 'reason', ?::text), clock_timestamp()
         from gone g`,
      [id, actor.system ? null : actor.id, reason],
    );
  }

  /** Admin or superadmin. Newest first, with the total matching the filters. */
  async list(actor: Actor, q: AuditLogQuery): Promise<{ entries: AuditEntry[]; total: number }> {
    gates.requirePlatformAdmin(actor);
    const from = q.from ? new Date(q.from) : undefined;
    const to = q.to ? new Date(q.to) : undefined;
    if (from && Number.isNaN(from.getTime())) throw ValidationError.field('from', 'from must be an ISO 8601 timestamp');
    if (to && Number.isNaN(to.getTime())) throw ValidationError.field('to', 'to must be an ISO 8601 timestamp');
    if (from && to && from > to) throw ValidationError.field('from', 'from must not be after to');
    const where: Record<string, unknown> = {};
    if (q.projectId) where.projectId = q.projectId;
    if (q.actorId) where.actorId = q.actorId;
    if (q.action) where.action = q.action;
    // timestamps go out with millisecond precision but are stored with microseconds: `to` includes
    // its whole millisecond, so an entry's own createdAt used as `to` still matches it
    if (from || to) where.createdAt = { ...(from ? { $gte: from } : {}), ...(to ? { $lt: new Date(to.getTime() + 1) } : {}) };
    const [entries, total] = await this.em().findAndCount(AuditEntry, where, {
      orderBy: { createdAt: 'desc', id: 'desc' },
      limit: q.limit ?? AUDIT_DEFAULT_LIMIT,
      offset: q.offset ?? 0,
    });
    return { entries, total };
  }
}
