/**
 * Typed domain errors with stable codes. Services throw these; each transport maps them once
 * (REST: transports/http/errors.ts, GraphQL: extensions.code). No transport knowledge here.
 */
export type ErrorKind =
  | 'validation'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable'
  | 'bad_gateway';

export interface FieldError {
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message?: string,
    readonly details?: FieldError[],
    /** Seconds a client should wait (rate limits). */
    readonly retryAfter?: number,
  ) {
    super(message ?? code);
    this.name = new.target.name;
  }
  /** True when a message beyond the code was given. */
  get hasMessage(): boolean {
    return this.message !== this.code;
  }
}

export class ValidationError extends AppError {
  constructor(details: FieldError[], message = 'Request validation failed') {
    super('validation', 'validation_failed', message, details);
  }
  static field(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }], message);
  }
}

/** A 400 with a spec-given code (e.g. department_not_found). */
export class BadRequestError extends AppError {
  constructor(code: string, message?: string) {
    super('validation', code, message);
  }
}

export class UnauthorizedError extends AppError {
  constructor(code = 'unauthorized', message?: string) {
    super('unauthorized', code, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(code = 'forbidden', message?: string) {
    super('forbidden', code, message);
  }
}

export class NotFoundError extends AppError {
  constructor(code = 'not_found', message?: string) {
    super('not_found', code, message);
  }
}

export class ConflictError extends AppError {
  constructor(code: string, message?: string) {
    super('conflict', code, message);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(message?: string) {
    super('payload_too_large', 'payload_too_large', message);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(message?: string) {
    super('unsupported_media_type', 'unsupported_media_type', message);
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number, message = 'Too many attempts, try again later') {
    super('rate_limited', 'rate_limited', message, undefined, retryAfterSeconds);
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(code = 'unavailable', message?: string) {
    super('unavailable', code, message);
  }
}

export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  bad_gateway: 502,
};

/** Maps database errors that bad input can cause to domain errors; anything else is rethrown as-is. */
export function fromDbError(e: unknown): unknown {
  const err = e as { code?: string; constraint?: string; detail?: string };
  switch (err?.code) {
    case '22P02': // invalid_text_representation (e.g. a malformed uuid)
    case '22007':
    case '22008':
      return new NotFoundError();
    case '23505':
      return new ConflictError(uniqueCode(err.constraint), err.constraint ? `conflicts with ${err.constraint}` : undefined);
    case '23503':
      return new ConflictError('in_use', 'still referenced by other records');
    case '23514':
      return ValidationError.field(err.constraint ?? 'body', 'violates a database constraint');
    default:
      return e;
  }
}

function uniqueCode(constraint?: string): string {
  switch (constraint) {
    case 'users_email_unique':
      return 'email_exists';
    case 'users_single_ceo':
      return 'ceo_exists';
    case 'users_single_superadmin':
      return 'superadmin_exists';
    case 'departments_name_unique':
      return 'department_name_exists';
    case 'providers_slug_unique':
      return 'slug_exists';
    case 'groups_department_name_unique':
      return 'group_name_exists';
    default:
      return 'conflict';
  }
}
