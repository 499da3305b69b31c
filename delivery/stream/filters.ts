// Which events a stream subscription receives: its filters, compiled once per subscribe / update_filters
// into a predicate the hub runs for every event and every connection.
import { EVENT_SEVERITIES, type EventSeverity, type SecurityEvent } from '../../schemas/event.ts';
import type { StreamFilters } from '../../schemas/stream.ts';

export type EventMatcher = (event: SecurityEvent) => boolean;

const RANK = new Map<string, number>(EVENT_SEVERITIES.map((s, i) => [s, i]));

/** Severities at or above `min`, lowest first: what GET /v1/events's `severity` list says for a min_severity. */
export function severitiesFrom(min: EventSeverity): EventSeverity[] {
  return EVENT_SEVERITIES.slice(RANK.get(min));
}

/**
 * Spec "WebSocket stream" filters: categories, min_severity, zones (the event's zone name, or the zone id
 * of a maritime event's metadata), source_modules. Absent or empty lists match everything.
 */
export function compileFilters(filters: StreamFilters): EventMatcher {
  const categories = nonEmptySet(filters.categories);
  const zones = nonEmptySet(filters.zones);
  const modules = nonEmptySet(filters.source_modules);
  const minRank = filters.min_severity === undefined ? 0 : (RANK.get(filters.min_severity) as number);
  return (event) => {
    if (categories && !categories.has(event.category)) return false;
    if (minRank > 0 && (RANK.get(event.severity) ?? -1) < minRank) return false;
    if (modules && !modules.has(event.source_module)) return false;
    if (zones && !zoneMatches(zones, event)) return false;
    return true;
  };
}

function zoneMatches(zones: Set<string>, event: SecurityEvent): boolean {
  const name = event.location.zone;
  if (name !== undefined && zones.has(name)) return true;
  const id = (event.metadata as { zone_id?: unknown }).zone_id;
  return typeof id === 'string' && zones.has(id);
}

function nonEmptySet(values: readonly string[] | undefined): Set<string> | undefined {
  return values && values.length > 0 ? new Set(values) : undefined;
}
