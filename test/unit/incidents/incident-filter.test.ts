import { describe, expect, it } from 'vitest';
import { incidentFilter, incidentFilterProblems } from '../../../incidents/incident-filter.ts';
import { incidentListSql } from '../../../incidents/queries.ts';

const base = { sort: 'opened_at', order: 'desc', page: 1, per_page: 50 } as const;

describe('the incident list query', () => {
  it('reads lists, dates and ids as GET /v1/events does, without a default window', () => {
    expect(incidentFilter({ ...base })).toMatchObject({ start: undefined, end: undefined, statuses: undefined });
    expect(incidentFilter({ ...base, status: 'open, acknowledged', severity: 'critical', container: 'mscu 123456-5', plate: 'ab-12', start_date: '2026-11-21' })).toMatchObject({
      statuses: ['open', 'acknowledged'], severities: ['critical'], container: 'MSCU1234565', plate: 'AB12', start: new Date('2026-11-21T00:00:00Z'),
    });
  });

  it('names every problem: unknown values, unreadable and reversed dates', () => {
    expect(incidentFilterProblems({ status: 'open,closed', severity: 'urgent', start_date: 'yesterday' })).toEqual([
      { path: '/start_date', message: expect.stringContaining('ISO 8601') },
      { path: '/status', message: 'unknown status "closed"; valid values: open, acknowledged, resolved (comma-separated)' },
      { path: '/severity', message: expect.stringContaining('unknown severity "urgent"') },
    ]);
    expect(incidentFilterProblems({ start_date: '2026-11-22', end_date: '2026-11-21' })).toEqual([{ path: '/start_date', message: expect.stringContaining('must not be after end_date') }]);
    expect(incidentFilterProblems(null)).toEqual([]);
  });

  it('passes every value as a parameter and sorts by severity rank, then opening time', () => {
    const sql = incidentListSql(incidentFilter({ ...base, sort: 'severity', order: 'asc', gate: "G1' OR 1=1 --", mmsi: 219592000, page: 3, per_page: 10 }));
    expect(sql.page).not.toContain('OR 1=1');
    expect(sql.page).toMatch(/ORDER BY event_severity_rank\(severity\) ASC, opened_at ASC, id ASC/);
    expect(sql.pageParams).toEqual([219592000, "G1' OR 1=1 --", 10, 20]);
    expect(sql.params).toEqual([219592000, "G1' OR 1=1 --"]);
  });
});
