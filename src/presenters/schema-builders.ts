/** Small builders of JSON Schemas (OpenAPI 3.1 / JSON Schema 2020-12) for presenters/schemas.ts. */
export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const str: Schema = { type: 'string' };
export const int: Schema = { type: 'integer' };
export const num: Schema = { type: 'number' };
export const bool: Schema = { type: 'boolean' };
export const uuid: Schema = { type: 'string', format: 'uuid' };
export const dateTime: Schema = { type: 'string', format: 'date-time' };
export const nullable = (s: Schema): Schema =>
  typeof s.type === 'string' ? { ...s, type: [s.type, 'null'] } : { oneOf: [s, { type: 'null' }] };
export const arrayOf = (items: Schema): Schema => ({ type: 'array', items });
export const enumOf = (...values: string[]): Schema => ({ type: 'string', enum: values });

/** A closed object: every property required except those named in `optional`. */
export function obj(properties: Record<string, Schema>, optional: string[] = []): Schema {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    additionalProperties: false,
  };
}
