import type { EventType } from '../../../events/event-types.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';
import type { AlertRuleTriggerName } from '../../../schemas/maritime-rules.ts';
import type { AlertLevel, EscalationAction, ZoneType } from '../../../schemas/zone.ts';
import type { RuleZone } from './config.ts';
import type { DwellPolicy } from './dwell-policy.ts';
import {
  bufferAlertLevel,
  DWELL_THRESHOLD_SEVERITY,
  requiresActionAt,
  severityOfAlertLevel,
  severityOfEscalation,
} from './event-severity.ts';
import { alertStatusOf, visitDwellMs, type AlertStatus, type Fix, type VesselState, type ZonePresence } from './vessel-state.ts';

export type ZoneEventType = Extract<EventType, 'zone_entry' | 'zone_exit' | 'zone_approach' | 'dwell_threshold' | 'dwell_escalation'>;
export type EntryReason = 'entered' | 'alerting_started' | 'authorized';

/**
 * The spec's Event (schemas/event.ts) without what the adapter owns (`id` = hash of `key`,
 * `source_module`, `source_device`, `assigned_to`, `incident_id`), narrowed where zone events are
 * narrower: a zone type, the maritime category, a full location and typed metadata. The `timestamp`
 * is event time (ISO 8601 UTC): see each builder for which instant.
 */
export type ZoneEventIntent = Omit<SecurityEvent, 'id' | 'source_module' | 'source_device' | 'assigned_to' | 'incident_id' | 'type' | 'category' | 'location' | 'metadata'> & {
  /** Deterministic: the same reports from the same state give the same key, so the same event id. */
  key: string;
  type: ZoneEventType;
  category: 'maritime';
  location: Required<SecurityEvent['location']>;
  metadata: ZoneEventMetadata;
};

export interface ZoneEventMetadata {
  mmsi: number;
  vessel_name: string | null;
  vessel_type: string | null;
  zone_id: string;
  zone_name: string;
  zone_type: ZoneType;
  /** The configured level behind the severity (the buffer's for zone_approach); keeps `info`. */
  alert_level: AlertLevel;
  /** Knots and degrees from the report, null when the report had none. */
  speed: number | null;
  course: number | null;
  /** Whole minutes of visit dwell (carry-over included) at the event's timestamp. */
  dwell_minutes: number;
  authorized: boolean;
  schedule_active: boolean;
  /** Whether this event is an alert; false for the low records of authorized / off-schedule presence. */
  alerting: boolean;
  alert_status: AlertStatus;
  visit_started_at: string | null;
  entered_at: string | null;
  /**
   * zone_entry: `entered`, or `alerting_started` when a vessel already inside begins to alert (the
   * schedule came into force, or its authorization was withdrawn), or `authorized` when a vessel type
   * learned after the entry authorizes a vessel that was alerting (the record that its alert was not needed).
   */
  reason?: EntryReason;
  /** zone_entry: dwell carried over from earlier stays of this visit (re-entry within the reset window). */
  carried_over_minutes?: number;
  /** zone_exit: `left` (confirmed by reports) or `signal_lost` (closed by `expire`). */
  exit_reason?: 'left' | 'signal_lost';
  /**
   * The zone's alert rule trigger that set this event's level (issue 23): `on_entry` / `on_exit` on an
   * alerting zone_entry / zone_exit, `on_dwell` on the dwell_threshold raised at its own point.
   */
  alert_rule?: AlertRuleTriggerName;
  /** dwell_threshold / dwell_escalation; for `alert_rule: on_dwell`, the rule's point. */
  threshold_minutes?: number;
  /** dwell_threshold / dwell_escalation: the computed instant the visit dwell crossed the rung. */
  crossed_at?: string;
  action?: EscalationAction;
  after_minutes?: number;
  buffer_distance_meters?: number;
}

/** Bits of the alerting flags a rule computes once per report. */
export const AUTHORIZED = 1;
export const SCHEDULE_ACTIVE = 2;
export function isAlerting(flags: number): boolean {
  return flags === SCHEDULE_ACTIVE;
}

