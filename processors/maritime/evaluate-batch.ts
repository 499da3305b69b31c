import type { SecurityEvent } from '../../schemas/event.ts';
import { MAX_REPORTED_AHEAD_MS, type VesselPosition } from '../../schemas/ais.ts';
import { detectSilence, gapOnReport, gapWatch, type Watch } from './rules/ais-gap-rule.ts';
import type { ZoneRulesConfig } from './rules/config.ts';
import { encounterFixes, type EncounterFix } from './rules/encounter-rule.ts';
import { feedSilenceIntent, newFeedState, observeBatch, vesselSilentFrom, type FeedState } from './rules/feed-silence.ts';
import type { OccupancyChange } from './rules/occupancy-rule.ts';
import type { PreviousFix, RuleReport } from './rules/rule-context.ts';
import { updateRisk } from './rules/risk-score.ts';
import { applyVesselRules } from './rules/vessel-rules.ts';
import { isDurable, type VesselState } from './rules/vessel-state.ts';
import { expire, learnVessel, step, type VesselFacts } from './rules/vessel-zone-state.ts';
import type { VesselDirectory } from './vessel-directory.ts';
import type { ZoneSnapshot } from './zones/zone-catalog.ts';
import { ruleEvent, zoneEvent } from './zone-events.ts';

/**
 * The zone pipeline for one batch of positions, in order (Traccar-style, one stage per line):
 *   0. (whole batch first) the feeds' clocks, the feed outages the batch ends  (rules/feed-silence.ts, feed-clock.ts)
 *   1. position -> H3 cell -> candidate zones -> exact test      (zones/zone-index.ts)
 *   2. + static data (name, category)                            (vessel-directory.ts)
 *   3. static data learned since the previous report -> intents    (rules/vessel-zone-state.ts learnVessel)
 *   4. previous state + observation -> new state + intents        (rules/vessel-zone-state.ts step)
 *   5. behaviour rules: the AIS gap this report ends (before 4), then jump/identity, speed,
 *      heading, vessel type on the stepped state                    (rules/vessel-rules.ts)
 *   6. intents -> events with deterministic ids                   (zone-events.ts)
 *   6b. this report's findings -> the vessel's risk score          (rules/risk-score.ts)
 *   7. stays starting, going on or ending in zones with time rules (-> store/occupancy-store.ts)
 *   8. slow fixes in zones with encounter rules                   (-> store/encounter-store.ts)
 * Every vessel keeps a state (its previous fix at least) for the rules; only durable ones are stored.
 * No I/O: the adapter loads states before and stores states and events after.
 */
