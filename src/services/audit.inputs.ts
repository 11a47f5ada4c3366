import { IsIn, IsInt, IsISO8601, IsOptional, IsUUID, Max, Min } from 'class-validator';
import { Field, ID, InputType, Int } from 'type-graphql';
import { AUDIT_ACTIONS, AuditAction } from '../entities/base';

export const AUDIT_DEFAULT_LIMIT = 50;
export const AUDIT_MAX_LIMIT = 200;

/** GET /audit-log filters (query string). */
@InputType()
export class AuditLogQuery {
  @Field(() => ID, { nullable: true })
  @IsOptional()
  @IsUUID('all')
  projectId?: string;

  @Field(() => ID, { nullable: true })
  @IsOptional()
  @IsUUID('all')
  actorId?: string;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsIn(AUDIT_ACTIONS)
  action?: AuditAction;

  /** Inclusive lower bound on createdAt (ISO 8601). */
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;

  /** Inclusive upper bound on createdAt (ISO 8601). */
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(AUDIT_MAX_LIMIT)
  limit?: number;

  @Field(() => Int, { nullable: true })
  @IsOptional()
  @IsInt()
  @Min(0)
  offset?: number;
}
