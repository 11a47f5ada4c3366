import { IsInt, Max, Min } from 'class-validator';
import { Int } from 'type-graphql';
import { OptionalField } from './input-rules';

/** The paging fields of list queries (GET query strings and GraphQL arguments). */

/** A page's `limit` (1 to `max`); `field` says whether null is refused (OptionalField) or taken as absent (NullableField). */
export const LimitField = (max: number, field = OptionalField): PropertyDecorator => field(() => Int, IsInt(), Min(1), Max(max));

/** A page's `offset` (0 up, at most `max` when given). */
export const OffsetField = (max?: number, field = OptionalField): PropertyDecorator =>
  field(() => Int, IsInt(), Min(0), ...(max === undefined ? [] : [Max(max)]));