export interface BatchOutcome {
  events: SecurityEvent[];
  /** States that changed and must be stored (or deleted when they track no zone any more). */
  changed: VesselState[];
  late: number;
  /** Reports dated too far ahead of their receipt, ignored (count them). */
  future: number;
  /** Newest report time seen per Kafka partition in this batch. */
  watermarks: Map<number, number>;
  /** For the time rules' occupancy, counted in Postgres across instances. */
  occupancy: OccupancyChange[];
  /** For the encounter rules, paired in Postgres across instances. */
  encounters: EncounterFix[];
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
  feed: FeedState = newFeedState(),
): BatchOutcome {
  const events: SecurityEvent[] = [];
  const changed = new Map<number, VesselState>();
  const occupancy: OccupancyChange[] = [];
  const encounters: EncounterFix[] = [];
  let late = 0;
  let future = 0;
  const watermarks = new Map<number, number>();
  const ruled = snapshot.zoneRules.size > 0;
  const crossingsWatched = ruled && [...snapshot.zoneRules.values()].some((set) => set.crossing_rules !== undefined);
  const encountersWatched = ruled && [...snapshot.zoneRules.values()].some((set) => set.encounter_rules !== undefined);
  const insideAt = (lat: number, lon: number): readonly string[] => snapshot.index.locate(lat, lon).inside;
  for (const mmsi of learned) {
    const state = states.get(mmsi);
    const facts = directory.get(mmsi);
    if (state !== undefined && facts !== undefined && state.zones.length > 0) learn(state, facts);
  }
  feedClocks(items, feed, config, events);
  for (const { partition, position: p } of items) {
    feed.partitionOf.set(p.mmsi, partition);
    if (p.lat === undefined || p.lon === undefined) continue;
    const reportedAt = believableReportTime(p);
    if (reportedAt === undefined) {
      future++;
      continue;
    }
    if (reportedAt > (watermarks.get(partition) ?? 0)) watermarks.set(partition, reportedAt);
    if (reportedAt > (feed.watermarks.get(partition) ?? 0)) feed.watermarks.set(partition, reportedAt);
    const where = snapshot.index.locate(p.lat, p.lon);
    const firstEvent = events.length;
    const before = states.get(p.mmsi);
    const tracked = (before?.zones.length ?? 0) > 0;
    const durableBefore = before !== undefined && isDurable(before);
    const vessel = directory.get(p.mmsi);
    if (before !== undefined && vessel !== undefined && tracked) learn(before, vessel);
    const report: RuleReport = { t: reportedAt, lat: p.lat, lon: p.lon, sog: p.sog ?? null, cog: p.cog ?? null, heading: p.heading ?? null, position_accuracy: p.position_accuracy ?? null };
    let previous: PreviousFix | undefined;
    let insideBefore: string[] = NONE;
    if (before !== undefined && reportedAt > before.last_seen_at) {
      previous = { t: before.last_seen_at, lat: before.lat, lon: before.lon, sog: before.sog };
      if (ruled) {
        const watch = gapWatch(before, snapshot.rules, snapshot.zoneRules);
        // Judged on the clock of the feed that carried its last report (this report's may be another's).
        const from = vesselSilentFrom(feed, p.mmsi, before.last_seen_at, lossMs(watch));
        for (const intent of gapOnReport(before, report, from, watch)) events.push(ruleEvent(intent, p.station ?? p.source));
        insideBefore = insideTimed(before, snapshot);
      }
    }
    feed.sourceOf.set(p.mmsi, p.source);
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
    const state = result.state;
    states.set(p.mmsi, state);
    for (const intent of result.intents) events.push(zoneEvent(intent, p.station ?? p.source));
    if (ruled) {
      const found = applyVesselRules({ vessel: state, report, previous, zones: snapshot.rules, ruleSets: snapshot.zoneRules, insideAt: crossingsWatched ? insideAt : undefined });
      for (const intent of found) events.push(ruleEvent(intent, p.station ?? p.source));
      occupancyChanges(state.mmsi, insideBefore, insideTimed(state, snapshot), reportedAt, occupancy, true);
    }
    if (encountersWatched || state.rules?.encounter !== undefined) {
      for (const fix of encounterFixes(state, report, snapshot.rules, snapshot.zoneRules)) encounters.push(fix);
    }
    if (events.length > firstEvent || state.rules?.risk !== undefined) {
      const risk = updateRisk(state, events.slice(firstEvent).filter((e) => e.metadata.mmsi === p.mmsi), reportedAt);
      if (risk !== undefined) events.push(ruleEvent(risk, p.station ?? p.source));
    }
    // A vessel with nothing durable before or after has nothing to write (its fix stays in memory).
    if (durableBefore || isDurable(state)) changed.set(p.mmsi, state);
  }
  return { events, changed: [...changed.values()], late, future, watermarks, occupancy, encounters };

  function learn(state: VesselState, facts: VesselFacts): void {
    const outcome = learnVessel(state, facts, snapshot.rules, config);
    if (outcome.changed) changed.set(state.mmsi, state);
    for (const intent of outcome.intents) events.push(zoneEvent(intent, LEARNED_DEVICE));
  }
}

/** Step 0: the feeds' clocks take in the whole batch first; the feed outages it ends are announced. */
function feedClocks(items: readonly PartitionedPosition[], feed: FeedState, config: ZoneRulesConfig, events: SecurityEvent[]): void {
  const reports = items.flatMap(({ position: p }) => {
    const t = p.lat === undefined || p.lon === undefined ? undefined : believableReportTime(p);
    return t === undefined ? [] : [{ source: p.source, t, mmsi: p.mmsi, device: p.station ?? p.source }];
  });
  for (const { outage, report } of observeBatch(feed, reports, config.feed_silence_seconds)) {
    events.push(ruleEvent(feedSilenceIntent(outage, config.feed_silence_seconds, report.source), report.device));
  }
}

/** `source_device` of the events that static data learned after the report they re-evaluate gives. */
const LEARNED_DEVICE = 'ais-static';

/** A vessel far from every zone is forgotten after this much silence (its previous fix no longer matters). */
const FORGET_AFTER_MS = 6 * 3_600_000;

const NONE: string[] = [];

/** Zones with time rules the vessel is inside (as the zone step confirms it). */
function insideTimed(state: VesselState, snapshot: ZoneSnapshot): string[] {
  let out: string[] | undefined;
  for (const p of state.zones) {
    if (p.presence !== 'inside' || snapshot.zoneRules.get(p.zone_id)?.time_rules === undefined) continue;
    (out ??= []).push(p.zone_id);
  }
  return out ?? NONE;
}

