import { IsBoolean } from 'class-validator';
import { InputType } from 'type-graphql';
import { DescriptionRule, HexColorRule, NameRule, OptionalField, RequiredField, UserIdsRule } from './input-rules';

@InputType()
export class CreateDepartmentInput {
  @RequiredField(() => String, NameRule())
  name!: string;

  /** Defaults to a neutral slate. */
  @OptionalField(() => String, HexColorRule())
  color?: string;

  /** Defaults to "". */
  @OptionalField(() => String, DescriptionRule())
  description?: string;
}

@InputType()
export class UpdateDepartmentInput {
  @OptionalField(() => String, NameRule())
  name?: string;

  @OptionalField(() => String, HexColorRule())
  color?: string;

  @OptionalField(() => String, DescriptionRule())
  description?: string;
}

/** POST /departments/:id/members. */
@InputType()
export class AddDepartmentMembersInput {
  @RequiredField(() => [String], UserIdsRule())
  userIds!: string[];

  /** Move users who belong to another department instead of answering 409. */
  @OptionalField(() => Boolean, IsBoolean())
  replace?: boolean;
}
