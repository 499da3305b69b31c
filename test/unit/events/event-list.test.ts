import { describe, expect, it } from 'vitest';
import type { EventFilter } from '../../../events/event-filter.ts';
import { eventListSql, severityRank } from '../../../events/event-list.ts';

const base: EventFilter = { start: new Date('2026-11-20T00:00:00Z'), end: new Date('2026-11-21T00:00:00Z'), sort: 'timestamp', order: 'desc', page: 3, perPage: 20 };

describe('eventListSql', () => {
  it('passes every value as a parameter, never in the statement', () => {
    const hostile = "x'); DROP TABLE security_events; --";
    const sql = eventListSql({ ...base, categories: ['gate'], severities: ['high', 'critical'], sourceModule: hostile, zone: hostile, requiresAction: true, incidentId: hostile, assignedTo: hostile, searchWords: [hostile] });
    for (const text of [sql.page, sql.count]) {
      expect(text).not.toContain('DROP');
      expect(text).not.toContain('gate');
    }
    expect(sql.countParams).toEqual([base.start, base.end, ['gate'], [3, 4], hostile, hostile, true, hostile, hostile, [hostile]]);
    expect(sql.pageParams).toEqual([...sql.countParams, 20, 40]);
  });

  it('orders by time then id, or by severity rank then time then id, all in the requested direction', () => {
    expect(eventListSql(base).page).toContain('ORDER BY e.occurred_at DESC, e.id DESC');
    expect(eventListSql({ ...base, sort: 'severity', order: 'asc' }).page).toContain('ORDER BY event_severity_rank(e.severity) ASC, e.occurred_at ASC, e.id ASC');
    expect(eventListSql(base).count).not.toContain('ORDER BY');
  });

  it('always bounds the time window, and adds only the filters asked for', () => {
    const { count, countParams } = eventListSql(base);
    expect(count).toBe('SELECT count(*)::bigint AS n FROM security_events_current AS e\n WHERE e.occurred_at >= $1::timestamptz\n   AND e.occurred_at <= $2::timestamptz');
    expect(countParams).toEqual([base.start, base.end]);
  });

  it('ranks severities as event_severity_rank() does: low 1 to critical 4', () => {
    expect((['low', 'medium', 'high', 'critical'] as const).map(severityRank)).toEqual([1, 2, 3, 4]);
  });
});
