// One audit entry written inside the caller's transaction: the one insert every audited change shares.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditAction, AuditTargetType, Tier } from '../entities';
import { query } from './sql';

export interface AuditRecord {
  action: AuditAction;
  /** Null for entries about a user rather than a project (role, status, memberships). */
  projectId: string | null;
  targetType: AuditTargetType;
  targetId: string;
  metadata: { tier?: Tier; previousTier?: Tier } & Record<string, unknown>;
}

/** An entry about a user rather than a project (role, status, memberships, accounts). */
export const userEntry = (action: AuditAction, userId: string, metadata: AuditRecord['metadata']): AuditRecord => ({
  action,
  projectId: null,
  targetType: 'user',
  targetId: userId,
  metadata,
});

/** An entry about a key for programs (no project). */
export const keyEntry = (action: AuditAction, keyId: string, metadata: AuditRecord['metadata']): AuditRecord => ({
  action,
  projectId: null,
  targetType: 'key',
  targetId: keyId,
  metadata,
});

/** Writes `entry` by `actorId` (null: the system) in `tx`, so it commits or rolls back with the change. */
export async function insertAuditEntry(tx: EntityManager, actorId: string | null, entry: AuditRecord): Promise<void> {
  await query(
    tx,
    // clock_timestamp, not now(): entries of transactions that took turns on a lock sort in the order they happened
    `insert into audit_entries (action, actor_id, project_id, target_type, target_id, metadata, created_at)
     values (?, ?, ?, ?, ?, ?::jsonb, clock_timestamp())`,
    [entry.action, actorId, entry.projectId, entry.targetType, entry.targetId, JSON.stringify(entry.metadata)],
  );
}
