import { describe, expect, it } from 'vitest';
import { acknowledgement, fromApi, matchesZone, HISTORY_HOURS, historyQuery, insertionIndex, streamFilters } from '../../../console/src/event-list.ts';

describe('the events panel\'s history query', () => {
  const now = Date.parse('2026-11-28T12:00:00Z');
  const params = (q: string) => Object.fromEntries(new URLSearchParams(q.split('?')[1]));
  it('reads the last hours newest first, the end a little ahead for timestamps ahead of the clock', () => {
    expect(params(historyQuery({}, now, 1))).toEqual({
      start_date: new Date(now - HISTORY_HOURS * 3600_000).toISOString(), end_date: '2026-11-28T12:10:00.000Z', sort: 'timestamp', order: 'desc', per_page: '200', page: '1',
    });
  });
  it('asks for what the stream is asked for: a minimum severity becomes the severities from it up', () => {
    const f = { category: 'maritime', minSeverity: 'high', zone: 'Berth 7' };
    expect(params(historyQuery(f, now, 2))).toMatchObject({ category: 'maritime', severity: 'high,critical', zone: 'Berth 7', page: '2' });
    expect(streamFilters(f)).toEqual({ categories: ['maritime'], min_severity: 'high', zones: ['Berth 7'] });
    expect(params(historyQuery({ minSeverity: 'low' }, now, 1)).severity).toBeUndefined();
    expect(streamFilters({})).toEqual({});
  });
});

describe('placing a row in a list kept newest first', () => {
  const list = ['2026-11-28T12:00:00Z', '2026-11-28T11:00:00Z', '2026-11-28T11:00:00Z', '2026-11-28T10:00:00Z'];
  it('goes before the first older row, after rows of the same instant', () => {
    expect(insertionIndex(list, '2026-11-28T13:00:00Z')).toBe(0);
    expect(insertionIndex(list, '2026-11-28T11:00:00Z')).toBe(3);
    expect(insertionIndex(list, '2026-11-28T10:30:00Z')).toBe(3);
    expect(insertionIndex(list, '2026-11-28T09:00:00Z')).toBe(4);
    expect(insertionIndex([], '2026-11-28T09:00:00Z')).toBe(0);
  });
});

describe('events from the REST API and acknowledging', () => {
  it('reads the REST event\'s type as the stream\'s event_type', () => {
    expect(fromApi({ id: 'evt_1', type: 'zone_entry' })).toMatchObject({ event_type: 'zone_entry' });
    expect(fromApi({ id: 'evt_1', event_type: 'zone_entry' })).toMatchObject({ event_type: 'zone_entry' });
  });
  it('takes the action and assigns the event to the operator only when nobody holds it', () => {
    expect(acknowledgement({ assigned_to: '' }, 'duty.officer')).toEqual({ requires_action: false, assigned_to: 'duty.officer' });
    expect(acknowledgement({ assigned_to: 'night.shift' }, 'duty.officer')).toEqual({ requires_action: false });
    expect(acknowledgement({ assigned_to: '' }, '')).toEqual({ requires_action: false });
  });
});

describe('the zone filter on the history', () => {
  it('passes what the stream passes: the zone name or a maritime event\'s zone id, exactly', () => {
    expect(matchesZone({ location: { zone: 'Berth 7' } }, 'Berth 7')).toBe(true);
    expect(matchesZone({ location: { zone: 'Berth 7' } }, 'berth 7')).toBe(false);
    expect(matchesZone({ location: {}, metadata: { zone_id: 'zone_abc' } }, 'zone_abc')).toBe(true);
    expect(matchesZone({ location: null, metadata: null }, 'Berth 7')).toBe(false);
    expect(matchesZone({ location: null }, undefined)).toBe(true);
  });
});
