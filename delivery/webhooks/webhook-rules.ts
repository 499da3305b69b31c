// What makes a webhook's settings acceptable beyond their JSON shapes (issue 14, item 1). Pure; the
// routes report these problems with the schema's in one 422. Each looks only at what it was given, as
// it runs on a body that may have failed its schema.
import { isIP } from 'node:net';
import { EVENT_TYPES } from '../../events/event-types.ts';
import { addressAllowed, classifyAddress, internalHostName } from './address-policy.ts';

export interface RuleProblem {
  path: string;
  message: string;
}

/** Headers the service sets itself (spec "Webhook deliveries") or that belong to one hop of a connection. */
const RESERVED_HEADERS = new Set([
  'content-type', 'content-length', 'user-agent', 'host',
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect',
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
const HEADER_VALUE = /^[\x20-\x7e]*$/;
const MIN_SECRET_LENGTH = 24;
const MIN_DISTINCT_SECRET_CHARACTERS = 8;

export function urlProblems(raw: unknown, allowLoopback: boolean): RuleProblem[] {
  if (typeof raw !== 'string') return [];
  const at = (message: string) => [{ path: '/url', message }];
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return at('is not an absolute URL');
  }
  if (url.username !== '' || url.password !== '') return at('must not carry credentials; use headers for them');
  if (url.hash !== '') return at('must not have a fragment');
  // The WHATWG parser has already turned decimal, octal, hex and short IPv4 spellings into dotted form.
  const host = url.hostname;
  const literal = host.startsWith('[') || isIP(host) !== 0;
  const cls = literal ? classifyAddress(host) : undefined;
  const loopback = cls === 'loopback' || (!literal && internalHostName(host) && /^localhost\.?$|\.localhost\.?$/i.test(host));
  if (url.protocol === 'http:') {
    if (!(allowLoopback && loopback)) return at('must use https (plain http only to loopback, with PSS_WEBHOOK_ALLOW_LOOPBACK in development)');
  } else if (url.protocol !== 'https:') {
    return at(`must use https, not ${url.protocol.replace(':', '')}`);
  }
  if (cls !== undefined && !addressAllowed(cls, allowLoopback)) return at(`host ${host} is a ${cls.replace('_', '-')} address, which webhooks may not reach`);
  if (!literal && internalHostName(host) && !(allowLoopback && loopback)) return at(`host ${host} is an internal name, which webhooks may not reach`);
  return [];
}

export function eventsProblems(raw: unknown): RuleProblem[] {
  if (!Array.isArray(raw)) return [];
  if (raw.includes('*')) return raw.length === 1 ? [] : [{ path: '/events', message: 'is ["*"] alone, or a list of event types without "*"' }];
  return raw.flatMap((type, i) =>
    typeof type === 'string' && !Object.hasOwn(EVENT_TYPES, type) ? [{ path: `/events/${i}`, message: `unknown event type ${JSON.stringify(type)}; known: ${Object.keys(EVENT_TYPES).join(', ')}` }] : [],
  );
}

export function headersProblems(raw: unknown): RuleProblem[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return [];
  const problems: RuleProblem[] = [];
  for (const [name, value] of Object.entries(raw)) {
    const path = `/headers/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) problems.push({ path, message: 'is not a valid header name' });
    else if (RESERVED_HEADERS.has(lower) || lower.startsWith('x-service-')) problems.push({ path, message: 'is set by the service or belongs to one connection, and cannot be configured' });
    if (typeof value === 'string' && !HEADER_VALUE.test(value)) problems.push({ path, message: 'must be visible ASCII characters and spaces' });
  }
  return problems;
}

export function secretProblems(raw: unknown): RuleProblem[] {
  if (typeof raw !== 'string') return [];
  const at = (message: string) => [{ path: '/secret', message }];
  if (raw.length < MIN_SECRET_LENGTH) return at(`must be at least ${MIN_SECRET_LENGTH} characters`);
  if (!/^[\x21-\x7e]+$/.test(raw)) return at('must be visible ASCII characters (no spaces)');
  if (new Set(raw).size < MIN_DISTINCT_SECRET_CHARACTERS) return at(`must have at least ${MIN_DISTINCT_SECRET_CHARACTERS} different characters`);
  return [];
}

/** Every rule on a create or update body. */
export function webhookProblems(body: unknown, allowLoopback: boolean): RuleProblem[] {
  if (typeof body !== 'object' || body === null) return [];
  const b = body as Record<string, unknown>;
  return [...urlProblems(b.url, allowLoopback), ...eventsProblems(b.events), ...headersProblems(b.headers), ...secretProblems(b.secret)];
}
