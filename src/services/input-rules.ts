import { Transform } from 'class-transformer';
import { ValidateIf } from 'class-validator';

/**
 * Optional, but never null: an absent field skips validation, while an explicit null still runs
 * the field's rules (and fails them). class-validator's IsOptional would let null through, which a
 * PATCH would then write into a non-nullable column.
 */
export const Optional = (): PropertyDecorator => ValidateIf((_o, v) => v !== undefined);

/** Trims surrounding whitespace from strings before validation (so "  " fails MinLength(1)). */
export const Trim = (): PropertyDecorator => Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));

export const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;
export const HEX_COLOR_MESSAGE = 'color must be a hex colour like #1a2b3c';

export const MIN_PASSWORD = 8;
/** A bound against oversized input only; bcrypt itself reads the first 72 bytes. */
export const MAX_PASSWORD = 1024;
