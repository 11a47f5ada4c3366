import { Field, ID, Int, ObjectType } from 'type-graphql';
import { FromView } from '../view';
import { Page, Timestamp } from './common.type';
import { DepartmentType } from './department.type';

/** A group of one department's users (DESIGN §4). */
@ObjectType('Group')
export class GroupType {
  @Field(() => ID) id!: string;
  @Field() name!: string;
  @Field(() => String, { nullable: true }) @FromView() description?: string;
  @Field(() => String, { nullable: true }) @FromView() departmentId?: string;
  @Field(() => DepartmentType, { nullable: true }) @FromView() department?: DepartmentType;
  @Field(() => Int, { nullable: true }) @FromView() memberCount?: number;
  @Timestamp({ nullable: true }) @FromView() createdAt?: string;
}

export const GroupPage = Page(GroupType, 'Group');
