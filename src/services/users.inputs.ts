import { IsEmail, IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min, MinLength } from 'class-validator';
import { Field, InputType, Int } from 'type-graphql';
import { ORG_POSITIONS, OrgPosition, PLATFORM_ROLES, PlatformRole, USER_STATUSES, UserStatus } from '../entities/base';
import { MAX_PASSWORD, MIN_PASSWORD, NameRule, Optional, rules, Trim } from './input-rules';

export const USERS_DEFAULT_LIMIT = 50;
export const USERS_MAX_LIMIT = 200;

/** GET /users query. `limit` above the maximum is capped (DESIGN §3), not refused. */
@InputType()
export class ListUsersQuery {
  @Field({ nullable: true })
  @Optional()
  @IsString()
  @MaxLength(200)
  search?: string;

  @Field(() => String, { nullable: true })
  @Optional()
  @IsIn([...PLATFORM_ROLES])
  platformRole?: PlatformRole;

  @Field(() => String, { nullable: true })
  @Optional()
  @IsIn([...ORG_POSITIONS])
  orgPosition?: OrgPosition;

  @Field({ nullable: true })
  @Optional()
  @IsUUID('all')
  departmentId?: string;

  /** `active` or `inactive` (the web app's People filter). */
  @Field(() => String, { nullable: true })
  @Optional()
  @IsIn([...USER_STATUSES])
  status?: UserStatus;

  @Field(() => Int, { nullable: true })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  limit?: number;

  @Field(() => Int, { nullable: true })
  @Optional()
  @IsInt()
  @Min(0)
  @Max(2_147_483_647)
  offset?: number;
}

const EmailRule = (): PropertyDecorator => rules(Trim(), IsEmail({}, { message: 'email must be an email address' }), MaxLength(320));
const PasswordRule = (): PropertyDecorator =>
  rules(IsString(), MinLength(MIN_PASSWORD, { message: `password must be at least ${MIN_PASSWORD} characters` }), MaxLength(MAX_PASSWORD));

/**
 * POST /users. `platformRole` accepts `superadmin` at the validation layer so the service can answer
 * the spec's 403 forbidden_role rather than a generic 400.
 */
@InputType()
export class CreateUserInput {
  @Field()
  @EmailRule()
  email!: string;

  @Field()
  @NameRule(200)
  name!: string;

  @Field()
  @PasswordRule()
  password!: string;

  @Field(() => String)
  @IsIn([...PLATFORM_ROLES])
  platformRole!: PlatformRole;

  @Field(() => String)
  @IsIn([...ORG_POSITIONS])
  orgPosition!: OrgPosition;

  /** Omitted (or null) for platform staff and the CEO. */
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsUUID('all')
  departmentId?: string | null;
}

/** PATCH /users/:id: any subset. `departmentId: null` removes the user from their department. */
@InputType()
export class UpdateUserInput {
  @Field({ nullable: true })
  @Optional()
  @EmailRule()
  email?: string;

  @Field({ nullable: true })
  @Optional()
  @NameRule(200)
  name?: string;

  @Field({ nullable: true })
  @Optional()
  @PasswordRule()
  password?: string;

  @Field(() => String, { nullable: true })
  @Optional()
  @IsIn([...PLATFORM_ROLES])
  platformRole?: PlatformRole;

  @Field(() => String, { nullable: true })
  @Optional()
  @IsIn([...ORG_POSITIONS])
  orgPosition?: OrgPosition;

  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsUUID('all')
  departmentId?: string | null;

  @Field(() => String, { nullable: true })
  @Optional()
  @IsIn([...USER_STATUSES])
  status?: UserStatus;
}