/**
 * zone_entry at the report that entered (or at which an inside vessel began to alert). `learned`: the
 * vessel's type became known (or changed) after that report was evaluated; the key then names the type,
 * so it differs from the entry evaluated at the same report.
 */
export function entryIntent(
  zone: RuleZone,
  vessel: VesselState,
  p: ZonePresence,
  at_ms: number,
  flags: number,
  reason: EntryReason,
  learned = false,
): ZoneEventIntent {
  const alerting = isAlerting(flags);
  const rule = zone.alert_rules?.on_entry;
  const level = rule?.alert_level ?? zone.alert_level;
  const metadata = baseMetadata(zone, vessel, p, vessel, at_ms, flags, level);
  if (alerting && rule !== undefined) metadata.alert_rule = 'on_entry';
  metadata.reason = reason;
  if (p.carried_ms > 0) metadata.carried_over_minutes = wholeMinutes(p.carried_ms);
  const verb = reason === 'entered' ? 'entered' : 'is in';
  const why = alerting ? '' : unalertedWhy(flags);
  const key = eventKey('zone_entry', zone.id, vessel.mmsi, at_ms);
  return {
    key: learned ? learnedKey(key, vessel) : key,
    type: 'zone_entry',
    category: 'maritime',
    severity: alerting ? severityOfAlertLevel(level) : 'low',
    timestamp: iso(at_ms),
    title: `${vesselLabel(vessel)} ${verb} ${zone.type} zone ${zone.name}${why}`,
    description: entryDescription(vessel, p, at_ms, reason, learned, metadata.carried_over_minutes),
    location: { lat: vessel.lat, lng: vessel.lon, zone: zone.name },
    requires_action: alerting && requiresActionAt(level),
    metadata,
  };
}

function entryDescription(vessel: VesselState, p: ZonePresence, at_ms: number, reason: EntryReason, learned: boolean, carried: number | undefined): string {
  if (reason === 'entered') {
    return `Entered at ${iso(at_ms)}${carried !== undefined ? `; ${carried} min of dwell carried over from a stay that ended within the reset window` : ''}.`;
  }
  const since = `Inside since ${iso(p.entered_at ?? at_ms)}`;
  if (reason === 'authorized') {
    return `${since}; authorized as ${vessel.vessel_type ?? 'its type'}, learned from static data after the entry was evaluated: no alerts for this vessel here from ${iso(at_ms)}.`;
  }
  return learned
    ? `${since}; alerting from ${iso(at_ms)}: its vessel type (${vessel.vessel_type ?? 'unknown'}), learned from static data after the entry was evaluated, is not authorized here.`
    : `${since}; alerting from ${iso(at_ms)}, when the zone's schedule was in force and the vessel not authorized.`;
}

/** The key of an event found by re-evaluating a report with a vessel type learned later: names the type. */
function learnedKey(key: string, vessel: VesselState): string {
  return `${key}:vessel_type=${vessel.vessel_type ?? ''}`;
}

/**
 * zone_exit, timestamped at the exit instant (the first report outside, or the last report for a
 * lost signal) and placed at that fix; the key names the stay by its entry, so one exit per stay.
 * Low, needing no action, unless the zone's alert rule `on_exit` gives an alerting exit its level.
 */
export function exitIntent(
  zone: RuleZone,
  vessel: VesselState,
  p: ZonePresence,
  stay_entered_at: number,
  exit_at_ms: number,
  fix: Fix,
  exit_reason: 'left' | 'signal_lost',
  flags: number,
): ZoneEventIntent {
  const rule = isAlerting(flags) ? zone.alert_rules?.on_exit : undefined;
  const metadata = baseMetadata(zone, vessel, p, fix, exit_at_ms, flags, rule?.alert_level ?? zone.alert_level);
  if (rule !== undefined) metadata.alert_rule = 'on_exit';
  metadata.entered_at = iso(stay_entered_at);
  metadata.exit_reason = exit_reason;
  const label = vesselLabel(vessel);
  return {
    key: eventKey('zone_exit', zone.id, vessel.mmsi, stay_entered_at),
    type: 'zone_exit',
    category: 'maritime',
    severity: rule === undefined ? 'low' : severityOfAlertLevel(rule.alert_level),
    timestamp: iso(exit_at_ms),
    title:
      exit_reason === 'left'
        ? `${label} left ${zone.type} zone ${zone.name}`
        : `${label}: AIS signal lost in ${zone.type} zone ${zone.name}`,
    description: `In the zone from ${iso(stay_entered_at)} to ${iso(exit_at_ms)}${exit_reason === 'signal_lost' ? ' (last report)' : ''}; visit dwell ${metadata.dwell_minutes} min.`,
    location: { lat: fix.lat, lng: fix.lon, zone: zone.name },
    requires_action: rule !== undefined && requiresActionAt(rule.alert_level),
    metadata,
  };
}

