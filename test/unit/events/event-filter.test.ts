import { describe, expect, it } from 'vitest';
import { eventFilter, filterProblems, parseInstant, searchWords } from '../../../events/event-filter.ts';
import type { EventListQuery } from '../../../schemas/event-api.ts';

const NOW = new Date('2026-11-21T12:00:00Z');
const query = (q: Partial<EventListQuery> = {}): EventListQuery => ({ sort: 'timestamp', order: 'desc', page: 1, per_page: 50, ...q });

describe('parseInstant', () => {
  it('reads ISO 8601 dates and date-times as clients write them', () => {
    const at = (text: string) => parseInstant(text)?.toISOString();
    expect(at('2026-11-21')).toBe('2026-11-21T00:00:00.000Z');
    expect(at('2026-11-21T07:30')).toBe('2026-11-21T07:30:00.000Z');
    expect(at('2026-11-21T07:30:15')).toBe('2026-11-21T07:30:15.000Z');
    expect(at('2026-11-21T07:30:15.5Z')).toBe('2026-11-21T07:30:15.500Z');
    expect(at('2026-11-21T07:30:15.123456789z')).toBe('2026-11-21T07:30:15.123Z');
    expect(at('2026-11-21T08:30:15+01:00')).toBe('2026-11-21T07:30:15.000Z');
    expect(at('2026-11-21T02:30:15-0500')).toBe('2026-11-21T07:30:15.000Z');
    expect(at('2026-11-21 07:30:15Z')).toBe('2026-11-21T07:30:15.000Z');
  });

  it('reads a space before the offset as the + an unencoded query string lost', () => {
    expect(parseInstant('2026-11-21T08:30:15 01:00')?.toISOString()).toBe('2026-11-21T07:30:15.000Z');
  });

  it('refuses what is not a date, or a date that does not exist', () => {
    for (const text of ['yesterday', '2026-11-21T', '2026-13-01', '2026-02-29', '2026-11-21T24:00:00Z', '2026-11-21T07:60Z', '1700000000', '2026-11-21T07:30:15+01']) {
      expect(parseInstant(text), text).toBeUndefined();
    }
    expect(parseInstant('2028-02-29')?.toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });
});

describe('searchWords', () => {
  it('splits on everything but letters and digits, keeping inner . - _ as PostgreSQL does', () => {
    expect(searchWords('Perimeter breach!  "north fence"')).toEqual(['perimeter', 'breach', 'north', 'fence']);
    expect(searchWords('cam-12 12.5 zone_entry MSCU1234565')).toEqual(['cam-12', '12.5', 'zone_entry', 'mscu1234565']);
    expect(searchWords("it's -x- .5 a--b")).toEqual(['it', 's', 'x', '5', 'a', 'b']);
    expect(searchWords('Øresund kø Kø')).toEqual(['øresund', 'kø']);
    expect(searchWords('?! --')).toEqual([]);
  });
});

describe('eventFilter', () => {
  it('defaults to the 24 hours before now', () => {
    expect(eventFilter(query(), NOW)).toMatchObject({ start: new Date('2026-11-20T12:00:00Z'), end: NOW, sort: 'timestamp', order: 'desc', page: 1, perPage: 50 });
  });

  it('puts the default start 24 hours before a given end, and the default end at now after a given start', () => {
    expect(eventFilter(query({ end_date: '2026-11-01T00:00:00Z' }), NOW)).toMatchObject({ start: new Date('2026-10-31T00:00:00Z'), end: new Date('2026-11-01T00:00:00Z') });
    expect(eventFilter(query({ start_date: '2026-11-01' }), NOW)).toMatchObject({ start: new Date('2026-11-01T00:00:00Z'), end: NOW });
  });

  it('reads comma-separated lists once each, and the search words', () => {
    const filter = eventFilter(query({ category: 'gate, perimeter,gate', severity: 'high', search: 'Crown of' }), NOW);
    expect(filter).toMatchObject({ categories: ['gate', 'perimeter'], severities: ['high'], searchWords: ['crown', 'of'] });
    expect(eventFilter(query(), NOW).categories).toBeUndefined();
  });

  it('reads a comma-separated list of event types of the type table (issue 33)', () => {
    expect(eventFilter(query({ type: 'zone_entry, dwell_threshold,zone_entry' }), NOW).types).toEqual(['zone_entry', 'dwell_threshold']);
    expect(eventFilter(query(), NOW).types).toBeUndefined();
    expect(filterProblems({ type: 'zone_entry,zone_party,ZONE_EXIT' }, NOW)).toEqual([{ path: '/type', message: expect.stringMatching(/^unknown type "zone_party", "ZONE_EXIT"; valid values: gate_transaction_created, ocr_mismatch, .* \(comma-separated\)$/) }]);
  });
});

describe('filterProblems', () => {
  it('names the valid values of an unknown list value, every problem at once', () => {
    expect(filterProblems({ category: 'gate,harbour,dock', severity: 'urgent', start_date: 'soon', search: '!!' }, NOW)).toEqual([
      { path: '/start_date', message: 'must be an ISO 8601 date or date-time, e.g. 2026-11-21 or 2026-11-21T07:00:00Z' },
      { path: '/category', message: 'unknown category "harbour", "dock"; valid values: gate, perimeter, maritime, drone, system, decision (comma-separated)' },
      { path: '/severity', message: 'unknown severity "urgent"; valid values: low, medium, high, critical (comma-separated)' },
      { path: '/search', message: 'must contain a word (letters or digits)' },
    ]);
  });

  it('refuses a window that ends before it starts, and too many search words', () => {
    expect(filterProblems({ start_date: '2026-11-21T10:00:00Z', end_date: '2026-11-21T09:59:59Z' }, NOW)).toEqual([{ path: '/start_date', message: 'must not be after end_date (2026-11-21T09:59:59.000Z)' }]);
    expect(filterProblems({ start_date: '2026-11-21T10:00:00Z', end_date: '2026-11-21T10:00:00Z' }, NOW)).toEqual([]);
    expect(filterProblems({ search: Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ') }, NOW)).toEqual([{ path: '/search', message: 'must have at most 16 words, got 17' }]);
  });

  it('leaves values of the wrong type to the schema', () => {
    expect(filterProblems({ category: ['gate', 'x'], start_date: 5, sort: 'x' }, NOW)).toEqual([]);
    expect(filterProblems(null, NOW)).toEqual([]);
  });
});
