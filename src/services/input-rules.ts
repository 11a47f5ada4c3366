import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { Field } from 'type-graphql';

/**
 * Optional, but never null: an absent field skips validation, while an explicit null still runs
 * the field's rules (and fails them). class-validator's IsOptional would let null through, which a
 * PATCH would then write into a non-nullable column.
 */
export const Optional = (): PropertyDecorator => ValidateIf((_o, v) => v !== undefined);

/** Trims surrounding whitespace from strings before validation (so "  " fails MinLength(1)). */
export const Trim = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/** The one colour rule: `#rgb` or `#rrggbb` (projects accepted the short form from the start). */
export const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
export const HEX_COLOR_MESSAGE = 'color must be a hex colour like #1a2b3c';

export const MIN_PASSWORD = 8;
/** A bound against oversized input only; bcrypt itself reads the first 72 bytes. */
export const MAX_PASSWORD = 1024;

/**
 * Several rules as one decorator, applied in the order TypeScript applies a written stack
 * (bottom-up), so validation behaves exactly as if the rules were listed at the field.
 */
export const rules =
  (...decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, key) => {
    for (const d of [...decorators].reverse()) d(target, key);
  };

/** A display name: trimmed, non-empty, bounded. */
export const NameRule = (max = 100): PropertyDecorator => rules(Trim(), IsString(), MinLength(1), MaxLength(max));

/** A free-text description. */
export const DescriptionRule = (): PropertyDecorator => rules(IsString(), MaxLength(2000));

/** A `#rgb` or `#rrggbb` colour. */
export const HexColorRule = (): PropertyDecorator => rules(IsString(), Matches(HEX_COLOR, { message: HEX_COLOR_MESSAGE }));

/** A list of user ids for a membership change (1–500 uuids). */
export const UserIdsRule = (): PropertyDecorator => rules(IsArray(), ArrayMinSize(1), ArrayMaxSize(500), IsUUID('all', { each: true }));

/** A field's GraphQL type, as type-graphql's Field takes it (`() => String`, `() => [ID]`). */
type FieldType = NonNullable<Parameters<typeof Field>[0]>;

/** A required field: its GraphQL type and its rules as one decorator. */
export const RequiredField = (type: FieldType, ...checks: PropertyDecorator[]): PropertyDecorator => rules(Field(type), ...checks);

/** An optional field that refuses null (Optional): its nullable GraphQL type and its rules as one decorator. */
export const OptionalField = (type: FieldType, ...checks: PropertyDecorator[]): PropertyDecorator =>
  rules(Field(type, { nullable: true }), Optional(), ...checks);

/** An optional field for which null too skips the rules (IsOptional): a null that clears a value, or a query filter. */
export const NullableField = (type: FieldType, ...checks: PropertyDecorator[]): PropertyDecorator =>
  rules(Field(type, { nullable: true }), IsOptional(), ...checks);
