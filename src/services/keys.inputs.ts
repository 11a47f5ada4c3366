import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsISO8601, IsUUID } from 'class-validator';
import { ID, InputType } from 'type-graphql';
import { Tier, TIERS } from '../entities/base';
import { NameRule, NullableField, RequiredField } from './input-rules';

/** Projects one key may be limited to. */
export const MAX_KEY_PROJECTS = 100;

/** POST /keys: a key for programs, owned by the caller. */
@InputType()
export class CreateKeyInput {
  @RequiredField(() => String, NameRule())
  name!: string;

  /** Limits the key to these projects (absent: every project its owner reaches). */
  @NullableField(() => [ID], IsArray(), ArrayMaxSize(MAX_KEY_PROJECTS), IsUUID('all', { each: true }))
  projectIds?: string[];

  /** The highest tier the key may use (default `full`: its owner's tier). */
  @NullableField(() => String, IsIn(TIERS))
  tier?: Tier;

  /** When the key stops working (ISO 8601, in the future). */
  @NullableField(() => String, IsISO8601({ strict: true }))
  expiresAt?: string;

  /** Admins only: the key keeps its owner's platform role (without it a key passes no platform-role gate). */
  @NullableField(() => Boolean, IsBoolean())
  platform?: boolean;
}

/** GET /keys: the caller's keys, or (admins) another user's. */
@InputType()
export class ListKeysQuery {
  @NullableField(() => ID, IsUUID('all'))
  userId?: string;
}
