// The shape of one documented REST operation, and the schema helpers the path tables use.
import type { Schema } from '../../../presenters/schema-builders';

export type Ctor = new () => object;
export type Method = 'get' | 'post' | 'patch' | 'delete';

/** One REST operation as the document describes it. */
export interface Operation {
  method: Method;
  /** Express syntax, under /api (`/projects/:id`). */
  path: string;
  tag: string;
  summary: string;
  /** false for the two public operations (login, refresh). */
  auth?: boolean;
  body?: Ctor | 'multipart';
  /** A body that may be left out entirely (logout). */
  bodyOptional?: boolean;
  query?: Ctor;
  /** Success statuses and the component schema of their body (null: no body). */
  ok: Record<number, Schema | null>;
  /** Error statuses beyond the ones every operation of its kind can answer (see errorStatuses). */
  errors?: number[];
  /** The chat stream (text/event-stream) instead of JSON. */
  stream?: boolean;
}

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const wrap = (key: string, schema: Schema): Schema => ({
  type: 'object',
  properties: { [key]: schema },
  required: [key],
  additionalProperties: false,
});
export const list = (key: string, item: string): Schema => wrap(key, { type: 'array', items: ref(item) });
export const deleted = (): Schema => ref('DeleteResult');
