import { IsBoolean } from 'class-validator';
import { Field, InputType } from 'type-graphql';
import { DescriptionRule, HexColorRule, NameRule, Optional, UserIdsRule } from './input-rules';

/** What a department's creation and its update both accept, optional (after `name`, as errors always listed them). */
@InputType()
abstract class DepartmentLooks {
  /** Defaults to a neutral slate on creation. */
  @Field({ nullable: true })
  @Optional()
  @HexColorRule()
  color?: string;

  /** Defaults to "" on creation. */
  @Field({ nullable: true })
  @Optional()
  @DescriptionRule()
  description?: string;
}

@InputType()
export class CreateDepartmentInput extends DepartmentLooks {
  @Field()
  @NameRule()
  name!: string;
}

@InputType()
export class UpdateDepartmentInput extends DepartmentLooks {
  @Field({ nullable: true })
  @Optional()
  @NameRule()
  name?: string;
}

/** POST /departments/:id/members. */
@InputType()
export class AddDepartmentMembersInput {
  @Field(() => [String])
  @UserIdsRule()
  userIds!: string[];

  /** Move users who belong to another department instead of answering 409. */
  @Field({ nullable: true })
  @Optional()
  @IsBoolean()
  replace?: boolean;
}
