import { Field, ID, ObjectType } from 'type-graphql';
import { FromView } from '../view';
import { DepartmentType } from './department.type';
import { OrgPositionEnum, PlatformRoleEnum, UserStatusEnum } from './enums';
import { Page, Timestamp } from './common.type';

/**
 * A user. Which fields are filled depends on how the caller reached the user (see FromView):
 * the fields beyond id, name and email need the right to read the full user (admin or self).
 */
@ObjectType('User')
export class UserType {
  @Field(() => ID) id!: string;
  @Field() name!: string;
  @Field() email!: string;
  @Field(() => PlatformRoleEnum, { nullable: true }) @FromView() platformRole?: string;
  @Field(() => OrgPositionEnum, { nullable: true }) @FromView() orgPosition?: string;
  @Field(() => String, { nullable: true }) @FromView() departmentId?: string | null;
  @Field(() => DepartmentType, { nullable: true }) @FromView() department?: DepartmentType | null;
  @Field(() => String, { nullable: true }) @FromView() avatarColor?: string;
  @Field(() => String, { nullable: true }) @FromView() avatarUrl?: string | null;
  @Field(() => UserStatusEnum, { nullable: true }) @FromView() status?: string;
  @Timestamp({ nullable: true }) @FromView() lastLoginAt?: string | null;
  @Timestamp({ nullable: true }) @FromView() createdAt?: string | null;
}

export const UserPage = Page(UserType, 'User');
