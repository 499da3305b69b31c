import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { alertEvent } from '../../../../delivery/webhooks/alerts.ts';
import { deliveryRequest } from '../../../../delivery/webhooks/delivery-request.ts';
import { testEvent } from '../../../../delivery/webhooks/test-events.ts';
import { EVENT_TYPES, eventProblems, type EventType } from '../../../../events/event-types.ts';
import { groupingOf } from '../../../../incidents/grouping.ts';
import { incidentAcknowledged, incidentCreated, incidentEscalated, incidentResolved } from '../../../../incidents/incident-events.ts';
import * as incidentState from '../../../../incidents/incident-state.ts';
import { findingsOf } from '../../../../ingest/gate/readings.ts';
import { DEFAULT_APPOINTMENT_POLICY } from '../../../../processors/gate/appointment-policy.ts';
import { DEFAULT_THRESHOLDS } from '../../../../processors/gate/decision.ts';
import { overrideEvents, transactionEvents } from '../../../../processors/gate/gate-events.ts';
import { DEFAULT_RISK_RULES } from '../../../../processors/gate/risk.ts';
import { buildTransaction } from '../../../../processors/gate/transaction.ts';
import { updateRisk } from '../../../../processors/maritime/rules/risk-score.ts';
import { newVesselState } from '../../../../processors/maritime/rules/vessel-state.ts';
import { securityEventSchema, type SecurityEvent } from '../../../../schemas/event.ts';
import type { ZoneRuleSet } from '../../../../schemas/maritime-rules.ts';
import { reading } from '../../../support/gate-readings.ts';
import { runVessel, type Fix } from '../../processors/maritime/rules/rule-harness.ts';
import { every, makeZone, MINUTE, MMSI, run, SECOND, T0, zoneMap } from '../../processors/maritime/rules/zone-fixtures.ts';

const NOW = Date.parse('2026-11-21T08:00:00Z');
const TYPES = Object.keys(EVENT_TYPES) as EventType[];
// Types whose real events have no place: a gate lane, a decision about one, a component's health.
const PLACELESS = (type: EventType) => ['gate', 'decision'].includes(EVENT_TYPES[type].category) || type === 'system_health_change';

interface Finding {
  type: string;
  location: SecurityEvent['location'];
  metadata: object;
}

/** Real events from the producers' own pure code, one scenario per family. */
function realEvents(): Finding[] {
  const found: Finding[] = [];
  // Gate (gate-events.ts): a booked truck with a broken seal (held), the same with the wrong box and high
  // damage (rejected, with ocr_mismatch and damage_detected), and an override with a lock.
  const decided = (container: Record<string, unknown>, damage: unknown[]) => {
    const r = reading({ container: { ...reading().container!, seal: { number: 'SL-1', status: 'broken', confidence: 0.9 }, ...container }, inspection: { damage_regions: damage as never, images: [] } });
    const booking = { appointment_id: 'apt-1', plate: r.vehicle!.plate!, container_id: 'CSQU3054383', seal_number: 'SL-1' };
    return buildTransaction({ ...r, source: 'test', received_at: '2025-03-01T08:30:00.000Z', findings: findingsOf(r) }, { appointment: booking, required: true }, { risk: DEFAULT_RISK_RULES, thresholds: DEFAULT_THRESHOLDS, appointments: DEFAULT_APPOINTMENT_POLICY }, Date.parse('2025-03-01T08:30:01Z'));
  };
  const tx = decided({ id: 'MSCU1234565' }, [{ type: 'dent', severity: 'high', confidence: 0.9 }]);
  found.push(...transactionEvents(tx), ...transactionEvents(decided({}, [])));
  found.push(...overrideEvents({ id: tx.id, status: 'overridden', previous_decision: 'manual_review', new_decision: 'rejected', overridden_by: 'op', overridden_at: '2025-03-01T08:31:00Z', reason: 'a reason of length', gate_action: 'lock', gate_action_executed: true }, { gate: 'G', lane: 'L', notes: 'n' }));
  // Zone events (zone-event-intents.ts): approach, entry, dwell rungs, exit.
  const zone = makeZone({ id: 'z1', buffer: { enabled: true, distance_meters: 500 }, dwell: { threshold_minutes: 15, escalation: [{ after_minutes: 5, action: 'notify_supervisor' }] } });
  const reports = [{ at: T0, near: ['z1'] }, ...every(30 * SECOND, T0 + MINUTE, T0 + 30 * MINUTE, { in: ['z1'] }), ...every(30 * SECOND, T0 + 30 * MINUTE, T0 + 33 * MINUTE)];
  found.push(...run(reports, zoneMap(zone)).intents);
  // Behaviour rules (rules/*.ts), with the scenarios of their own tests.
  const z1 = makeZone({ id: 'z1', name: 'Harbour', type: 'monitoring' });
  const speed = new Map<string, ZoneRuleSet>([['z1', { speed_rules: { max_speed_knots: 6, min_speed_knots: 1, alert_on_violation: true, alert_level: 'medium' } }]]);
  const fast = (s: number, sog: number): Fix => ({ s, sog, in: ['z1'] });
  found.push(...runVessel([fast(0, 5), fast(10, 8), fast(20, 9.5), fast(30, 12), fast(40, 9), fast(50, 5), fast(80, 5), fast(120, 5)], zoneMap(z1), speed).intents);
  const ais = new Map<string, ZoneRuleSet>([['z1', { ais_rules: { alert_on: [{ ais_loss_seconds: 300 }, { position_jump_nm: 2 }, { heading_speed_mismatch: true }], alert_level: 'high' } }]]);
  const inside = (s: number, extra: Partial<Fix> = {}): Fix => ({ s, in: ['z1'], ...extra });
  const far = 55.7 + 20 / 60;
  found.push(...runVessel([inside(0), inside(10, { lat: far }), inside(20), inside(30, { lat: far }), inside(40), inside(50, { lat: far })], zoneMap(z1), ais).intents);
  found.push(...runVessel([inside(0, { heading: 180 }), inside(10, { heading: 180 }), inside(20, { heading: 185 })], zoneMap(z1), ais).intents);
  found.push(...runVessel([inside(0), inside(600, { lat: 55.71 })], zoneMap(z1), ais).intents);
  const vessel = newVesselState(MMSI);
  const change = updateRisk(vessel, [{ type: 'ais_gap', metadata: {} } as never, { type: 'position_jump', metadata: {} } as never], T0);
  if (change) found.push(change);
  found.push(alertEvent({ webhookId: 'wh_1', webhookName: 'n', deliveryId: 'dlv_1', attempt: 8, kind: 'failing', at: T0 }));
  // Incidents (incidents/incident-events.ts): one opened by a zone entry, then acknowledged, escalated, resolved.
  const entry = { ...(found.find((e) => e.type === 'zone_entry') as SecurityEvent), id: 'evt_00000000000000000000000000000001' };
  const now = new Date(T0);
  const opened = incidentState.openIncident(groupingOf(entry), entry, { high: 10 }, now);
  const escalated = incidentState.escalate(opened, { high: 10 }, 3, new Date(T0 + 600_000))!.incident;
  const acked = incidentState.acknowledge(escalated, 'op', now);
  found.push(incidentCreated(opened, now), incidentEscalated(escalated, now), incidentAcknowledged(acked, now), incidentResolved(incidentState.resolve(acked, 'op', 'r', now), now));
  return found;
}

