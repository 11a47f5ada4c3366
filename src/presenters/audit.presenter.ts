import type { AuditEntry } from '../entities';
import { iso } from './user.presenter';

/** One audit-log entry: the spec's fields plus id and createdAt (DESIGN §4). */
export function presentAuditEntry(e: AuditEntry) {
  return {
    id: e.id,
    action: e.action,
    actorId: e.actorId ?? null,
    projectId: e.projectId ?? null,
    targetType: e.targetType,
    targetId: e.targetId,
    metadata: e.metadata ?? {},
    createdAt: iso(e.createdAt),
  };
}
