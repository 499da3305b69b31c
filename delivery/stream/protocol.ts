// The stream's wire protocol (spec "WebSocket stream"; docs/events-and-delivery.md "Protocol"): client
// messages parsed and checked here, server messages built here, close codes in one table. Pure: no sockets.
import { Ajv, type ErrorObject } from 'ajv';
import { EVENT_CATEGORIES, EVENT_SEVERITIES } from '../../schemas/event.ts';
import { STREAM_FILTER_FIELDS, streamFiltersSchema, type StreamFilters } from '../../schemas/stream.ts';
import type { Backlog, QueueLimits } from './send-queue.ts';

/** `F`: the filters of a subscription (the event stream's, or the position stream's of delivery/positions/). */
export type ClientMessage<F = StreamFilters> =
  | { type: 'auth'; token: string }
  | { type: 'subscribe'; filters: F; resume?: string }
  | { type: 'update_filters'; filters: F }
  | { type: 'unsubscribe' };

/** Codes of `{"type":"error"}` messages. The connection stays open after each, unless a close follows. */
export type ErrorCode =
  | 'invalid_message'
  | 'invalid_filter'
  | 'invalid_resume'
  | 'not_subscribed'
  | 'already_subscribed'
  | 'already_authenticated'
  | 'unauthorized'
  | 'forbidden'
  | 'rate_limited'
  | 'connection_limit'
  | 'too_many_messages'
  | 'service_unavailable';

/** Close codes: 4000 + the HTTP status a request would have got, where one fits. */
export const CLOSE = {
  /** No credential within the deadline, or a missing, invalid, revoked or expired one (also mid-connection). */
  unauthorized: 4401,
  /** The credential lacks events:read, or the address is outside the key's IP allowlist. */
  forbidden: 4403,
  /** The client's backlog passed the spec's buffer of 1000 messages; the reason carries its resume handle. */
  slowConsumer: 4413,
  /** The credential already holds 10 connections, or this address presented too many refused credentials. */
  tooMany: 4429,
  /** The client sent messages faster than INBOUND_RATE allows (RFC 6455 1008, policy violation). */
  tooManyMessages: 1008,
  /** The instance is shutting down; the reason carries the resume handle. */
  goingAway: 1001,
  /** A dependency (Postgres, the event reader) is not available; reconnect with backoff. */
  tryAgainLater: 1013,
} as const;

export const AUTH_DEADLINE_MS = 10_000;

/**
 * Bounds on what one client's mistakes can cost (docs/events-and-delivery.md "Limits on what a client
 * sends"): an error lists at most MAX_PROBLEMS problems (and how many more there were), quotes at most
 * QUOTE_CHARS of a client's value, and is never longer than MAX_ERROR_CHARS. An answer is then small whatever
 * the question was.
 */
const MAX_PROBLEMS = 10;
const QUOTE_CHARS = 64;
const MAX_ERROR_CHARS = 2_000;

export type Parsed<F = StreamFilters> = { ok: true; message: ClientMessage<F> } | { ok: false; code: 'invalid_message' | 'invalid_filter'; message: string };

const ENVELOPES: Record<ClientMessage['type'], { required: string[]; allowed: string[] }> = {
  auth: { required: ['token'], allowed: ['token'] },
  subscribe: { required: [], allowed: ['filters', 'resume'] },
  update_filters: { required: ['filters'], allowed: ['filters'] },
  unsubscribe: { required: [], allowed: [] },
};

const validateFilters = new Ajv({ allErrors: true, strict: true, verbose: true }).compile<StreamFilters>(streamFiltersSchema);

/** A client's text message: a JSON object whose `type` is one of the client messages, with its fields. */
export function parseClientMessage(text: string): Parsed {
  return parseMessageWith<StreamFilters>(text, filterProblems);
}

/**
 * The envelope rules every stream shares (the event stream and the position stream), with the stream's own
 * check of `filters`: the problems in words, or undefined when they are valid.
 */