/** zone_approach (buffer pre-alert) at the first report within the buffer; `learned` as for entryIntent. */
export function approachIntent(zone: RuleZone, vessel: VesselState, p: ZonePresence, at_ms: number, flags: number, learned = false): ZoneEventIntent {
  const level = bufferAlertLevel(zone);
  const metadata = baseMetadata(zone, vessel, p, vessel, at_ms, flags, level);
  const distance = zone.buffer?.distance_meters;
  if (distance !== undefined) metadata.buffer_distance_meters = distance;
  const key = eventKey('zone_approach', zone.id, vessel.mmsi, at_ms);
  return {
    key: learned ? learnedKey(key, vessel) : key,
    type: 'zone_approach',
    category: 'maritime',
    severity: severityOfAlertLevel(level),
    timestamp: iso(at_ms),
    title: `${vesselLabel(vessel)} approaching ${zone.type} zone ${zone.name}`,
    description: zone.buffer?.message ?? `Within ${distance ?? '?'} m of the zone.`,
    location: { lat: vessel.lat, lng: vessel.lon, zone: zone.name },
    requires_action: requiresActionAt(level),
    metadata,
  };
}

/**
 * dwell_threshold (rung 0) or dwell_escalation (rung k > 0) at the report that found the rung
 * crossed; `metadata.crossed_at` holds the computed crossing instant. Keyed by the visit, so a
 * visit fires each rung once, across re-entries and reprocessing alike.
 */
export function rungIntent(
  zone: RuleZone,
  vessel: VesselState,
  p: ZonePresence,
  policy: DwellPolicy,
  rung: number,
  at_ms: number,
  flags: number,
): ZoneEventIntent {
  const threshold = policy.threshold_minutes ?? 0;
  const step = rung === 0 ? undefined : policy.escalation[rung - 1];
  const metadata = baseMetadata(zone, vessel, p, vessel, at_ms, flags, zone.alert_level);
  metadata.alert_status = rung === 0 ? 'active' : 'escalated';
  metadata.threshold_minutes = threshold;
  metadata.crossed_at = iso(crossingInstant(p, policy.rungs_ms[rung] ?? 0, at_ms));
  const visit = iso(p.visit_started_at ?? at_ms);
  const label = vesselLabel(vessel);
  if (step === undefined) {
    return {
      key: eventKey('dwell_threshold', zone.id, vessel.mmsi, p.visit_started_at ?? at_ms),
      type: 'dwell_threshold',
      category: 'maritime',
      severity: DWELL_THRESHOLD_SEVERITY,
      timestamp: iso(at_ms),
      title:
        threshold === 0
          ? `${label} in ${zone.type} zone ${zone.name}, where no dwell is allowed`
          : `${label} exceeded the ${threshold} min dwell limit in ${zone.type} zone ${zone.name}`,
      description: `Dwell ${metadata.dwell_minutes} min since ${visit} (limit ${threshold} min).`,
      location: { lat: vessel.lat, lng: vessel.lon, zone: zone.name },
      requires_action: true,
      metadata,
    };
  }
  metadata.action = step.action;
  metadata.after_minutes = step.after_minutes;
  return {
    key: `${eventKey('dwell_escalation', zone.id, vessel.mmsi, p.visit_started_at ?? at_ms)}:${step.after_minutes}:${step.action}`,
    type: 'dwell_escalation',
    category: 'maritime',
    severity: severityOfEscalation(step.action),
    timestamp: iso(at_ms),
    title: `${label} ${step.after_minutes} min past the dwell limit in ${zone.type} zone ${zone.name}: ${step.action}`,
    description: `Dwell ${metadata.dwell_minutes} min since ${visit} (limit ${threshold} min, escalation after ${step.after_minutes} min more).`,
    location: { lat: vessel.lat, lng: vessel.lon, zone: zone.name },
    requires_action: true,
    metadata,
  };
}

