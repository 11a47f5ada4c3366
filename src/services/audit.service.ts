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

  /** A grant_deleted entry for every grant of a project about to be deleted (same transaction). */
  recordProjectGrantsDeleted(tx: EntityManager, actor: Actor, projectId: string): Promise<void> {
    return this.recordCascadedDeletes(tx, actor, 'g.project_id = ?', projectId, 'project_deleted');
  }

  /** A grant_deleted entry for every grant to a user about to be deleted (same transaction). */
  recordUserGrantsDeleted(tx: EntityManager, actor: Actor, userId: string): Promise<void> {
    return this.recordCascadedDeletes(tx, actor, 'g.user_id = ?', userId, 'user_deleted');
  }

  /** Grants removed by a foreign-key cascade leave an entry too, so no grant vanishes unaudited (spec Grants rule 4). */
  private async recordCascadedDeletes(tx: EntityManager, actor: Actor, where: string, id: string, reason: string): Promise<void> {
    await tx.execute(
      `insert into audit_entries (action, actor_id, project_id, target_type, target_id, metadata, created_at)
       select 'grant_deleted', ?, g.project_id,
              case when g.user_id is not null then 'user' when g.group_id is not null then 'group' else 'department' end,
              coalesce(g.user_id, g.group_id, g.department_id),
              jsonb_build_object('tier', g.tier, 'reason', ?::text), clock_timestamp()
         from project_grants g
        where ${where}`,
      [actor.system ? null : actor.id, reason, id],
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
