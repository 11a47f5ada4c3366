import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsISO8601, IsOptional, IsUUID } from 'class-validator';
import { Field, ID, InputType } from 'type-graphql';
import { Tier, TIERS } from '../entities/base';
import { NameRule } from './input-rules';

/** Projects one key may be limited to. */
export const MAX_KEY_PROJECTS = 100;

/** POST /keys: a key for programs, owned by the caller. */
@InputType()
export class CreateKeyInput {
  @Field(() => String)
  @NameRule()
  name!: string;

  /** Limits the key to these projects (absent: every project its owner reaches). */
  @Field(() => [ID], { nullable: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_KEY_PROJECTS)
  @IsUUID('all', { each: true })
  projectIds?: string[];

  /** The highest tier the key may use (default `full`: its owner's tier). */
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsIn(TIERS)
  tier?: Tier;

  /** When the key stops working (ISO 8601, in the future). */
  @Field(() => String, { nullable: true })
  @IsOptional()
  @IsISO8601({ strict: true })
  expiresAt?: string;

  /** Admins only: the key keeps its owner's platform role (without it a key passes no platform-role gate). */
  @Field(() => Boolean, { nullable: true })
  @IsOptional()
  @IsBoolean()
  platform?: boolean;
}

/** GET /keys: the caller's keys, or (admins) another user's. */
@InputType()
export class ListKeysQuery {
  @Field(() => ID, { nullable: true })
  @IsOptional()
  @IsUUID('all')
  userId?: string;
}