describe('webhook test sends', () => {
  const ajv = new Ajv({ strict: false });
  formats.default(ajv);
  const validate = ajv.compile({ ...securityEventSchema, $id: undefined });

  it.each(TYPES)('sends a %s that is a valid Event of its type, marked as a test', (type) => {
    const event = testEvent(type, NOW);
    expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    expect(eventProblems(event)).toEqual([]);
    expect(event).toMatchObject({ type, timestamp: '2026-11-21T08:00:00.000Z', source_module: 'webhooks.test', metadata: { test: true } });
    expect(event.title).toMatch(/^Test event: \S/);
    expect(Object.keys(event.metadata).length).toBeGreaterThan(1);
  });

  it.each(TYPES)('gives a %s the location its real events have', (type) => {
    const { location } = testEvent(type, NOW);
    if (PLACELESS(type)) {
      expect(location).toEqual({});
    } else {
      expect(location).toEqual(expect.objectContaining({ lat: expect.any(Number), lng: expect.any(Number) }));
    }
  });

  it('puts lat and lng in the delivered body of a zone_entry test send (issue 21: it was {})', () => {
    const event = testEvent('zone_entry', NOW);
    const body = JSON.parse(deliveryRequest({ deliveryId: 'dlv_t', webhookId: 'wh_t', event, attempt: 1, now: NOW, secret: 's', customHeaders: {} }).body.toString());
    expect(body.event.location).toEqual({ lat: expect.any(Number), lng: expect.any(Number), zone: expect.any(String) });
    expect(body.event.metadata).toMatchObject({ mmsi: expect.any(Number), zone_id: expect.any(String), test: true });
  });

  it('carries every metadata field, and the location fields, that real events of the type carry', () => {
    const real = realEvents();
    const covered = new Set(real.map((e) => e.type));
    // The scenarios reach every type the service's own producers emit but the unused auto_approved, the
    // rules needing several vessels or schedules, and the intake types (perimeter, drone).
    expect([...covered].sort()).toEqual(expect.arrayContaining(['ais_gap', 'ais_gap_end', 'auto_rejected', 'damage_detected', 'dwell_escalation', 'dwell_threshold', 'gate_locked', 'gate_override', 'gate_transaction_created', 'heading_mismatch', 'identity_conflict', 'incident_acknowledged', 'incident_created', 'incident_escalated', 'incident_resolved', 'manual_review', 'ocr_mismatch', 'position_jump', 'risk_score_change', 'seal_violation', 'speed_anomaly', 'speed_anomaly_end', 'system_health_change', 'zone_approach', 'zone_entry', 'zone_exit']));
    for (const event of real) {
      const sample = testEvent(event.type as EventType, NOW);
      expect(Object.keys(sample.location).sort(), event.type).toEqual(Object.keys(event.location).sort());
      for (const [key, value] of Object.entries(event.metadata) as [string, unknown][]) {
        expect(Object.keys(sample.metadata), `${event.type} metadata.${key}`).toContain(key);
        const got = sample.metadata[key];
        if (value !== null && got !== null) expect(typeof got, `${event.type} metadata.${key}`).toBe(typeof value);
      }
    }
  });
});
