import { Field, ID, ObjectType } from 'type-graphql';
import { Timestamp } from './common.type';
import { DepartmentType } from './department.type';
import { TierEnum } from './enums';
import { GroupType } from './group.type';
import { ProjectType } from './project.type';
import { UserType } from './user.type';

/** A grant: exactly one of user, group, department is its target (the other two are null). */
@ObjectType('ProjectGrant')
export class ProjectGrantType {
  @Field(() => ID) id!: string;
  @Field(() => ID) projectId!: string;
  @Field(() => ID, { nullable: true }) userId!: string | null;
  @Field(() => ID, { nullable: true }) groupId!: string | null;
  @Field(() => ID, { nullable: true }) departmentId!: string | null;
  @Field(() => TierEnum) tier!: string;
  @Field(() => ID, { nullable: true }) grantedById!: string | null;
  @Timestamp() createdAt!: string;
  @Timestamp() updatedAt!: string;
  @Field(() => UserType, { nullable: true }) user!: UserType | null;
  @Field(() => GroupType, { nullable: true }) group!: GroupType | null;
  @Field(() => DepartmentType, { nullable: true }) department!: DepartmentType | null;
}

@ObjectType('GrantResult')
export class GrantResultType {
  @Field(() => ProjectGrantType) grant!: ProjectGrantType;
  @Field({ description: '`created` or `updated` (the upsert never conflicts)' }) action!: string;
}

/** One grant reaching a user (GET /grants/by-user). */
@ObjectType('UserGrant')
export class UserGrantType {
  @Field(() => ID) grantId!: string;
  @Field(() => ID) projectId!: string;
  @Field(() => TierEnum) tier!: string;
  @Field(() => ProjectType) project!: ProjectType;
  @Field(() => GroupType, { nullable: true, description: 'set in viaGroup' }) group?: GroupType;
  @Field(() => DepartmentType, { nullable: true, description: 'set in viaDepartment' }) department?: DepartmentType;
}

@ObjectType('GrantsByUser')
export class GrantsByUserType {
  @Field(() => [UserGrantType]) direct!: UserGrantType[];
  @Field(() => [UserGrantType]) viaGroup!: UserGrantType[];
  @Field(() => [UserGrantType]) viaDepartment!: UserGrantType[];
}
