import type { AuditEntry } from '../entities';
import type { AuditEntryDto } from './dto.generated';
import { iso } from './time';

/** One audit-log entry: the spec's fields plus id and createdAt (DESIGN §4). */
export function presentAuditEntry(e: AuditEntry): AuditEntryDto {
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
