import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { AppError, DependencyError } from '../../platform/errors.ts';
import { isConnectionLoss, isPostgresTimeout, isTransactionConflict } from '../../platform/postgres.ts';

/** The spec's error body: {"error": {"code", "message", "request_id"}} (+ optional details). */
export function errorBody(code: string, message: string, requestId: string, details?: unknown) {
  return { error: { code, message, request_id: requestId, ...(details === undefined ? {} : { details }) } };
}

export const notFound: RequestHandler = (req, _res, next) => {
  next(new AppError('not_found', `No route for ${req.method} ${req.path}`));
};

/** Maps every error to the spec's body; internal errors are logged in full and answered without detail. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const requestId = String(res.locals.requestId ?? '');
  const mapped = toAppError(err);
  if (mapped.status >= 500) req.log?.error({ err }, 'request failed');
  if (mapped.code === 'rate_limited' && typeof mapped.details === 'object' && mapped.details !== null) {
    const retryAfter = (mapped.details as { retry_after_seconds?: number }).retry_after_seconds;
    if (retryAfter !== undefined) res.setHeader('Retry-After', String(retryAfter));
  }
  if (mapped.code === 'unauthorized') res.setHeader('WWW-Authenticate', 'Bearer realm="pss"');
  // Refused before its body arrived (413 on the declared length, 401, 415, ...): close rather than read the rest.
  if (bodyStillArriving(req)) res.setHeader('Connection', 'close');
  res.status(mapped.status).json(errorBody(mapped.code, mapped.message, requestId, mapped.details));
};

function bodyStillArriving(req: Request): boolean {
  const declaresBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  return declaresBody && !req.complete;
}

/** Network failures, PostgreSQL "shutting down / cannot connect now" and timeouts: a retry may succeed, so 503. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P02', '57P03']);

function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as { type?: string; status?: number; message?: string; limit?: number };
  // body-parser reports its failures with a `type`; they are the client's fault, not ours.
  switch (e.type) {
    case 'entity.parse.failed':
      return new AppError('invalid_json', `Request body is not valid JSON: ${e.message ?? ''}`.trim());
    case 'entity.too.large':
      return new AppError('payload_too_large', `Request body exceeds the limit of ${e.limit ?? 'the configured'} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('unsupported_media_type', e.message ?? 'Unsupported body encoding');
    case 'request.aborted':
      return new AppError('bad_request', 'Request was aborted by the client');
    default:
      break;
  }
  if (err instanceof DependencyError || UNREACHABLE.has(String((err as { code?: unknown }).code)) || isPostgresTimeout(err) || isConnectionLoss(err)) {
    return new AppError('service_unavailable', 'A dependency of the service is unavailable; retry later', undefined, { cause: err });
  }
  // A deadlock or serialization failure rolled the request's transaction back: nothing of it was written, and
  // sent again it usually goes through (routes that can meet one run their transaction again first).
  if (isTransactionConflict(err)) {
    return new AppError('service_unavailable', 'The request met a concurrent change and was rolled back; nothing was written, retry it', undefined, { cause: err });
  }
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return new AppError('bad_request', e.message ?? 'Bad request');
  }
  return new AppError('internal_error', 'An internal error occurred', undefined, { cause: err });
}