export function parseMessageWith<F>(text: string, filterCheck: (filters: unknown) => string | undefined): Parsed<F> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalid('the message is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return invalid('the message must be a JSON object with a "type"');
  const fields = value as Record<string, unknown>;
  const type = fields.type;
  if (typeof type !== 'string' || !Object.hasOwn(ENVELOPES, type)) {
    return invalid(`unknown message type ${quote(type ?? null)}; client messages are ${Object.keys(ENVELOPES).join(', ')}`);
  }
  const envelope = ENVELOPES[type as ClientMessage['type']];
  const extra = Object.keys(fields).filter((k) => k !== 'type' && !envelope.allowed.includes(k));
  if (extra.length > 0) return invalid(`${type} has no field ${listed(extra.map(quote), ', ')}${envelope.allowed.length ? `; its fields are ${envelope.allowed.join(', ')}` : ''}`);
  const missing = envelope.required.filter((k) => !(k in fields));
  if (missing.length > 0) return invalid(`${type} needs ${missing.join(', ')}`);

  switch (type) {
    case 'auth':
      if (typeof fields.token !== 'string' || fields.token === '') return invalid('auth needs a non-empty string "token"');
      return { ok: true, message: { type, token: fields.token } };
    case 'unsubscribe':
      return { ok: true, message: { type } };
    default: {
      const filters = fields.filters ?? {};
      const problem = filterCheck(filters);
      if (problem) return { ok: false, code: 'invalid_filter', message: problem };
      if (type === 'update_filters') return { ok: true, message: { type, filters: filters as F } };
      if (fields.resume !== undefined && typeof fields.resume !== 'string') return invalid('subscribe "resume" must be the string of a resume handle');
      return { ok: true, message: { type: 'subscribe', filters: filters as F, ...(fields.resume === undefined ? {} : { resume: fields.resume as string }) } };
    }
  }
}

/**
 * The problems of a filters object, in words that name the valid values (spec "Errors": invalid_filter).
 * Sizes are checked first, so the item-by-item check (and its list of problems) never runs over more items
 * than the schema allows: 9,516 unknown categories are one problem, not 9,516.
 */
function filterProblems(filters: unknown): string | undefined {
  const tooLarge = sizeProblem(filters);
  if (tooLarge) return tooLarge;
  if (validateFilters(filters)) return undefined;
  const seen = new Set<string>();
  for (const error of validateFilters.errors ?? []) seen.add(describe(error));
  return listed([...seen], '; ');
}

interface ListLimit {
  name: string;
  items: number;
  /** Characters of the longest value that can be valid. */
  chars: number;
}

/** The schema's list bounds; an enum's values are no longer than its longest value. */
const LIST_LIMITS: ListLimit[] = Object.entries(streamFiltersSchema.properties).flatMap(([name, property]) => {
  if (property.type !== 'array') return [];
  const items: { maxLength?: number; enum?: readonly string[] } = property.items;
  const chars = items.maxLength ?? Math.max(...(items.enum ?? []).map((v) => v.length));
  return [{ name, items: property.maxItems, chars }];
});

function sizeProblem(filters: unknown): string | undefined {
  if (typeof filters !== 'object' || filters === null || Array.isArray(filters)) return undefined;
  const fields = filters as Record<string, unknown>;
  const names = Object.keys(fields);
  if (names.length > STREAM_FILTER_FIELDS.length) return `filters has ${names.length} fields; filters are ${STREAM_FILTER_FIELDS.join(', ')}`;
  for (const limit of LIST_LIMITS) {
    const list = fields[limit.name];
    if (!Array.isArray(list)) continue;
    if (list.length > limit.items) return `filters.${limit.name} has ${list.length} items; at most ${limit.items}`;
    const long = list.findIndex((v) => typeof v === 'string' && v.length > limit.chars);
    if (long >= 0) return `filters.${limit.name}[${long}] is ${(list[long] as string).length} characters long; no valid value is longer than ${limit.chars}`;
  }
  return undefined;
}

