import { IsUUID } from 'class-validator';
import { InputType } from 'type-graphql';
import { DescriptionRule, NameRule, OptionalField, RequiredField, UserIdsRule } from './input-rules';

/** GET /groups query. */
@InputType()
export class ListGroupsQuery {
  @OptionalField(() => String, IsUUID('all'))
  departmentId?: string;
}

@InputType()
export class CreateGroupInput {
  @RequiredField(() => String, NameRule())
  name!: string;

  @OptionalField(() => String, DescriptionRule())
  description?: string;

  @RequiredField(() => String, IsUUID('all'))
  departmentId!: string;
}

/** A group's department is fixed at creation: its members must belong to that department. */
@InputType()
export class UpdateGroupInput {
  @OptionalField(() => String, NameRule())
  name?: string;

  @OptionalField(() => String, DescriptionRule())
  description?: string;
}

@InputType()
export class GroupMembersInput {
  @RequiredField(() => [String], UserIdsRule())
  userIds!: string[];
}
