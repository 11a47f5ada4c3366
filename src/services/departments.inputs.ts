import { IsBoolean } from 'class-validator';
import { Field, InputType } from 'type-graphql';
import { DescriptionRule, HexColorRule, NameRule, Optional, rules, UserIdsRule } from './input-rules';

/** The optional fields creation and update share, each declared once (GraphQL type, optional, rules). */
const DepartmentField = {
  color: (): PropertyDecorator =>
    rules(
      Field(() => String, { nullable: true }),
      Optional(),
      HexColorRule(),
    ),
  description: (): PropertyDecorator =>
    rules(
      Field(() => String, { nullable: true }),
      Optional(),
      DescriptionRule(),
    ),
};

@InputType()
export class CreateDepartmentInput {
  @Field()
  @NameRule()
  name!: string;

  /** Defaults to a neutral slate. */
  @DepartmentField.color()
  color?: string;

  /** Defaults to "". */
  @DepartmentField.description()
  description?: string;
}

@InputType()
export class UpdateDepartmentInput {
  @Field({ nullable: true })
  @Optional()
  @NameRule()
  name?: string;

  @DepartmentField.color()
  color?: string;

  @DepartmentField.description()
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
