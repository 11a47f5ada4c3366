import { Field, ID, ObjectType } from 'type-graphql';
import { UserType } from './user.type';

@ObjectType('TokenPair')
export class TokenPairType {
  @Field() accessToken!: string;
  @Field() refreshToken!: string;
}

/** login: the user (login view) and a token pair. */
@ObjectType('LoginPayload')
export class LoginPayloadType extends TokenPairType {
  @Field(() => UserType) user!: UserType;
}

@ObjectType('DepartmentScope', { description: 'Departments an action reaches: every one, else those listed' })
export class DepartmentScopeType {
  @Field() all!: boolean;
  @Field(() => [ID]) departmentIds!: string[];
}

@ObjectType('DepartmentCapabilities')
export class DepartmentCapabilitiesType {
  @Field(() => DepartmentScopeType) read!: DepartmentScopeType;
  @Field() create!: boolean;
  @Field() delete!: boolean;
  @Field() addMembers!: boolean;
  @Field(() => DepartmentScopeType) edit!: DepartmentScopeType;
  @Field(() => DepartmentScopeType) removeMembers!: DepartmentScopeType;
}

@ObjectType('GroupCapabilities')
export class GroupCapabilitiesType {
  @Field(() => DepartmentScopeType) read!: DepartmentScopeType;
  @Field(() => DepartmentScopeType, { description: "create, rename, delete and change the members of the department's groups" })
  edit!: DepartmentScopeType;
}

@ObjectType('Capabilities', { description: 'What the caller may do in the organisation, from the same rules the server applies' })
export class CapabilitiesType {
  @Field() manageUsers!: boolean;
  @Field() changePlatformRoles!: boolean;
  @Field() createProjects!: boolean;
  @Field() readAuditLog!: boolean;
  @Field() listFeedback!: boolean;
  @Field() manageProviders!: boolean;
  @Field(() => DepartmentCapabilitiesType) departments!: DepartmentCapabilitiesType;
  @Field(() => GroupCapabilitiesType) groups!: GroupCapabilitiesType;
}
