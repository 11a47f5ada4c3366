import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsString, IsUUID, Matches, MaxLength, MinLength } from 'class-validator';
import { Field, InputType } from 'type-graphql';
import { HEX_COLOR, HEX_COLOR_MESSAGE, Optional, Trim } from './input-rules';

@InputType()
export class CreateDepartmentInput {
  @Field()
  @Trim()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name!: string;

  /** Defaults to a neutral slate. */
  @Field({ nullable: true })
  @Optional()
  @IsString()
  @Matches(HEX_COLOR, { message: HEX_COLOR_MESSAGE })
  color?: string;

  /** Defaults to "". */
  @Field({ nullable: true })
  @Optional()
  @IsString()
  @MaxLength(2000)
  description?: string;
}

@InputType()
export class UpdateDepartmentInput {
  @Field({ nullable: true })
  @Optional()
  @Trim()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name?: string;

  @Field({ nullable: true })
  @Optional()
  @IsString()
  @Matches(HEX_COLOR, { message: HEX_COLOR_MESSAGE })
  color?: string;

  @Field({ nullable: true })
  @Optional()
  @IsString()
  @MaxLength(2000)
  description?: string;
}

/** POST /departments/:id/members. */
@InputType()
export class AddDepartmentMembersInput {
  @Field(() => [String])
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @IsUUID('all', { each: true })
  userIds!: string[];

  /** Move users who belong to another department instead of answering 409. */
  @Field({ nullable: true })
  @Optional()
  @IsBoolean()
  replace?: boolean;
}
