import { describe, expect, it } from 'vitest';
import { daysAhead, daysOf, isRetained, keepFromDay, positionRow, utcDay, type PositionRow } from '../../../../processors/vessels/position-rows.ts';
import type { VesselPosition } from '../../../../schemas/ais.ts';

const report = (over: Partial<VesselPosition> = {}): VesselPosition => ({
  kind: 'position', msg_type: 1, mmsi: 219000001, source: 'feed-a', reported_at: '2026-11-20T10:00:00.250Z',
  received_at: '2026-11-20T10:00:01Z', raw: ['x'], lat: 55.6, lon: 12.8, sog: 7.5, cog: 91, heading: 90, nav_status: 0, ...over,
});

describe('positionRow', () => {
  it('keeps every stored field, event time in epoch ms', () => {
    expect(positionRow(report())).toEqual({
      mmsi: 219000001, reportedAt: Date.parse('2026-11-20T10:00:00.250Z'), source: 'feed-a', lat: 55.6, lon: 12.8,
      sog: 7.5, cog: 91, heading: 90, navStatus: 0, msgType: 1, receivedAt: Date.parse('2026-11-20T10:00:01Z'),
    });
  });

  it('gives null for fields the report leaves out', () => {
    const { sog: _s, cog: _c, heading: _h, nav_status: _n, ...bare } = report();
    expect(positionRow(bare)).toMatchObject({ sog: null, cog: null, heading: null, navStatus: null });
  });

  it('skips a report without a position, and one dated more than 5 minutes after its receipt', () => {
    const { lat: _lat, lon: _lon, ...noPosition } = report();
    expect(positionRow(noPosition)).toBeUndefined();
    expect(positionRow(report({ reported_at: '2026-11-20T10:06:02Z' }))).toBeUndefined();
    expect(positionRow(report({ reported_at: '2026-11-20T10:04:59Z' }))).toBeDefined();
  });
});

describe('days and retention', () => {
  const now = Date.parse('2026-11-23T21:30:00Z');

  it('names UTC days, across midnight exactly', () => {
    expect(utcDay(Date.parse('2026-11-23T23:59:59.999Z'))).toBe('2026-11-23');
    expect(utcDay(Date.parse('2026-11-24T00:00:00Z'))).toBe('2026-11-24');
  });

  it('keeps today and the retention days before it', () => {
    expect(keepFromDay(now, 1)).toBe('2026-11-23');
    expect(keepFromDay(now, 30)).toBe('2026-10-25');
  });

  it('prepares today and the days ahead', () => {
    expect(daysAhead(now, 2)).toEqual(['2026-11-23', '2026-11-24', '2026-11-25']);
  });

  it('drops rows retention would drop, and lists the days of the rest', () => {
    const rows = [row(1, '2026-10-24T23:59:00Z'), row(1, '2026-10-25T00:00:00Z'), row(2, '2026-11-23T10:00:00Z')];
    const kept = rows.filter((r) => isRetained(r, keepFromDay(now, 30)));
    expect(kept).toHaveLength(2);
    expect(daysOf(kept)).toEqual(['2026-10-25', '2026-11-23']);
  });
});

function row(mmsi: number, at: string): PositionRow {
  return { mmsi, reportedAt: Date.parse(at), source: 's', lat: 0, lon: 0, sog: null, cog: null, heading: null, navStatus: null, msgType: 1, receivedAt: Date.parse(at) };
}
