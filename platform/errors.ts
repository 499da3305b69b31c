// One error vocabulary for the whole service. Internal code throws these; the HTTP edge maps them to the
// spec's error body ({error: {code, message, request_id}}) and nothing else leaks to clients.

export const ERROR_STATUS = {
  validation_error: 422,
  invalid_json: 400,
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  resource_conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

/** A dependency (Kafka, Postgres, the schema registry) failed in a way that a retry may fix. */
export class DependencyError extends Error {
  readonly retryable = true;
  constructor(readonly dependency: 'kafka' | 'postgres' | 'schema_registry', message: string, options?: { cause?: unknown }) {
    super(`${dependency}: ${message}`, options);
    this.name = 'DependencyError';
  }
}

/**
 * Kafka refused some records of a send for good, for what they are (too large, invalid) rather than for the
 * state of the cluster: sending them again cannot help. Every other record of the send was acknowledged.
 * `refused` gives their positions in the records handed to the send, with the broker's error code.
 */
export class RecordsRefusedError extends Error {
  readonly retryable = false;
  constructor(readonly refused: { index: number; code: string }[]) {
    super(`kafka refused ${refused.length} record(s) for good: ${[...new Set(refused.map((r) => r.code))].join(', ')}`);
    this.name = 'RecordsRefusedError';
  }
}
