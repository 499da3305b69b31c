// Pure decisions of the positions sink: which reports become rows, which UTC day partitions they need,
// and how a batch is split between writers. The adapter (positions-sink.ts) only moves data.
import { MAX_REPORTED_AHEAD_MS, type VesselPosition } from '../../schemas/ais.ts';

const DAY_MS = 86_400_000;

export interface PositionRow {
  mmsi: number;
  /** Event time, epoch ms. */
  reportedAt: number;
  source: string;
  lat: number;
  lon: number;
  sog: number | null;
  cog: number | null;
  heading: number | null;
  navStatus: number | null;
  msgType: number;
  receivedAt: number;
}

/**
 * The row of a report, or undefined when it cannot be stored: no position (a track needs one), or an
 * event time beyond MAX_REPORTED_AHEAD_MS after receipt (a wrong clock; the zone processor ignores it too).
 */
export function positionRow(p: VesselPosition): PositionRow | undefined {
  if (p.lat === undefined || p.lon === undefined) return undefined;
  const reportedAt = Date.parse(p.reported_at);
  const receivedAt = Date.parse(p.received_at);
  if (!Number.isFinite(reportedAt) || !Number.isFinite(receivedAt) || reportedAt - receivedAt > MAX_REPORTED_AHEAD_MS) return undefined;
  return {
    mmsi: p.mmsi,
    reportedAt,
    source: p.source,
    lat: p.lat,
    lon: p.lon,
    sog: p.sog ?? null,
    cog: p.cog ?? null,
    heading: p.heading ?? null,
    navStatus: p.nav_status ?? null,
    msgType: p.msg_type,
    receivedAt,
  };
}

/** Recently named days by day number: the sink names the day of every row, nearly all of them the same few. */
const dayNames = new Map<number, string>();

/** The UTC day (YYYY-MM-DD) holding `ms`. */
export function utcDay(ms: number): string {
  const day = Math.floor(ms / DAY_MS);
  let name = dayNames.get(day);
  if (name === undefined) {
    name = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (dayNames.size >= 64) dayNames.clear();
    dayNames.set(day, name);
  }
  return name;
}

/** The first UTC day retention keeps at `nowMs`: today and the `retentionDays - 1` days before it. */
export function keepFromDay(nowMs: number, retentionDays: number): string {
  return utcDay(nowMs - (retentionDays - 1) * DAY_MS);
}

/** Today and the `ahead` UTC days after it: the partitions maintenance keeps ready. */
export function daysAhead(nowMs: number, ahead: number): string[] {
  return Array.from({ length: ahead + 1 }, (_, i) => utcDay(nowMs + i * DAY_MS));
}

/** Whether retention keeps `row` (a row it would drop at once is not stored: its day's partition would not survive the hour). */
export function isRetained(row: PositionRow, keepFrom: string): boolean {
  return utcDay(row.reportedAt) >= keepFrom;
}

/** The distinct UTC days of `rows`, sorted. */
export function daysOf(rows: readonly PositionRow[]): string[] {
  return [...new Set(rows.map((r) => utcDay(r.reportedAt)))].sort();
}

/**
 * `rows` in `parts` groups by vessel (MMSI modulo parts), each sorted by (MMSI, time): a vessel's rows
 * stay in one group, and sorted keys touch far fewer primary-key index pages than arrival order.
 */
export function splitByVessel(rows: readonly PositionRow[], parts: number): PositionRow[][] {
  const groups: PositionRow[][] = Array.from({ length: parts }, () => []);
  for (const row of rows) groups[row.mmsi % parts]!.push(row);
  for (const group of groups) group.sort((a, b) => a.mmsi - b.mmsi || a.reportedAt - b.reportedAt);
  return groups.filter((g) => g.length > 0);
}
