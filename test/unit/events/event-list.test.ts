import { describe, expect, it } from 'vitest';
import type { EventFilter } from '../../../events/event-filter.ts';
import { eventListSql, severityRank } from '../../../events/event-list.ts';

const base: EventFilter = { start: new Date('2026-11-20T00:00:00Z'), end: new Date('2026-11-21T00:00:00Z'), sort: 'timestamp', order: 'desc', page: 3, perPage: 20 };

describe('eventListSql', () => {
  it('passes every value as a parameter, never in the statement', () => {
    const hostile = "x'); DROP TABLE security_events; --";
    const filter: EventFilter = { ...base, categories: ['gate'], types: ['seal_violation'], severities: ['high', 'critical'], sourceModule: hostile, zone: hostile, requiresAction: true, incidentId: hostile, assignedTo: hostile, searchWords: [hostile] };
    const sql = eventListSql(filter, { names: [hostile], ids: [hostile] });
    for (const text of [sql.page, sql.count]) {
      expect(text).not.toContain('DROP');
      expect(text).not.toContain('gate');
      expect(text).not.toContain('seal');
    }
    expect(sql.countParams).toEqual([base.start, base.end, ['gate'], ['seal_violation'], [3, 4], hostile, [hostile], [hostile], true, hostile, hostile, [hostile]]);
    expect(sql.pageParams).toEqual([...sql.countParams, 20, 40]);
  });

  it('orders by time then id, or by severity rank then time then id, all in the requested direction', () => {
    expect(eventListSql(base).page).toContain('ORDER BY e.occurred_at DESC, e.id DESC');
    expect(eventListSql(base).page).toMatch(/ORDER BY p.occurred_at DESC, p.id DESC$/);
    const bySeverity = eventListSql({ ...base, sort: 'severity', order: 'asc' }).page;
    expect(bySeverity).toContain('ORDER BY event_severity_rank(e.severity) ASC, e.occurred_at ASC, e.id ASC');
    expect(bySeverity).toMatch(/ORDER BY event_severity_rank\(p.severity\) ASC, p.occurred_at ASC, p.id ASC$/);
    expect(eventListSql(base).count).not.toContain('ORDER BY');
  });

  it('always bounds the time window, and adds only the filters asked for', () => {
    const { count, countParams } = eventListSql(base);
    expect(count).toBe('SELECT count(*)::bigint AS n FROM security_events AS e\n WHERE e.occurred_at >= $1::timestamptz\n   AND e.occurred_at <= $2::timestamptz');
    expect(countParams).toEqual([base.start, base.end]);
  });

  it('reads through the view only when a filter concerns what operators change', () => {
    const zone = { names: ['north fence'], ids: ['zone_1'] };
    const plain = eventListSql({ ...base, zone: 'zone_1' }, zone);
    expect(plain.count).toContain("FROM security_events AS e\n WHERE e.occurred_at >= $1::timestamptz\n   AND e.occurred_at <= $2::timestamptz\n   AND (lower(e.zone) = ANY($3::text[]) OR (e.body->'metadata'->>'zone_id') = ANY($4::text[]))");
    expect(plain.page).toContain('FROM security_events AS e');
    for (const operator of [{ requiresAction: false }, { incidentId: 'inc_1' }, { assignedTo: 'duty.officer' }]) {
      const { count, page } = eventListSql({ ...base, ...operator, zone: 'zone_1' }, zone);
      expect(count).toContain('FROM security_events_current AS e');
      expect(count).toContain('OR e.zone_id = ANY($4::text[])');
      expect(page).toContain('FROM security_events_current AS e');
    }
  });

  it('counts a search in the page\'s own scan, and everything else apart', () => {
    const search = eventListSql({ ...base, searchWords: ['crown'] });
    expect(search.totalInPage).toBe(true);
    expect(search.page).toMatch(/^WITH matches AS MATERIALIZED \(\n {3}SELECT e.id, e.occurred_at, e.severity FROM security_events AS e\n/);
    expect(search.page).toContain('SELECT c.body, (SELECT count(*) FROM matches) AS total FROM (\n   SELECT * FROM matches AS e ORDER BY e.occurred_at DESC, e.id DESC LIMIT $4::int OFFSET $5::bigint');
    expect(eventListSql(base).totalInPage).toBe(false);
    expect(eventListSql(base).page).toMatch(/^SELECT c.body FROM \(\n {3}SELECT e.id, e.occurred_at, e.severity FROM security_events AS e\n/);
  });

  it('ranks severities as event_severity_rank() does: low 1 to critical 4', () => {
    expect((['low', 'medium', 'high', 'critical'] as const).map(severityRank)).toEqual([1, 2, 3, 4]);
  });
});
