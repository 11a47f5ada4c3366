import { IsEmail, IsIn, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { InputType } from 'type-graphql';
import { ORG_POSITIONS, OrgPosition, PLATFORM_ROLES, PlatformRole, USER_STATUSES, UserStatus } from '../entities/base';
import { MAX_PASSWORD, MIN_PASSWORD, NameRule, NullableField, OptionalField, RequiredField, rules, Trim } from './input-rules';
import { LimitField, OffsetField } from './paging.inputs';

export const USERS_DEFAULT_LIMIT = 50;
export const USERS_MAX_LIMIT = 200;

const EmailRule = (): PropertyDecorator => rules(Trim(), IsEmail({}, { message: 'email must be an email address' }), MaxLength(320));
const PasswordRule = (): PropertyDecorator =>
  rules(IsString(), MinLength(MIN_PASSWORD, { message: `password must be at least ${MIN_PASSWORD} characters` }), MaxLength(MAX_PASSWORD));
const PlatformRoleRule = (): PropertyDecorator => IsIn([...PLATFORM_ROLES]);
const OrgPositionRule = (): PropertyDecorator => IsIn([...ORG_POSITIONS]);
const StatusRule = (): PropertyDecorator => IsIn([...USER_STATUSES]);

/** GET /users query. `limit` above the maximum is capped (DESIGN §3), not refused. */
@InputType()
export class ListUsersQuery {
  @OptionalField(() => String, IsString(), MaxLength(200))
  search?: string;

  @OptionalField(() => String, PlatformRoleRule())
  platformRole?: PlatformRole;

  @OptionalField(() => String, OrgPositionRule())
  orgPosition?: OrgPosition;

  @OptionalField(() => String, IsUUID('all'))
  departmentId?: string;

  /** `active` or `inactive` (the web app's People filter). */
  @OptionalField(() => String, StatusRule())
  status?: UserStatus;

  @LimitField(2_147_483_647)
  limit?: number;

  @OffsetField(2_147_483_647)
  offset?: number;
}

/**
 * POST /users. `platformRole` accepts `superadmin` at the validation layer so the service can answer
 * the spec's 403 forbidden_role rather than a generic 400.
 */
@InputType()
export class CreateUserInput {
  @RequiredField(() => String, EmailRule())
  email!: string;

  @RequiredField(() => String, NameRule(200))
  name!: string;

  @RequiredField(() => String, PasswordRule())
  password!: string;

  @RequiredField(() => String, PlatformRoleRule())
  platformRole!: PlatformRole;

  @RequiredField(() => String, OrgPositionRule())
  orgPosition!: OrgPosition;

  /** Omitted (or null) for platform staff and the CEO. */
  @NullableField(() => String, IsUUID('all'))
  departmentId?: string | null;
}

/** PATCH /users/:id: any subset. `departmentId: null` removes the user from their department. */
@InputType()
export class UpdateUserInput {
  @OptionalField(() => String, EmailRule())
  email?: string;

  @OptionalField(() => String, NameRule(200))
  name?: string;

  @OptionalField(() => String, PasswordRule())
  password?: string;

  @OptionalField(() => String, PlatformRoleRule())
  platformRole?: PlatformRole;

  @OptionalField(() => String, OrgPositionRule())
  orgPosition?: OrgPosition;

  @NullableField(() => String, IsUUID('all'))
  departmentId?: string | null;

  @OptionalField(() => String, StatusRule())
  status?: UserStatus;
}
