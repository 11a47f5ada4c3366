import { Field, ID, ObjectType } from 'type-graphql';
import { Page } from './common.type';
import { AuditActionEnum, TargetTypeEnum, TierEnum } from './enums';

@ObjectType('AuditMetadata')
export class AuditMetadataType {
  @Field(() => TierEnum, { nullable: true }) tier?: string;
  @Field(() => TierEnum, { nullable: true }) previousTier?: string;
  @Field(() => String, { nullable: true, description: 'e.g. project_deleted' }) reason?: string;
}

/** One audit-log entry (admin and superadmin only). */
@ObjectType('AuditEntry')
export class AuditEntryType {
  @Field(() => ID) id!: string;
  @Field(() => AuditActionEnum) action!: string;
  @Field(() => ID, { nullable: true }) actorId!: string | null;
  @Field(() => ID) projectId!: string;
  @Field(() => TargetTypeEnum) targetType!: string;
  @Field(() => ID) targetId!: string;
  @Field(() => AuditMetadataType) metadata!: AuditMetadataType;
  @Field({ description: 'ISO timestamp' }) createdAt!: string;
}

export const AuditEntryPage = Page(AuditEntryType, 'AuditEntry');
