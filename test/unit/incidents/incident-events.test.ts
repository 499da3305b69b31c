import { describe, expect, it } from 'vitest';
import { eventProblems } from '../../../events/event-types.ts';
import { groupingOf } from '../../../incidents/grouping.ts';
import { incidentAcknowledged, incidentCreated, incidentEscalated, incidentResolved, isIncidentEvent } from '../../../incidents/incident-events.ts';
import * as s from '../../../incidents/incident-state.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';

const NOW = new Date('2026-11-21T07:30:00Z');
const entry: SecurityEvent = {
  id: 'evt_00000000000000000000000000000001', type: 'zone_entry', timestamp: '2026-11-21T07:00:00.000Z', category: 'maritime', severity: 'critical',
  source_module: 'maritime.zones', source_device: 'ais', title: 'CROWN entered Holmen', description: '', location: { lat: 55.69, lng: 12.6, zone: 'Holmen' },
  metadata: { mmsi: 219592000 }, requires_action: true, assigned_to: '', incident_id: null,
};
const opened = s.openIncident(groupingOf(entry), entry, { critical: 5 }, NOW);

describe('the incidents\' own events', () => {
  it('carry the incident\'s severity, ask for action when opened or escalated only, and agree with the type table', () => {
    const acked = s.acknowledge(opened, 'op', NOW);
    const escalated = s.escalate(opened, { critical: 5 }, 3, new Date('2026-11-21T08:00:00Z'))!.incident;
    const resolved = s.resolve(acked, 'op', 'escorted out', NOW);
    const events = [incidentCreated(opened, NOW), incidentAcknowledged(acked, NOW), incidentEscalated(escalated, NOW), incidentResolved(resolved, NOW)];
    expect(events.map((e) => [e.type, e.severity, e.requires_action])).toEqual([
      ['incident_created', 'critical', true], ['incident_acknowledged', 'critical', false], ['incident_escalated', 'critical', true], ['incident_resolved', 'critical', false],
    ]);
    for (const e of events) {
      expect(eventProblems(e)).toEqual([]);
      expect(e).toMatchObject({ category: 'system', source_module: 'incidents', source_device: opened.id, incident_id: opened.id, location: entry.location, metadata: { incident_id: opened.id, key: 'vessel:219592000' } });
      expect(isIncidentEvent(e)).toBe(true);
    }
    expect(isIncidentEvent(entry)).toBe(false);
    expect(events[3]!.metadata).toMatchObject({ resolved_by: 'op', resolution_reason: 'escorted out', merged_into: null });
  });

  it('have ids from the incident and its revision: the same change gives the same id, another change another', () => {
    expect(incidentCreated(opened, NOW).id).toBe(incidentCreated(opened, new Date(0)).id);
    const first = s.resolve(opened, 'op', 'r', NOW);
    const second = s.resolve(s.reopenIncident(first, entry, groupingOf(entry).subject, {}, NOW), 'op', 'r', NOW);
    expect(incidentResolved(first, NOW).id).toBe(incidentResolved(first, NOW).id);
    expect(incidentResolved(second, NOW).id).not.toBe(incidentResolved(first, NOW).id);
  });
});
