/**
 * The closed sets of values of the domain (roles, tiers, statuses, audit actions). Entities store
 * them, transports expose them as enums: both import them from here, so no transport needs an entity.
 */
export const PLATFORM_ROLES = ['none', 'admin', 'engineer', 'superadmin'] as const;
export type PlatformRole = (typeof PLATFORM_ROLES)[number];
export const ORG_POSITIONS = ['member', 'manager', 'ceo'] as const;
export type OrgPosition = (typeof ORG_POSITIONS)[number];
export const USER_STATUSES = ['active', 'inactive'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];
export const TIERS = ['use', 'edit', 'full'] as const;
export type Tier = (typeof TIERS)[number];
export const TARGET_TYPES = ['user', 'group', 'department'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];
/** What an audit entry is about: a grant's target, or the project itself. */
export const AUDIT_TARGET_TYPES = [...TARGET_TYPES, 'project', 'key'] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];
export const AUDIT_ACTIONS = [
  'grant_created',
  'grant_updated',
  'grant_deleted',
  'project_visibility_changed',
  'project_owner_changed',
  'project_created',
  'project_deleted',
  'user_role_changed',
  'user_status_changed',
  'group_member_added',
  'group_member_removed',
  'department_member_added',
  'department_member_removed',
  'key_created',
  'key_used_from_new_address',
  'key_revoked',
  'user_created_by_sso',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
export const PROVIDER_TYPES = ['official', 'custom'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];
export const DOCUMENT_STATUSES = ['queued', 'processing', 'ready', 'failed'] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];
export const MESSAGE_ROLES = ['user', 'assistant'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];

/** A person's opinion of an answer (POST /chat/messages/:messageId/feedback). */
export const FEEDBACK_RATINGS = ['up', 'down'] as const;
export type FeedbackRating = (typeof FEEDBACK_RATINGS)[number];