/**
 * The dwell_threshold of the zone's alert rule `on_dwell` (issue 23), at the report that found its point
 * crossed: the rule's level, `metadata.alert_rule: 'on_dwell'` and the point as `threshold_minutes`. Keyed
 * by the visit like the zone's own threshold (with a suffix, so both can fire), so once per visit.
 */
export function onDwellIntent(zone: RuleZone, vessel: VesselState, p: ZonePresence, threshold_minutes: number, level: AlertLevel, at_ms: number, flags: number): ZoneEventIntent {
  const metadata = baseMetadata(zone, vessel, p, vessel, at_ms, flags, level);
  metadata.alert_rule = 'on_dwell';
  metadata.threshold_minutes = threshold_minutes;
  metadata.crossed_at = iso(crossingInstant(p, threshold_minutes * 60_000, at_ms));
  return {
    key: `${eventKey('dwell_threshold', zone.id, vessel.mmsi, p.visit_started_at ?? at_ms)}:on_dwell`,
    type: 'dwell_threshold',
    category: 'maritime',
    severity: severityOfAlertLevel(level),
    timestamp: iso(at_ms),
    title: `${vesselLabel(vessel)} ${threshold_minutes} min in ${zone.type} zone ${zone.name} (the zone's on_dwell alert rule)`,
    description: `Dwell ${metadata.dwell_minutes} min since ${iso(p.visit_started_at ?? at_ms)} (alert rule on_dwell at ${threshold_minutes} min).`,
    location: { lat: vessel.lat, lng: vessel.lon, zone: zone.name },
    requires_action: requiresActionAt(level),
    metadata,
  };
}

/** `${type}:${zone_id}:${mmsi}:${instant}`; the adapter hashes it into the event id. */
export function eventKey(type: ZoneEventType, zone_id: string, mmsi: number, at_ms: number): string {
  return `${type}:${zone_id}:${mmsi}:${iso(at_ms)}`;
}

export function wholeMinutes(ms: number): number {
  return Math.floor(ms / 60_000);
}

function baseMetadata(
  zone: RuleZone,
  vessel: VesselState,
  p: ZonePresence,
  fix: Fix,
  at_ms: number,
  flags: number,
  alert_level: AlertLevel,
): ZoneEventMetadata {
  return {
    mmsi: vessel.mmsi,
    vessel_name: vessel.vessel_name,
    vessel_type: vessel.vessel_type,
    zone_id: zone.id,
    zone_name: zone.name,
    zone_type: zone.type,
    alert_level,
    speed: fix.sog,
    course: fix.cog,
    dwell_minutes: wholeMinutes(visitDwellMs(p, at_ms)),
    authorized: (flags & AUTHORIZED) !== 0,
    schedule_active: (flags & SCHEDULE_ACTIVE) !== 0,
    alerting: isAlerting(flags),
    alert_status: alertStatusOf(p),
    visit_started_at: p.visit_started_at === null ? null : iso(p.visit_started_at),
    entered_at: p.entered_at === null ? null : iso(p.entered_at),
  };
}

/** When the visit's alerting dwell reached `rung_ms`, never before the current stay began. */
function crossingInstant(p: ZonePresence, rung_ms: number, at_ms: number): number {
  if (p.entered_at === null) return at_ms;
  const crossed = p.entered_at + (p.alert_from_ms ?? 0) + rung_ms - p.carried_ms;
  return Math.min(at_ms, Math.max(p.entered_at, crossed));
}

function unalertedWhy(flags: number): string {
  return (flags & AUTHORIZED) !== 0 ? ' (authorized)' : ' (outside schedule)';
}

function vesselLabel(vessel: VesselState): string {
  return vessel.vessel_name === null ? `Vessel MMSI ${vessel.mmsi}` : `${vessel.vessel_name} (MMSI ${vessel.mmsi})`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
