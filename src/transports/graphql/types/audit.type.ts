import { Field, ID, ObjectType } from 'type-graphql';
import { Page } from './common.type';
import { AuditActionEnum, TargetTypeEnum, TierEnum } from './enums';

@ObjectType('AuditMetadata')
export class AuditMetadataType {
  @Field(() => TierEnum, { nullable: true }) tier?: string;
  @Field(() => TierEnum, { nullable: true }) previousTier?: string;
  @Field(() => String, { nullable: true, description: 'e.g. project_deleted' }) reason?: string;
  @Field(() => Boolean, { nullable: true, description: 'project_visibility_changed: the new isPrivate' }) isPrivate?: boolean;
  @Field(() => Boolean, { nullable: true, description: 'project_visibility_changed: the previous isPrivate' }) previousIsPrivate?: boolean;
  @Field(() => ID, { nullable: true, description: 'project_owner_changed: the previous owner (null: none)' }) previousOwnerId?:
    string | null;
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
