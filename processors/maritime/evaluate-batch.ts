import type { SecurityEvent } from '../../schemas/event.ts';
import { MAX_REPORTED_AHEAD_MS, type VesselPosition } from '../../schemas/ais.ts';
import type { ZoneRulesConfig } from './rules/config.ts';
import type { VesselState } from './rules/vessel-state.ts';
import { expire, learnVessel, step, type VesselFacts } from './rules/vessel-zone-state.ts';
import type { VesselDirectory } from './vessel-directory.ts';
import type { ZoneSnapshot } from './zones/zone-catalog.ts';
import { zoneEvent } from './zone-events.ts';

/**
 * The zone pipeline for one batch of positions, in order (Traccar-style, one stage per line):
 *   1. position -> H3 cell -> candidate zones -> exact test      (zones/zone-index.ts)
 *   2. + static data (name, category)                            (vessel-directory.ts)
 *   3. static data learned since the previous report -> intents    (rules/vessel-zone-state.ts learnVessel)
 *   4. previous state + observation -> new state + intents        (rules/vessel-zone-state.ts step)
 *   5. intents -> events with deterministic ids                   (zone-events.ts)
 * No I/O: the adapter loads states before and stores states and events after.
 */
export interface BatchOutcome {
  events: SecurityEvent[];
  /** States that changed and must be stored (or deleted when they track no zone any more). */
  changed: VesselState[];
  late: number;
  /** Reports dated too far ahead of their receipt, ignored (count them). */
  future: number;
  /** Newest report time seen per Kafka partition: the event-time watermarks for `expireSilent`. */
  watermarks: Map<number, number>;
}

export interface PartitionedPosition {
  partition: number;
  position: VesselPosition;
}

/** The report's event time, or undefined when it lies too far after its receipt to be believed. */
export function believableReportTime(p: VesselPosition): number | undefined {
  const reportedAt = Date.parse(p.reported_at);
  return reportedAt - Date.parse(p.received_at) > MAX_REPORTED_AHEAD_MS ? undefined : reportedAt;
}

/**
 * `learned`: vessels whose static data the directory learned since the last batch. Those held in `states`
 * have their latest report re-evaluated with it first, rather than at their next report, which may be
 * minutes away for a vessel at anchor; the others get the same at their next report, below.
 */
export function evaluatePositions(
  items: readonly PartitionedPosition[],
  states: Map<number, VesselState>,
  snapshot: ZoneSnapshot,
  directory: VesselDirectory,
  config: ZoneRulesConfig,
  learned: Iterable<number> = [],
): BatchOutcome {
  const events: SecurityEvent[] = [];
  const changed = new Map<number, VesselState>();
  let late = 0;
  let future = 0;
  const watermarks = new Map<number, number>();
  for (const mmsi of learned) {
    const state = states.get(mmsi);
    const facts = directory.get(mmsi);
    if (state !== undefined && facts !== undefined && state.zones.length > 0) learn(state, facts);
  }
  for (const { partition, position: p } of items) {
    if (p.lat === undefined || p.lon === undefined) continue;
    const reportedAt = believableReportTime(p);
    if (reportedAt === undefined) {
      future++;
      continue;
    }
    if (reportedAt > (watermarks.get(partition) ?? 0)) watermarks.set(partition, reportedAt);
    const where = snapshot.index.locate(p.lat, p.lon);
    const before = states.get(p.mmsi);
    if (before === undefined && where.inside.length === 0 && where.inBuffer.length === 0) continue;
    const tracked = (before?.zones.length ?? 0) > 0;
    const vessel = directory.get(p.mmsi);
    if (before !== undefined && vessel !== undefined && tracked) learn(before, vessel);
    const result = step(
      before,
      { mmsi: p.mmsi, reported_at: reportedAt, lat: p.lat, lon: p.lon, sog: p.sog ?? null, cog: p.cog ?? null, vessel, inside: where.inside, inBuffer: where.inBuffer },
      snapshot.rules,
      config,
    );
    if (result.late) {
      late++;
      continue;
    }
    states.set(p.mmsi, result.state);
    // A vessel that tracks no zone before or after has nothing durable to write.
    if (tracked || result.state.zones.length > 0) changed.set(p.mmsi, result.state);
    for (const intent of result.intents) events.push(zoneEvent(intent, p.station ?? p.source));
  }
  return { events, changed: [...changed.values()], late, future, watermarks };

  function learn(state: VesselState, facts: VesselFacts): void {
    const outcome = learnVessel(state, facts, snapshot.rules, config);
    if (outcome.changed) changed.set(state.mmsi, state);
    for (const intent of outcome.intents) events.push(zoneEvent(intent, LEARNED_DEVICE));
  }
}

/** `source_device` of the events that static data learned after the report they re-evaluate gives. */
const LEARNED_DEVICE = 'ais-static';

/**
 * Closes stays of vessels silent past the configured timeout, as of the event-time watermark of the
 * partition each vessel's reports arrive on (partitions may run at different event times, e.g. while one
 * catches up after downtime). Vessels without a watermark are left alone.
 */
export function expireSilent(
  states: Map<number, VesselState>,
  watermarkOf: (mmsi: number) => number | undefined,
  snapshot: ZoneSnapshot,
  config: ZoneRulesConfig,
): Pick<BatchOutcome, 'events' | 'changed'> {
  const events: SecurityEvent[] = [];
  const changed: VesselState[] = [];
  for (const [mmsi, state] of states) {
    if (state.zones.length === 0) continue;
    const watermark = watermarkOf(mmsi);
    if (watermark === undefined || watermark - state.last_seen_at < config.silence_timeout_seconds * 1000) continue;
    const result = expire(state, watermark, snapshot.rules, config);
    if (result.intents.length === 0 && result.state !== undefined) continue;
    for (const intent of result.intents) events.push(zoneEvent(intent, 'ais-silence'));
    const next = result.state ?? { ...state, zones: [] };
    states.set(mmsi, next);
    changed.push(next);
  }
  return { events, changed };
}
