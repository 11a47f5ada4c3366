import { registerEnumType } from 'type-graphql';
import {
  AUDIT_ACTIONS,
  AUDIT_TARGET_TYPES,
  DOCUMENT_STATUSES,
  MESSAGE_ROLES,
  ORG_POSITIONS,
  PLATFORM_ROLES,
  PROVIDER_TYPES,
  TARGET_TYPES,
  TIERS,
  USER_STATUSES,
} from '../../../domain/values';

/** GraphQL enums whose values are the REST strings themselves, so both transports answer alike. */
function enumOf<T extends readonly string[]>(values: T, name: string, description: string): Record<T[number], T[number]> {
  const e = Object.fromEntries(values.map((v) => [v, v])) as Record<T[number], T[number]>;
  registerEnumType(e, { name, description });
  return e;
}

export const PlatformRoleEnum = enumOf(PLATFORM_ROLES, 'PlatformRole', "A user's platform role");
export const OrgPositionEnum = enumOf(ORG_POSITIONS, 'OrgPosition', "A user's position in the organisation");
export const UserStatusEnum = enumOf(USER_STATUSES, 'UserStatus', 'Inactive users cannot log in');
export const TierEnum = enumOf(TIERS, 'Tier', 'Project access tier: use < edit < full');
export const AccessSourceEnum = enumOf(
  ['platform', 'owner', 'user', 'group', 'department', 'public'] as const,
  'AccessSource',
  'Why the caller holds their tier',
);
export const TargetTypeEnum = enumOf(TARGET_TYPES, 'GrantTargetType', 'What a grant targets');
export const AuditTargetTypeEnum = enumOf(
  AUDIT_TARGET_TYPES,
  'AuditTargetType',
  'What an audit entry is about: a grant target, or the project',
);
export const AuditActionEnum = enumOf(AUDIT_ACTIONS, 'AuditAction', 'Audit log actions');
export const ProviderTypeEnum = enumOf(PROVIDER_TYPES, 'ProviderType', 'Provider kind');
export const DocumentStatusEnum = enumOf(DOCUMENT_STATUSES, 'DocumentStatus', 'Ingestion status');
export const MessageRoleEnum = enumOf(MESSAGE_ROLES, 'MessageRole', 'Who wrote a message');
