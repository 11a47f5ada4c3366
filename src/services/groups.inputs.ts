import { ArrayMaxSize, ArrayMinSize, IsArray, IsString, IsUUID, MaxLength, MinLength } from 'class-validator';
import { Field, InputType } from 'type-graphql';
import { Optional, Trim } from './input-rules';

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
  @Trim()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name!: string;

  @Field({ nullable: true })
  @Optional()
  @IsString()
  @MaxLength(2000)
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
  @Trim()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name?: string;

  @Field({ nullable: true })
  @Optional()
  @IsString()
  @MaxLength(2000)
  description?: string;
}

@InputType()
export class GroupMembersInput {
  @Field(() => [String])
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @IsUUID('all', { each: true })
  userIds!: string[];
}
