import { IsBoolean } from 'class-validator';
import { Field, InputType } from 'type-graphql';
import { DescriptionRule, HexColorRule, NameRule, Optional, UserIdsRule } from './input-rules';

@InputType()
export class CreateDepartmentInput {
  @Field()
  @NameRule()
  name!: string;

  /** Defaults to a neutral slate. */
  @Field({ nullable: true })
  @Optional()
  @HexColorRule()
  color?: string;

  /** Defaults to "". */
  @Field({ nullable: true })
  @Optional()
  @DescriptionRule()
  description?: string;
}

@InputType()
export class UpdateDepartmentInput {
  @Field({ nullable: true })
  @Optional()
  @NameRule()
  name?: string;

  @Field({ nullable: true })
  @Optional()
  @HexColorRule()
  color?: string;

  @Field({ nullable: true })
  @Optional()
  @DescriptionRule()
  description?: string;
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
