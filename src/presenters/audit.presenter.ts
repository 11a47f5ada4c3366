import type { AuditAction, AuditTargetType } from '../domain/values';
import type { AuditEntryDto } from './dto.generated';
import { iso } from './time';

/** An audit entry with the names, as they are now, of what it refers to (null once deleted). */
export interface AuditRow {
  id: string;
  action: AuditAction;
  actorId: string | null;
  projectId: string | null;
  targetType: AuditTargetType;
  targetId: string;
  metadata: Record<string, unknown>;
  createdAt: Date;
  actorName: string | null;
  projectName: string | null;
  targetName: string | null;
}

/** One audit-log entry: the spec's fields plus id and createdAt (DESIGN §4), and the names of its actor, project and target. */
export function presentAuditEntry(e: AuditRow): AuditEntryDto {
  return {
    id: e.id,
    action: e.action,
    actorId: e.actorId,
    projectId: e.projectId,
    targetType: e.targetType,
    targetId: e.targetId,
    metadata: e.metadata,
    createdAt: iso(e.createdAt),
    actorName: e.actorName,
    projectName: e.projectName,
    targetName: e.targetName,
  };
}
