import { IsIn, IsUUID } from 'class-validator';
import { Field, ID, InputType } from 'type-graphql';
import { TARGET_TYPES, TargetType, Tier, TIERS } from '../entities/base';

/** POST /projects/:projectId/grants — an upsert keyed on (project, target). */
@InputType()
export class UpsertGrantInput {
  @Field(() => String)
  @IsIn(TARGET_TYPES)
  targetType!: TargetType;

  @Field(() => ID)
  @IsUUID('all')
  targetId!: string;

  @Field(() => String)
  @IsIn(TIERS)
  tier!: Tier;
}
