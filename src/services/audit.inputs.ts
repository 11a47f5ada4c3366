import { IsIn, IsISO8601, IsUUID } from 'class-validator';
import { ID, InputType } from 'type-graphql';
import { AUDIT_ACTIONS, AuditAction } from '../entities/base';
import { NullableField } from './input-rules';
import { LimitField, OffsetField } from './paging.inputs';

export const AUDIT_DEFAULT_LIMIT = 50;
export const AUDIT_MAX_LIMIT = 200;

/** GET /audit-log filters (query string). */
@InputType()
export class AuditLogQuery {
  @NullableField(() => ID, IsUUID('all'))
  projectId?: string;

  @NullableField(() => ID, IsUUID('all'))
  actorId?: string;

  @NullableField(() => String, IsIn(AUDIT_ACTIONS))
  action?: AuditAction;

  /** Inclusive lower bound on createdAt (ISO 8601). */
  @NullableField(() => String, IsISO8601({ strict: true }))
  from?: string;

  /** Inclusive upper bound on createdAt (ISO 8601). */
  @NullableField(() => String, IsISO8601({ strict: true }))
  to?: string;

  @LimitField(AUDIT_MAX_LIMIT, NullableField)
  limit?: number;

  @OffsetField(undefined, NullableField)
  offset?: number;
}
