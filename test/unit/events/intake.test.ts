import { describe, expect, it } from 'vitest';
import { INTAKE_TYPES, intakeEvent, intakeEventId, intakeProblems } from '../../../events/intake.ts';
import type { EventIntake } from '../../../schemas/event-api.ts';

const NOW = new Date('2026-11-21T12:00:00Z');
const body = (extra: Partial<EventIntake> = {}): EventIntake => ({
  type: 'fence_tamper', source_module: 'perimeter.fence', source_device: 'fence-3', title: 'Fence sensor triggered', description: '',
  location: {}, metadata: {}, assigned_to: '', incident_id: null, ...extra,
});

describe('intakeProblems', () => {
  it('takes the perimeter, drone and system types only', () => {
    expect(INTAKE_TYPES).toEqual([
      'motion_detected', 'perimeter_breach', 'fence_tamper', 'camera_offline',
      'mission_launched', 'mission_completed', 'evidence_captured', 'drone_low_battery', 'drone_lost_link', 'mission_aborted',
      'system_health_change',
    ]);
    expect(intakeProblems(body(), NOW)).toEqual([]);
    expect(intakeProblems(body({ type: 'seal_violation' }), NOW)).toEqual([{ path: '/type', message: expect.stringMatching(/^seal_violation events \(category gate\) are raised by the service itself/) }]);
    expect(intakeProblems(body({ type: 'incident_escalated', severity: 'high' }), NOW)).toEqual([{ path: '/type', message: expect.stringMatching(/^incident_escalated events \(category system\) are raised by the service itself/) }]);
    expect(intakeProblems(body({ type: 'constructor' }), NOW)).toEqual([{ path: '/type', message: expect.stringMatching(/^unknown event type "constructor"/) }]);
  });

  it('checks category and a fixed severity against the type, and wants a severity where it varies', () => {
    expect(intakeProblems(body({ category: 'drone', severity: 'critical' }), NOW)).toEqual([
      { path: '/category', message: 'fence_tamper events are in category perimeter, not drone' },
      { path: '/severity', message: 'fence_tamper events are high, not critical' },
    ]);
    expect(intakeProblems(body({ category: 'perimeter', severity: 'high' }), NOW)).toEqual([]);
    expect(intakeProblems(body({ type: 'system_health_change' }), NOW)).toEqual([{ path: '/severity', message: 'is required: system_health_change events have no fixed severity' }]);
    expect(intakeProblems(body({ type: 'system_health_change', severity: 'critical' }), NOW)).toEqual([]);
  });

  it('refuses a time more than 5 minutes ahead of the service clock', () => {
    expect(intakeProblems(body({ timestamp: '2026-11-21T12:05:00Z' }), NOW)).toEqual([]);
    expect(intakeProblems(body({ timestamp: '2026-11-21T12:05:01Z' }), NOW)).toEqual([{ path: '/timestamp', message: expect.stringContaining('more than 5 minutes in the future') }]);
  });

  it('assumes nothing of a body that failed its schema', () => {
    expect(intakeProblems(null, NOW)).toEqual([]);
    expect(intakeProblems({ type: 7, category: 'x', severity: 9 }, NOW)).toEqual([]);
    expect(intakeProblems({ type: 'fence_tamper', category: 'harbour', severity: 'urgent' }, NOW)).toEqual([]);
  });
});

describe('intakeEvent', () => {
  it('fills in what the server decides: category, fixed severity, time, requires_action from medium up', () => {
    expect(intakeEvent(body(), 'evt_1', NOW)).toEqual({
      id: 'evt_1', type: 'fence_tamper', timestamp: '2026-11-21T12:00:00.000Z', category: 'perimeter', severity: 'high', source_module: 'perimeter.fence',
      source_device: 'fence-3', title: 'Fence sensor triggered', description: '', location: {}, metadata: {}, requires_action: true, assigned_to: '', incident_id: null,
    });
    expect(intakeEvent(body({ type: 'mission_completed' }), 'evt_1', NOW)).toMatchObject({ category: 'drone', severity: 'low', requires_action: false });
    expect(intakeEvent(body({ type: 'system_health_change', severity: 'medium', requires_action: false, timestamp: '2026-11-21T13:00:00+02:00' }), 'evt_1', NOW))
      .toMatchObject({ severity: 'medium', requires_action: false, timestamp: '2026-11-21T11:00:00.000Z' });
  });
});

describe('intakeEventId', () => {
  it('is the same for the same module and key, different across modules, unique without a key', () => {
    expect(intakeEventId('perimeter.fence', 'k1')).toBe(intakeEventId('perimeter.fence', 'k1'));
    expect(intakeEventId('perimeter.fence', 'k1')).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(intakeEventId('perimeter.fence', 'k1')).not.toBe(intakeEventId('perimeter.cameras', 'k1'));
    expect(intakeEventId('perimeter.fence', undefined)).not.toBe(intakeEventId('perimeter.fence', undefined));
  });
});
