// The explicit message a resuming client gets when it missed more than the stream replays: how many events,
// over which time range, and the GET /v1/events queries (spec "Events") that return them.
import type { StreamFilters } from '../../schemas/stream.ts';
import { severitiesFrom } from './filters.ts';
import type { Gap } from './replay-selection.ts';

/** Above this many zone x source_module combinations the queries leave those two filters to the client. */
const MAX_QUERIES = 20;

/**
 * `since` is the append time the client's handle reached: the start of the range when part of it was never
 * read. `until` bounds the range when no missed event was counted (the first replayed event, or now).
 */
export function gapMessage(gap: Gap, filters: StreamFilters, baseUrl: string, since: number, until: number): string {
  const start = gap.unscannedRecords > 0 ? Math.min(since, gap.firstEventAt ?? since) : (gap.firstEventAt as number);
  // +1 ms: the last missed event is inside the range whether end_date is read as inclusive or exclusive.
  const end = (gap.lastEventAt ?? until) + 1;
  const { queries, narrowed } = eventQueries(filters, baseUrl, new Date(start).toISOString(), new Date(end).toISOString());
  const counted = gap.unscannedRecords > 0 ? `at least ${gap.events}` : `${gap.events}`;
  const words = [
    `${counted} events matching your filters were missed and are not replayed`,
    gap.unscannedRecords > 0 ? ` (${gap.unscannedRecords} earlier records of the topic were not examined)` : '',
    '; the newest missed events follow. Fetch the rest with the queries listed (they may return events you already have: keep one per id)',
    narrowed ? ', then apply your zones and source_modules filters yourself' : '',
    '.',
  ];
  return JSON.stringify({
    type: 'gap',
    message: words.join(''),
    missed_events: gap.events,
    unscanned_records: gap.unscannedRecords,
    start_date: new Date(start).toISOString(),
    end_date: new Date(end).toISOString(),
    queries,
  });
}

/** GET /v1/events queries for the filters: its `zone` and `source_module` take one value, so one query per pair. */
function eventQueries(filters: StreamFilters, baseUrl: string, startDate: string, endDate: string): { queries: string[]; narrowed: boolean } {
  const common = new URLSearchParams();
  if (filters.categories?.length) common.set('category', [...new Set(filters.categories)].join(','));
  if (filters.min_severity && filters.min_severity !== 'low') common.set('severity', severitiesFrom(filters.min_severity).join(','));
  common.set('start_date', startDate);
  common.set('end_date', endDate);
  common.set('sort', 'timestamp');
  common.set('order', 'asc');
  common.set('per_page', '200');
  const zones: (string | undefined)[] = filters.zones?.length ? [...new Set(filters.zones)] : [undefined];
  const modules: (string | undefined)[] = filters.source_modules?.length ? [...new Set(filters.source_modules)] : [undefined];
  const narrowed = zones.length * modules.length > MAX_QUERIES;
  const queries: string[] = [];
  for (const zone of narrowed ? [undefined] : zones) {
    for (const module of narrowed ? [undefined] : modules) {
      const params = new URLSearchParams(common);
      if (module !== undefined) params.set('source_module', module);
      if (zone !== undefined) params.set('zone', zone);
      queries.push(`${baseUrl}/v1/events?${params.toString()}`);
    }
  }
  return { queries, narrowed };
}
