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
/** A JSON object with exactly these properties, all required. */
export const object = (properties: Record<string, Schema>): Schema => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
export const wrap = (key: string, schema: Schema): Schema => object({ [key]: schema });
export const list = (key: string, item: string): Schema => wrap(key, { type: 'array', items: ref(item) });
/** One page of a list: `{ <key>: [items], total }`, total counting every page. */
export const page = (key: string, item: string): Schema =>
  object({ [key]: { type: 'array', items: ref(item) }, total: { type: 'integer' } });
export const deleted = (): Schema => ref('DeleteResult');

/** What an operation may declare beyond its method, path, tag, summary and success responses. */
export type OperationExtras = Omit<Operation, 'method' | 'path' | 'tag' | 'summary' | 'ok'>;

/**
 * The operations of one tag, one call each with the path, the summary and the success responses
 * first: `users.get('/users/:id', 'One user', { 200: wrap('user', ref('User')) })`. `shared` holds
 * what all of them declare (`{ auth: false }` for the public ones).
 */
export function tagged(tag: string, shared: OperationExtras = {}) {
  const operation =
    (method: Method) =>
    (path: string, summary: string, ok: Operation['ok'], extras: OperationExtras = {}): Operation => ({
      method,
      path,
      tag,
      summary,
      ok,
      ...shared,
      ...extras,
    });
  return { get: operation('get'), post: operation('post'), patch: operation('patch'), delete: operation('delete') };
}

/** One kind's create, read, update and delete, the four routes http/crud-routes.ts declares. */
export interface CrudOperations {
  /** `/groups`: POST there, GET, PATCH and DELETE at `/groups/:id`. */
  path: string;
  /** What creation, reads and updates answer: `wrap('group', ref('Group'))`. */
  answer: Schema;
  create: Ctor;
  update: Ctor;
  /** Error statuses the three writes add (409 where they can conflict). */
  writeErrors?: number[];
  summary: { create: string; get: string; update: string; delete: string };
}

export function crudOperations(operations: ReturnType<typeof tagged>, kind: CrudOperations): Operation[] {
  const { path, answer, summary } = kind;
  const errors = kind.writeErrors ? { errors: kind.writeErrors } : {};
  return [
    operations.post(path, summary.create, { 201: answer }, { body: kind.create, ...errors }),
    operations.get(`${path}/:id`, summary.get, { 200: answer }),
    operations.patch(`${path}/:id`, summary.update, { 200: answer }, { body: kind.update, ...errors }),
    operations.delete(`${path}/:id`, summary.delete, { 200: deleted() }, errors),
  ];
}
