import { Field, ID, ObjectType } from 'type-graphql';
import { Page, Timestamp } from './common.type';
import { AuditActionEnum, AuditTargetTypeEnum, PlatformRoleEnum, TierEnum, UserStatusEnum } from './enums';

@ObjectType('AuditMetadata')
export class AuditMetadataType {
  @Field(() => TierEnum, { nullable: true }) tier?: string;
  @Field(() => TierEnum, { nullable: true }) previousTier?: string;
  @Field(() => String, { nullable: true, description: 'e.g. project_deleted' }) reason?: string;
  @Field(() => Boolean, { nullable: true, description: 'project_visibility_changed: the new isPrivate; project_created: isPrivate' })
  isPrivate?: boolean;
  @Field(() => Boolean, { nullable: true, description: 'project_visibility_changed: the previous isPrivate' }) previousIsPrivate?: boolean;
  @Field(() => ID, { nullable: true, description: 'project_owner_changed, project_deleted: the previous owner (null: none)' })
  previousOwnerId?: string | null;
  @Field(() => PlatformRoleEnum, { nullable: true, description: 'user_role_changed: the new platform role' }) role?: string;
  @Field(() => PlatformRoleEnum, { nullable: true, description: 'user_role_changed: the previous platform role' }) previousRole?: string;
  @Field(() => UserStatusEnum, { nullable: true, description: 'user_status_changed: the new status' }) status?: string;
  @Field(() => UserStatusEnum, { nullable: true, description: 'user_status_changed: the previous status' }) previousStatus?: string;
  @Field(() => ID, { nullable: true, description: 'group_member_added, group_member_removed: the group' }) groupId?: string;
  @Field(() => ID, { nullable: true, description: 'department_member_added, department_member_removed: the department' })
  departmentId?: string;
  @Field(() => String, { nullable: true, description: "key_created, key_revoked: the key's name" }) name?: string;
  @Field(() => [ID], { nullable: true, description: 'key_created: the projects the key is limited to (null: every project)' })
  projectIds?: string[] | null;
  @Field(() => Boolean, { nullable: true, description: 'key_created: a platform key' }) platform?: boolean;
  @Field(() => String, { nullable: true, description: 'key_created: when the key expires (ISO timestamp, null: never)' })
  expiresAt?: string | null;
  @Field(() => String, { nullable: true, description: 'key_used_from_new_address: the address' }) address?: string;
  @Field(() => ID, { nullable: true, description: "key_revoked: the key's owner" }) ownerId?: string;
  @Field(() => String, {
    nullable: true,
    description: "user_created_by_sso, department_member_added by the provider's claim (reason sso_claim): the provider's issuer",
  })
  issuer?: string;
}

/** One audit-log entry (admin and superadmin only). */
@ObjectType('AuditEntry')
export class AuditEntryType {
  @Field(() => ID) id!: string;
  @Field(() => AuditActionEnum) action!: string;
  @Field(() => ID, { nullable: true }) actorId!: string | null;
  @Field(() => ID, { nullable: true, description: 'null for entries about a user (role, status, memberships)' }) projectId!: string | null;
  @Field(() => AuditTargetTypeEnum) targetType!: string;
  @Field(() => ID) targetId!: string;
  @Field(() => AuditMetadataType) metadata!: AuditMetadataType;
  @Timestamp() createdAt!: string;
  @Field(() => String, { nullable: true, description: "the actor's name now; null for the system or a deleted user" })
  actorName!: string | null;
  @Field(() => String, { nullable: true, description: "the project's name now; null when there is none or it was deleted" })
  projectName!: string | null;
  @Field(() => String, { nullable: true, description: "the target's name now (a key's from the entry); null once deleted" })
  targetName!: string | null;
}

export const AuditEntryPage = Page(AuditEntryType, 'AuditEntry');
