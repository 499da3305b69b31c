// The title of an escalation says why it was made (issue 33, item 10): an escalation the fleet made for a
// dwell escalation's missing drone no longer reads as the dwell ladder's "notify_supervisor" alone.
import { describe, expect, it } from 'vitest';
import { escalationEvent, escalationWhy } from '../../../response/executors/escalate.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';

const cause = {
  id: 'evt_1', type: 'dwell_escalation', timestamp: '2026-11-28T10:00:00.000Z', category: 'maritime', severity: 'high', source_module: 'maritime.zones', source_device: 'ais',
  title: 'CROWN OF SCANDINAVIA 5 min past the dwell limit in restricted zone Cruise terminal: notify_supervisor', description: 'Dwell 10 min.',
  location: { lat: 55.7, lng: 12.6, zone: 'Cruise terminal' }, metadata: {}, requires_action: true, assigned_to: '', incident_id: null,
} as SecurityEvent;
const PORT_AUTHORITY = { id: 'port_authority', name: 'Port authority', operator_groups: [] };

describe('escalation titles', () => {
  it.each([
    ['ladder:notify_supervisor', 'dwell ladder notify_supervisor'],
    ['level:critical', 'critical alert level'],
    ['zone:Quay: north:on_entry', 'zone Quay: north on_entry rule'],
    ['fleet:no drone available for mission msn_ab12: drone-b battery 42% is below 60%', 'no drone available for mission msn_ab12'],
    ['fleet:drone mission msn_ab12 timeout: no answer', 'drone mission msn_ab12 timeout'],
  ])('%s -> %s', (reason, why) => {
    expect(escalationWhy(reason)).toBe(why);
  });

  it('names the party, why, and the cause', () => {
    const action = { id: 'act_1', kind: 'escalate' as const, target: 'port_authority', eventId: cause.id, incidentId: 'inc_1', level: 'high' as const, reason: 'fleet:no drone available for mission msn_ab12: drone-b battery 42% is below 60%', params: {} };
    const event = escalationEvent(action, cause, PORT_AUTHORITY, new Date('2026-11-28T10:00:01.000Z'));
    expect(event.title).toBe('Escalated to Port authority (no drone available for mission msn_ab12): CROWN OF SCANDINAVIA 5 min past the dwell limit in restricted zone Cruise terminal: notify_supervisor');
    expect(event.metadata).toMatchObject({ party: 'port_authority', reason: action.reason, cause_event_id: cause.id });
  });
});
