import type { ErrorRequestHandler } from 'express';
import { AppError, fromDbError, STATUS_BY_KIND } from '../../errors';
import type { Logger } from '../../logger';

export interface HttpError {
  status: number;
  body: { error: string; message?: string; details?: Array<{ field: string; message: string }> };
  headers?: Record<string, string>;
}

function isDbUnavailable(e: unknown): boolean {
  const err = e as { code?: string; name?: string; message?: string };
  if (!err) return false;
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08006', '08001', '08003'].includes(String(err.code)))
    return true;
  if (err.name === 'ConnectionException' || err.name === 'KnexTimeoutError') return true;
  return /Connection terminated|Timeout acquiring a connection|connect ECONNREFUSED|the database system is (shutting down|starting up)/i.test(
    String(err.message),
  );
}

/** Maps any thrown value to the documented error body. Unknown errors become 500 internal_error. */
export function toHttpError(e: unknown): HttpError | null {
  const mapped = fromDbError(e);
  if (mapped instanceof AppError) {
    const body: HttpError['body'] = { error: mapped.code };
    if (mapped.hasMessage) body.message = mapped.message;
    if (mapped.details) body.details = mapped.details;
    return {
      status: STATUS_BY_KIND[mapped.kind],
      body,
      headers: mapped.retryAfter ? { 'Retry-After': String(mapped.retryAfter) } : undefined,
    };
  }
  const err = e as { type?: string; status?: number; statusCode?: number; code?: string };
  // body-parser / multer errors
  if (err?.type === 'entity.parse.failed')
    return {
      status: 400,
      body: { error: 'validation_failed', message: 'Malformed JSON body', details: [{ field: 'body', message: 'Malformed JSON body' }] },
    };
  if (err?.type === 'entity.too.large' || err?.code === 'LIMIT_FILE_SIZE')
    return { status: 413, body: { error: 'payload_too_large', message: 'Request body is too large' } };
  if (err?.type === 'encoding.unsupported' || err?.type === 'charset.unsupported')
    return { status: 415, body: { error: 'unsupported_media_type', message: 'Unsupported content encoding' } };
  if (typeof err?.code === 'string' && err.code.startsWith('LIMIT_'))
    return { status: 400, body: { error: 'validation_failed', message: String((e as Error).message) } };
  if (err?.type === 'request.aborted') return { status: 400, body: { error: 'validation_failed', message: 'Request aborted' } };
  const status = err?.status ?? err?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return {
      status,
      body: { error: status === 413 ? 'payload_too_large' : 'validation_failed', message: String((e as Error).message ?? '') },
    };
  if (isDbUnavailable(e))
    return { status: 503, body: { error: 'database_unavailable', message: 'The database is unavailable; retry shortly' } };
  return null;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (e, req, res, _next) => {
    const mapped = toHttpError(e);
    if (res.headersSent) {
      (req.log ?? logger).error({ err: e }, 'error after response started');
      res.end();
      return;
    }
    if (mapped) {
      if (mapped.status >= 500) (req.log ?? logger).warn({ err: e }, 'request failed');
      if (mapped.headers) res.set(mapped.headers);
      res.status(mapped.status).json(mapped.body);
      return;
    }
    (req.log ?? logger).error({ err: e }, 'unhandled error');
    res.status(500).json({ error: 'internal_error', message: `Internal error (request ${req.id})` });
  };
}
