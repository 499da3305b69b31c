import { describe, expect, it } from 'vitest';
import {
  bufferAlertLevel,
  requiresActionAt,
  severityOfAlertLevel,
  severityOfEscalation,
} from '../../../../../processors/maritime/rules/event-severity.ts';
import { makeZone } from './zone-fixtures.ts';

describe('event severity', () => {
  it('maps info to low and keeps the other alert levels', () => {
    expect(['info', 'low', 'medium', 'high', 'critical'].map((level) => severityOfAlertLevel(level as never))).toEqual([
      'low',
      'low',
      'medium',
      'high',
      'critical',
    ]);
  });

  it('requires action from medium up', () => {
    expect(requiresActionAt('low')).toBe(false);
    expect(requiresActionAt('medium')).toBe(true);
  });

  it('rates the coast guard rung critical and the others high', () => {
    expect(severityOfEscalation('notify_supervisor')).toBe('high');
    expect(severityOfEscalation('escalate_to_port_authority')).toBe('high');
    expect(severityOfEscalation('escalate_to_coast_guard')).toBe('critical');
  });

  it('uses the buffer level, or one level below the zone when the buffer has none', () => {
    expect(bufferAlertLevel(makeZone({ alert_level: 'critical', buffer: { distance_meters: 500, enabled: true, alert_level: 'low' } }))).toBe('low');
    expect(bufferAlertLevel(makeZone({ alert_level: 'critical', buffer: { distance_meters: 500, enabled: true } }))).toBe('high');
    expect(bufferAlertLevel(makeZone({ alert_level: 'info', buffer: { distance_meters: 500, enabled: true } }))).toBe('info');
  });
});
