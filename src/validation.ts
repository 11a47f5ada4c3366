import { plainToInstance } from 'class-transformer';
import { validate, ValidationError as CvError } from 'class-validator';
import { FieldError, ValidationError } from './errors';

type Ctor<T> = new () => T;

function flatten(errors: CvError[], prefix = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints) {
      for (const [key, message] of Object.entries(e.constraints)) {
        out.push({ field, message: key === 'whitelistValidation' ? `${field} is not an allowed field` : message });
      }
    }
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The path of the first `__proto__`, `constructor` or `prototype` key anywhere in a value, or null.
 * class-transformer drops such keys silently (so the unknown-field rule never saw them); they are
 * refused like any other unknown field instead. Iterative, so deep nesting cannot overflow the stack.
 */
function prototypeKey(value: unknown): string | null {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    for (const k of Object.keys(v)) {
      const at = path ? `${path}.${k}` : k;
      if (PROTOTYPE_KEYS.has(k)) return at;
      stack.push([(v as Record<string, unknown>)[k], at]);
    }
  }
  return null;
}

/**
 * Validates a request body (REST JSON or GraphQL input) against an input class: wrong types,
 * missing required fields and unknown fields all become 400 validation_failed.
 */
export async function parse<T extends object>(cls: Ctor<T>, body: unknown): Promise<T> {
  if (body === undefined || body === null) body = {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw ValidationError.field('body', 'body must be a JSON object');
  }
  const hostile = prototypeKey(body);
  if (hostile) throw ValidationError.field(hostile, `${hostile} is not an allowed field`);
  // no implicit conversion: "5" is not a number and 5 is not a string
  let instance: T;
  try {
    instance = plainToInstance(cls, body, { enableImplicitConversion: false, exposeDefaultValues: true });
  } catch {
    // class-transformer throws on hostile shapes, e.g. {"email": {"constructor": "x"}}: bad input, not a 500
    throw ValidationError.field('body', 'body contains a malformed value');
  }
  const errors = await validate(instance as object, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
  });
  if (errors.length) {
    const details = flatten(errors);
    throw new ValidationError(details, details[0]?.message ?? 'Request validation failed');
  }
  return instance;
}

/** Query strings arrive as strings: convert declared numeric/boolean fields, then validate. */
export async function parseQuery<T extends object>(
  cls: Ctor<T>,
  query: unknown,
  numeric: string[] = [],
  booleans: string[] = [],
): Promise<T> {
  const q: Record<string, unknown> = {};
  for (const [k, v] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (PROTOTYPE_KEYS.has(k)) throw ValidationError.field(k, `${k} is not an allowed field`);
    if (Array.isArray(v)) throw ValidationError.field(k, `${k} must be given once`);
    if (typeof v !== 'string') throw ValidationError.field(k, `${k} is malformed`);
    if (numeric.includes(k)) {
      if (!/^-?\d+$/.test(v)) throw ValidationError.field(k, `${k} must be an integer`);
      q[k] = Number(v);
    } else if (booleans.includes(k)) {
      if (!/^(true|false)$/.test(v)) throw ValidationError.field(k, `${k} must be true or false`);
      q[k] = v === 'true';
    } else q[k] = v;
  }
  return parse(cls, q);
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: unknown): s is string => typeof s === 'string' && UUID_RE.test(s);
