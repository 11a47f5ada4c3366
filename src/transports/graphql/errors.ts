import { GraphQLError, GraphQLFormattedError } from 'graphql';
import type { Logger } from '../../logger';
import { toHttpError } from '../http/errors';

/** Codes our own GraphQL errors carry (limits), passed through unchanged. */
export const OWN_CODES = new Set(['query_too_deep', 'query_too_costly', 'query_too_complex']);
/** Codes of the persisted-query protocol (APQ), which clients act on by name: passed through too. */
const PROTOCOL_CODES = new Set(['PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_SUPPORTED']);

function originalOf(error: unknown): unknown {
  let e = error;
  // resolver errors arrive wrapped (possibly twice: by graphql-js, then by Apollo)
  while (e instanceof GraphQLError && e.originalError) e = e.originalError;
  return e;
}

/**
 * Maps one GraphQL error to the wire, once for HTTP and WebSocket alike: domain errors carry the REST
 * code in `extensions.code` (and `details` for validation), errors in the query itself are
 * `validation_failed`, and anything unknown becomes `internal_error` with no message or stack.
 */
export function formatGraphqlError(formatted: GraphQLFormattedError, error: unknown, logger: Logger): GraphQLFormattedError {
  const base = { locations: formatted.locations, path: formatted.path };
  const original = originalOf(error);
  if (original instanceof GraphQLError) {
    const code = original.extensions?.code;
    if (typeof code === 'string' && PROTOCOL_CODES.has(code)) return { message: original.message, ...base, extensions: { code } };
    if (typeof code === 'string' && OWN_CODES.has(code)) {
      return {
        message: original.message,
        ...base,
        extensions: {
          code,
          ...(original.extensions.limit !== undefined ? { limit: original.extensions.limit, actual: original.extensions.actual } : {}),
        },
      };
    }
    // syntax errors, unknown fields, wrong variable types: the request itself is malformed
    return { message: original.message, ...base, extensions: { code: 'validation_failed' } };
  }
  const mapped = toHttpError(original);
  if (mapped) {
    if (mapped.status >= 500) logger.warn({ err: original }, 'graphql operation failed');
    const extensions: Record<string, unknown> = { code: mapped.body.error, status: mapped.status };
    if (mapped.body.details) extensions.details = mapped.body.details;
    return { message: mapped.body.message ?? mapped.body.error, ...base, extensions };
  }
  logger.error({ err: original }, 'unhandled graphql error');
  return { message: 'Internal error', ...base, extensions: { code: 'internal_error', status: 500 } };
}

/** Formats the errors of an execution result (graphql-ws results bypass Apollo's formatError). */
export function formatErrors(errors: readonly GraphQLError[], logger: Logger): GraphQLFormattedError[] {
  return errors.map((e) => formatGraphqlError(e.toJSON(), e, logger));
}
