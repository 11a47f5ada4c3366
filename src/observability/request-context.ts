import type { NextFunction, Request, Response } from 'express';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger';

/**
 * Request correlation. Each request runs in an async scope holding its id (and the caller's W3C
 * trace context, when one came in); code anywhere below — services, the chat stream, GraphQL
 * resolvers — logs through `scopedLogger()` and so carries the id without being handed a logger.
 * Ingestion jobs carry the id of the request that queued them and run in a scope of their own.
 */
export interface LogScope {
  requestId?: string;
  traceId?: string;
  /** A pino child logger bound to the ids (built on first use: most requests log one line). */
  readonly logger: Logger;
}

const storage = new AsyncLocalStorage<LogScope>();

/** A scope whose child logger binds `reqId` (when there is one) and any `extra` bindings (trace ids, a job's id). */
export function makeScope(base: Logger, requestId: string | undefined, extra: Record<string, unknown> = {}): LogScope {
  let child: Logger | undefined;
  return {
    requestId,
    traceId: typeof extra.traceId === 'string' ? extra.traceId : undefined,
    get logger() {
      return (child ??= base.child(requestId === undefined ? extra : { reqId: requestId, ...extra }));
    },
  };
}

/** Runs `fn` in `scope`: every log line below it carries the scope's ids. */
export function runInScope<T>(scope: LogScope, fn: () => T): T {
  return storage.run(scope, fn);
}

/** The logger of the current request or job, else `fallback`. */
export function scopedLogger(fallback: Logger): Logger {
  return storage.getStore()?.logger ?? fallback;
}

/** The current request's id (e.g. to carry it into a job it queues), or undefined outside one. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** An incoming X-Request-Id is kept when it is short and plain; anything else gets a fresh UUID. */
const REQUEST_ID = /^[\w.:-]{1,100}$/;

export interface TraceContext {
  traceId: string;
  parentId: string;
  flags: string;
}

/**
 * A W3C Trace Context `traceparent` header (https://www.w3.org/TR/trace-context/#traceparent-header),
 * or null when it is malformed: version 2 hex digits (not `ff`; version 00 has exactly four
 * fields, later versions may append more), a 32-hex trace id and a 16-hex parent id (neither all
 * zeros), 2 hex flags. Lowercase only, as the specification requires.
 */
export function parseTraceparent(header: unknown): TraceContext | null {
  if (typeof header !== 'string' || header.length > 512) return null;
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/.exec(header.trim());
  if (!m) return null;
  const [, version, traceId, parentId, flags, rest] = m;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return null;
  if (/^0+$/.test(traceId) || /^0+$/.test(parentId)) return null;
  return { traceId, parentId, flags };
}

declare module 'express-serve-static-core' {
  interface Request {
    /** The request's child logger (bound to its id and trace context). */
    log: Logger;
  }
}

/**
 * First middleware: gives the request its id (a sane incoming `X-Request-Id`, else a UUID),
 * answers it as `X-Request-Id`, validates an incoming `traceparent`, and runs the rest of the
 * request inside its log scope.
 */
export function requestScope(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.headers['x-request-id'];
    req.id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    const raw = req.headers.traceparent;
    let extra: Record<string, unknown> = {};
    if (raw !== undefined) {
      const trace = parseTraceparent(raw);
      // an invalid header is ignored (the specification says to restart the trace), but noted
      extra = trace ? { traceId: trace.traceId, parentSpanId: trace.parentId } : { traceparentInvalid: true };
    }
    const scope = makeScope(logger, req.id, extra);
    Object.defineProperty(req, 'log', { get: () => scope.logger, configurable: true });
    storage.run(scope, next);
  };
}