/**
 * The stays that start or end between `before` and `after`; with `still`, also the stays that go on (so
 * a vessel inside a zone when it got its time rules is counted at its next report, not its next entry).
 */
function occupancyChanges(mmsi: number, before: string[], after: string[], at: number, out: OccupancyChange[], still = false): void {
  if (before === after) return;
  for (const zone_id of after) {
    if (!before.includes(zone_id)) out.push({ zone_id, mmsi, inside: true, at });
    else if (still) out.push({ zone_id, mmsi, inside: true, at, still: true });
  }
  for (const zone_id of before) if (!after.includes(zone_id)) out.push({ zone_id, mmsi, inside: false, at });
}

const lossMs = (watch: Watch | undefined): number => (watch === undefined ? 0 : watch.loss_seconds * 1000);

/**
 * The ais_gap (and the risk score it moves) of a vessel silent past its limit as of `asOf` (its feed's
 * clock), counting only the time its feed was carrying, if not raised yet.
 */
function silenceGap(state: VesselState, asOf: number, feed: FeedState | undefined, snapshot: ZoneSnapshot): SecurityEvent[] {
  const watch = gapWatch(state, snapshot.rules, snapshot.zoneRules);
  if (watch === undefined) return [];
  const from = feed === undefined ? state.last_seen_at : vesselSilentFrom(feed, state.mmsi, state.last_seen_at, lossMs(watch));
  const gap = detectSilence(state, asOf, from, watch);
  if (gap === undefined) return [];
  const risk = updateRisk(state, [gap], Date.parse(gap.timestamp));
  return risk === undefined ? [ruleEvent(gap, 'ais-silence')] : [ruleEvent(gap, 'ais-silence'), ruleEvent(risk, 'ais-silence')];
}

/**
 * A batch's outcome followed by housekeeping's, with each changed vessel once: in a catch-up the same
 * vessel both reports and is found silent in one batch, and one upsert cannot write a row twice.
 */
export function withHousekeeping(batch: BatchOutcome, expired: Pick<BatchOutcome, 'events' | 'changed' | 'occupancy'>): BatchOutcome {
  const changed = new Map(batch.changed.map((s) => [s.mmsi, s]));
  for (const state of expired.changed) changed.set(state.mmsi, state);
  return { ...batch, events: batch.events.concat(expired.events), changed: [...changed.values()], occupancy: batch.occupancy.concat(expired.occupancy) };
}

/**
 * Housekeeping, as of each vessel's clock (`asOf`: in the service its feed's clock, feed-silence.ts
 * `feedAsOf`; vessels without one are left alone): closes stays of vessels silent past the configured
 * timeout, raises ais_gap for watched vessels silent past their limit while their feed was carrying (the
 * feed's quiet stretches do not count), and forgets vessels far from every zone that have been silent for
 * hours.
 */
export function expireSilent(
  states: Map<number, VesselState>,
  asOf: (mmsi: number) => number | undefined,
  snapshot: ZoneSnapshot,
  config: ZoneRulesConfig,
  feed?: FeedState,
): Pick<BatchOutcome, 'events' | 'changed' | 'occupancy'> {
  const events: SecurityEvent[] = [];
  const changed: VesselState[] = [];
  const occupancy: OccupancyChange[] = [];
  const ruled = snapshot.zoneRules.size > 0;
  for (const [mmsi, state] of states) {
    const now = asOf(mmsi);
    if (now === undefined) continue;
    if (!isDurable(state)) {
      if (now - state.last_seen_at > FORGET_AFTER_MS) states.delete(mmsi);
      continue;
    }
    let dirty = false;
    if (ruled) {
      const found = silenceGap(state, now, feed, snapshot);
      events.push(...found);
      dirty = found.length > 0;
    }
    if (state.zones.length > 0 && now - state.last_seen_at >= config.silence_timeout_seconds * 1000) {
      const insideBefore = ruled ? insideTimed(state, snapshot) : NONE;
      const result = expire(state, now, snapshot.rules, config);
      if (result.intents.length > 0 || result.state === undefined) {
        for (const intent of result.intents) events.push(zoneEvent(intent, 'ais-silence'));
        if (result.state === undefined) state.zones = [];
        occupancyChanges(mmsi, insideBefore, ruled ? insideTimed(state, snapshot) : NONE, state.last_seen_at, occupancy);
        dirty = true;
      }
    }
    if (dirty) changed.push(state);
  }
  return { events, changed, occupancy };
}
