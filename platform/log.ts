import { pino, type Logger } from 'pino';

export type { Logger };

// Credentials must never reach a log line: headers and token-bearing fields are redacted at the source.
// `code` is redacted only where an OAuth authorization code can sit (a request's body or query), so the
// `code` of an error (a PostgreSQL SQLSTATE, a Node errno) stays readable.
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.query.token',
  'headers.authorization',
  '*.password',
  '*.client_secret',
  '*.secret',
  '*.key',
  '*.token',
  '*.access_token',
  '*.refresh_token',
  '*.code_verifier',
  '*.authorizationCode',
  'req.body.code',
  'req.query.code',
  'body.code',
  'query.code',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'pss' } }, destination);
}

/** Where a logger (or its parent) writes its lines: a worker thread's lines are written there too. */
export function destinationOf(log: Logger): pino.DestinationStream {
  return (log as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym]!;
}

/**
 * Query parameter names that can carry a credential, compared lower-cased without separators
 * (`access_token`, `X-Api-Key`, `apiKey` alike): anything containing a word of the first kind, or
 * ending in one of the second (`key`, `code`, but not `assigned_to` or `design`).
 */
const CREDENTIAL_WORD = /token|secret|passw|apikey|credential|session|signature|jwt|assertion/;
const CREDENTIAL_SUFFIX = /(?:key|code|sig|auth|authorization|pwd|pass|verifier|otp)$/;
/** A credential this service issued (`svc_live_…`, `svc_oauth_…`), wherever it appears in a URL. */
const ISSUED_CREDENTIAL = /svc_[a-z]+_[^&/?#;\s]*/gi;
const REDACTED = '[redacted]';

/** A request URL fit for the log: values of credential-bearing query parameters and our own credentials replaced. */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  const path = at === -1 ? url : url.slice(0, at);
  const query = at === -1 ? undefined : url.slice(at + 1).split('&').map(redactPair).join('&');
  return (query === undefined ? path : `${path}?${query}`).replace(ISSUED_CREDENTIAL, REDACTED);
}

function redactPair(pair: string): string {
  const eq = pair.indexOf('=');
  if (eq === -1) return pair;
  const name = decodeName(pair.slice(0, eq)).toLowerCase().replace(/[^a-z0-9]/g, '');
  return CREDENTIAL_WORD.test(name) || CREDENTIAL_SUFFIX.test(name) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
}

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}
