import { Field, ID, Int, ObjectType } from 'type-graphql';
import { FromView } from '../view';
import { Page, Timestamp } from './common.type';

/** REST's department `_count`. */
@ObjectType('DepartmentCounts')
export class DepartmentCountsType {
  @Field(() => Int) members!: number;
  @Field(() => Int) groups!: number;
  @Field(() => Int) grants!: number;
}

/**
 * A department. A grant's group shows only its department's name (as REST does), so even `id`
 * needs the right to read the group or department; callers without it get a `forbidden` error.
 */
@ObjectType('Department')
export class DepartmentType {
  @Field(() => ID) @FromView() id!: string;
  @Field() name!: string;
  @Field(() => String, { nullable: true }) @FromView() color?: string;
  @Field(() => String, { nullable: true }) @FromView() description?: string;
  @Timestamp({ nullable: true }) @FromView() createdAt?: string;
}

export const DepartmentPage = Page(DepartmentType, 'Department');
