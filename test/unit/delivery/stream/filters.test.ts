import { describe, expect, it } from 'vitest';
import { compileFilters, severitiesFrom } from '../../../../delivery/stream/filters.ts';
import type { SecurityEvent } from '../../../../schemas/event.ts';

const event = (overrides: Partial<SecurityEvent> = {}): SecurityEvent => ({
  id: 'evt_00000000000000000000000000000000', type: 'zone_entry', timestamp: '2026-11-21T07:00:00.000Z', category: 'maritime', severity: 'medium',
  source_module: 'maritime.zones', source_device: 'ais', title: 't', description: '', location: { lat: 1, lng: 2, zone: 'Harbour mouth' },
  metadata: { zone_id: 'zone_7' }, requires_action: false, assigned_to: '', incident_id: null, ...overrides,
});

describe('stream filters', () => {
  it('match everything when empty, absent lists and empty lists alike', () => {
    expect(compileFilters({})(event())).toBe(true);
    expect(compileFilters({ categories: [], zones: [], source_modules: [] })(event())).toBe(true);
  });

  it('match any of the listed categories', () => {
    const gateOrMaritime = compileFilters({ categories: ['gate', 'maritime'] });
    expect(gateOrMaritime(event())).toBe(true);
    expect(gateOrMaritime(event({ category: 'gate' }))).toBe(true);
    expect(gateOrMaritime(event({ category: 'drone' }))).toBe(false);
  });

  it('match a severity at or above min_severity, by rank', () => {
    const high = compileFilters({ min_severity: 'high' });
    expect(['low', 'medium', 'high', 'critical'].map((severity) => high(event({ severity: severity as SecurityEvent['severity'] })))).toEqual([false, false, true, true]);
    expect(compileFilters({ min_severity: 'low' })(event({ severity: 'low' }))).toBe(true);
  });

  it('match a zone by the event\'s zone name or by the zone id in its metadata, never an event without a zone', () => {
    expect(compileFilters({ zones: ['Harbour mouth'] })(event())).toBe(true);
    expect(compileFilters({ zones: ['zone_7'] })(event())).toBe(true);
    expect(compileFilters({ zones: ['zone_8'] })(event())).toBe(false);
    expect(compileFilters({ zones: ['Harbour mouth'] })(event({ location: {}, metadata: {} }))).toBe(false);
  });

  it('combine fields with AND', () => {
    const f = compileFilters({ categories: ['maritime'], min_severity: 'high', source_modules: ['maritime.zones'], zones: ['zone_7'] });
    expect(f(event({ severity: 'high' }))).toBe(true);
    expect(f(event({ severity: 'high', source_module: 'radar' }))).toBe(false);
    expect(f(event())).toBe(false);
  });

  it('translate min_severity into the severity list GET /v1/events takes', () => {
    expect(severitiesFrom('medium')).toEqual(['medium', 'high', 'critical']);
    expect(severitiesFrom('critical')).toEqual(['critical']);
  });
});