function describe(e: ErrorObject): string {
  const field = e.instancePath.split('/')[1];
  if (e.keyword === 'additionalProperties') {
    const name = (e.params as { additionalProperty: string }).additionalProperty;
    return `unknown filter ${quote(name)}; filters are ${STREAM_FILTER_FIELDS.join(', ')}`;
  }
  if (e.keyword === 'enum' && field === 'categories') return `unknown category ${quote(e.data)}; valid categories are ${EVENT_CATEGORIES.join(', ')}`;
  if (e.keyword === 'enum' && field === 'min_severity') return `unknown min_severity ${quote(e.data)}; valid severities are ${EVENT_SEVERITIES.join(', ')}`;
  if (e.keyword === 'type' && e.instancePath === '') return 'filters must be an object';
  return `filters${e.instancePath} ${e.message ?? 'is invalid'}`;
}

function invalid(message: string): { ok: false; code: 'invalid_message'; message: string } {
  return { ok: false, code: 'invalid_message', message };
}

/** A client's value in an error message: JSON, cut after QUOTE_CHARS characters. */
export function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= QUOTE_CHARS ? text : `${text.slice(0, QUOTE_CHARS)}...`;
}

/** The first MAX_PROBLEMS of `items`, then how many more there are. */
export function listed(items: string[], separator: string): string {
  if (items.length <= MAX_PROBLEMS) return items.join(separator);
  return `${items.slice(0, MAX_PROBLEMS).join(separator)}${separator}and ${items.length - MAX_PROBLEMS} more`;
}

// Server messages. `event` messages are built once per record by stream-record.ts.

export function errorMessage(code: ErrorCode, message: string): string {
  const bounded = message.length <= MAX_ERROR_CHARS ? message : `${message.slice(0, MAX_ERROR_CHARS)}...`;
  return JSON.stringify({ type: 'error', code, message: bounded });
}

export function authenticatedMessage(credentialId: string, expiresAt: Date | null): string {
  return JSON.stringify({ type: 'authenticated', credential_id: credentialId, expires_at: expiresAt?.toISOString() ?? null });
}

export function subscribedMessage(filters: StreamFilters, resume: string): string {
  return JSON.stringify({ type: 'subscribed', filters, resume });
}

export function unsubscribedMessage(): string {
  return JSON.stringify({ type: 'unsubscribed' });
}

export function resumedMessage(replayed: number, resume: string): string {
  return JSON.stringify({ type: 'resumed', replayed, resume });
}

export function heartbeatMessage(now: number, eventsSent: number, uptimeSeconds: number, resume: string | undefined): string {
  return JSON.stringify({ type: 'heartbeat', timestamp: new Date(now).toISOString(), events_sent: eventsSent, connection_uptime_seconds: uptimeSeconds, ...(resume ? { resume } : {}) });
}

export function slowConsumerWarning(backlog: Backlog, limits: QueueLimits): string {
  return JSON.stringify({
    type: 'warning',
    code: 'slow_consumer',
    message: `${backlog.messages} messages (${backlog.bytes} bytes) are waiting for this connection; at more than ${limits.cutOffAt} messages or ${limits.cutOffBytes} bytes it is closed (code ${CLOSE.slowConsumer}) with a resume handle`,
    backlog: backlog.messages,
    limit: limits.cutOffAt,
    backlog_bytes: backlog.bytes,
    limit_bytes: limits.cutOffBytes,
  });
}

/** A close reason within the protocol's 123 bytes: the words, then the resume handle when there is one. */
export function closeReason(words: string, resume?: string): string {
  const tail = resume ? ` resume=${resume}` : '';
  return Buffer.from(words, 'utf8').subarray(0, 123 - Buffer.byteLength(tail)).toString('utf8').replace(/\uFFFD$/, '') + tail;
}
