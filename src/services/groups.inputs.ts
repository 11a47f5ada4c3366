import { IsUUID } from 'class-validator';
import { Field, InputType } from 'type-graphql';
import { DescriptionRule, NameRule, Optional, UserIdsRule } from './input-rules';

/** GET /groups query. */
@InputType()
export class ListGroupsQuery {
  @Field({ nullable: true })
  @Optional()
  @IsUUID('all')
  departmentId?: string;
}

@InputType()
export class CreateGroupInput {
  @Field()
  @NameRule()
  name!: string;

  @Field({ nullable: true })
  @Optional()
  @DescriptionRule()
  description?: string;

  @Field()
  @IsUUID('all')
  departmentId!: string;
}

/** A group's department is fixed at creation: its members must belong to that department. */
@InputType()
export class UpdateGroupInput {
  @Field({ nullable: true })
  @Optional()
  @NameRule()
  name?: string;

  @Field({ nullable: true })
  @Optional()
  @DescriptionRule()
  description?: string;
}

@InputType()
export class GroupMembersInput {
  @Field(() => [String])
  @UserIdsRule()
  userIds!: string[];
}
