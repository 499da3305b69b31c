// What GET /v1/events asks for, read from its query (spec "GET /v1/events"): the comma-separated lists,
// the dates and their defaults, and the search words. Pure; events/event-list.ts turns it into SQL.
import { EVENT_CATEGORIES, EVENT_SEVERITIES, type EventCategory, type EventSeverity } from '../schemas/event.ts';
import type { EventListQuery } from '../schemas/event-api.ts';
import { EVENT_TYPES, type EventType } from './event-types.ts';

const TYPE_NAMES = Object.keys(EVENT_TYPES) as EventType[];

/** Spec "Limits": the default time window is the 24 hours before its end. */
const DEFAULT_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A search of more words than this is refused: each is one index lookup. */
const MAX_SEARCH_WORDS = 16;

export interface EventFilter {
  start: Date;
  end: Date;
  categories?: EventCategory[];
  /** Event types of the type table (events/event-types.ts); our addition to the spec's filters. */
  types?: EventType[];
  severities?: EventSeverity[];
  sourceModule?: string;
  /** A zone name (case-insensitive) or a threat zone id. */
  zone?: string;
  requiresAction?: boolean;
  incidentId?: string;
  assignedTo?: string;
  /** Each must occur, as a word or a word's beginning (events/event-list.ts, migration 0011). */
  searchWords?: string[];
  sort: 'timestamp' | 'severity';
  order: 'asc' | 'desc';
  page: number;
  perPage: number;
}

/** A query value the filter cannot use, at its parameter (`/category`). */
export interface FilterProblem {
  path: string;
  message: string;
}

/** A list query checked against its schema and by filterProblems(), as a filter. */
export function eventFilter(query: EventListQuery, now: Date): EventFilter {
  return read(query, now).filter;
}

/**
 * What makes a list query's values unusable: unknown list values, unreadable or reversed dates, a search
 * without words. Every problem, not just the first; on the query as sent (its other fields may be wrong).
 */
export function filterProblems(query: unknown, now: Date): FilterProblem[] {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const text = (name: string) => (typeof q[name] === 'string' ? (q[name] as string) : undefined);
  const readable = { category: text('category'), type: text('type'), severity: text('severity'), start_date: text('start_date'), end_date: text('end_date'), search: text('search') };
  return read({ ...readable, sort: 'timestamp', order: 'desc', page: 1, per_page: 1 }, now).problems;
}

function read(query: EventListQuery, now: Date): { filter: EventFilter; problems: FilterProblem[] } {
  const problems: FilterProblem[] = [];
  const end = query.end_date === undefined ? now : instantOf('end_date', query.end_date, problems);
  const start = query.start_date === undefined ? new Date(end.getTime() - DEFAULT_WINDOW_MS) : instantOf('start_date', query.start_date, problems);
  if (problems.length === 0 && start > end) {
    problems.push({ path: '/start_date', message: `must not be after end_date (${end.toISOString()})` });
  }
  const filter: EventFilter = {
    start,
    end,
    sort: query.sort,
    order: query.order,
    page: query.page,
    perPage: query.per_page,
    categories: query.category === undefined ? undefined : listOf('category', query.category, EVENT_CATEGORIES, problems),
    types: query.type === undefined ? undefined : listOf('type', query.type, TYPE_NAMES, problems),
    severities: query.severity === undefined ? undefined : listOf('severity', query.severity, EVENT_SEVERITIES, problems),
    sourceModule: query.source_module,
    zone: query.zone,
    requiresAction: query.requires_action,
    incidentId: query.incident_id,
    assignedTo: query.assigned_to,
    searchWords: query.search === undefined ? undefined : searchWordsOf(query.search, problems),
  };
  return { filter, problems };
}

/** `gate,perimeter` -> ['gate', 'perimeter']; an unknown value is a problem naming the valid ones. */
export function listOf<T extends string>(name: string, raw: string, valid: readonly T[], problems: FilterProblem[]): T[] {
  const values = raw.split(',').map((v) => v.trim());
  const unknown = values.filter((v) => !(valid as readonly string[]).includes(v));
  if (unknown.length > 0) {
    const what = unknown.map((v) => JSON.stringify(v)).join(', ');
    problems.push({ path: `/${name}`, message: `unknown ${name} ${what}; valid values: ${valid.join(', ')} (comma-separated)` });
  }
  return [...new Set(values)] as T[];
}

/**
 * ISO 8601 as clients write it: a date (midnight UTC), or a date and time with an optional fraction and an
 * optional offset (UTC without one). A space before the offset is read as `+`, since an unencoded `+` in a
 * query string arrives as a space.
 */
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|z|[+\- ]\d{2}:?\d{2})?)?$/;

export function parseInstant(text: string): Date | undefined {
  const m = ISO_INSTANT.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h = '00', mi = '00', s = '00', fraction = '', zone = 'Z'] = m as unknown as string[];
  const offset = zone.toUpperCase() === 'Z' ? 'Z' : `${zone[0] === '-' ? '-' : '+'}${zone.slice(1).replace(':', '').replace(/^(\d{2})(\d{2})$/, '$1:$2')}`;
  const ms = fraction === '' ? '' : fraction.slice(0, 4).padEnd(4, '0');
  const at = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${ms}${offset}`);
  // Date rolls 2026-02-30 over to March; a date that does not exist is refused instead.
  const calendar = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  const exists = calendar.getUTCFullYear() === Number(y) && calendar.getUTCMonth() === Number(mo) - 1 && calendar.getUTCDate() === Number(d);
  return exists && Number(h) < 24 && Number(mi) < 60 && Number(s) < 60 && !Number.isNaN(at.getTime()) ? at : undefined;
}

function instantOf(name: string, raw: string, problems: FilterProblem[]): Date {
  const at = parseInstant(raw);
  if (at === undefined) {
    problems.push({ path: `/${name}`, message: 'must be an ISO 8601 date or date-time, e.g. 2026-11-21 or 2026-11-21T07:00:00Z' });
    return new Date(0);
  }
  return at;
}

/**
 * The words of a search: runs of letters and digits, joined by inner `.`, `-` or `_` as PostgreSQL's
 * parser keeps them ("12.5", "holmen-naval", "zone_entry"); everything else separates words.
 */
export function searchWords(text: string): string[] {
  return [...new Set((text.match(/[\p{L}\p{N}]+(?:[._-][\p{L}\p{N}]+)*/gu) ?? []).map((w) => w.toLowerCase()))];
}

function searchWordsOf(raw: string, problems: FilterProblem[]): string[] {
  const words = searchWords(raw);
  if (words.length === 0) problems.push({ path: '/search', message: 'must contain a word (letters or digits)' });
  if (words.length > MAX_SEARCH_WORDS) problems.push({ path: '/search', message: `must have at most ${MAX_SEARCH_WORDS} words, got ${words.length}` });
  return words;
}
