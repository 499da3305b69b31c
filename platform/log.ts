import { pino, type Logger } from 'pino';

export type { Logger };

// Credentials must never reach a log line: headers and token-bearing fields are redacted at the source.
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
  '*.code',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'pss' } }, destination);
}
