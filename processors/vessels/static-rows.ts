// Pure merge of static and voyage reports (AIS types 5, 19, 24 A/B) into one row per vessel. A type 24
// part A names a vessel and part B gives its type and dimensions; neither erases what the other said,
// so a field a report leaves out keeps the value of the reports before it.
import type { VesselStatic } from '../../schemas/ais.ts';

/** The static columns of `vessels`, in table order; each is a field of the report of the same name. */
export const STATIC_FIELDS = [
  'name', 'callsign', 'imo', 'ship_type', 'ship_category', 'hazardous_category', 'to_bow', 'to_stern', 'to_port',
  'to_starboard', 'length', 'beam', 'draught', 'destination', 'eta',
] as const;
export type StaticField = (typeof STATIC_FIELDS)[number];

export type StaticRow = { mmsi: number; reportedAt: number } & { [F in StaticField]: VesselStatic[F] | null };

function rowOf(report: VesselStatic, reportedAt: number): StaticRow {
  const row = { mmsi: report.mmsi, reportedAt } as StaticRow;
  for (const field of STATIC_FIELDS) (row as Record<string, unknown>)[field] = report[field] ?? null;
  return row;
}

/** `older` completed by `newer`: each field from the newer report when it has one. */
export function mergeStatic(older: StaticRow, newer: StaticRow): StaticRow {
  const merged = { ...newer } as Record<string, unknown>;
  for (const field of STATIC_FIELDS) merged[field] = newer[field] ?? older[field];
  return merged as StaticRow;
}

/** One merged row per vessel, in event-time order within it, sorted by MMSI; reports without a valid time are skipped. */
export function staticRows(reports: readonly VesselStatic[]): StaticRow[] {
  const rows = new Map<number, StaticRow>();
  const ordered = reports
    .map((report) => ({ report, at: Date.parse(report.reported_at) }))
    .filter(({ at }) => Number.isFinite(at))
    .sort((a, b) => a.at - b.at);
  for (const { report, at } of ordered) {
    const next = rowOf(report, at);
    const known = rows.get(report.mmsi);
    rows.set(report.mmsi, known ? mergeStatic(known, next) : next);
  }
  return [...rows.values()].sort((a, b) => a.mmsi - b.mmsi);
}
