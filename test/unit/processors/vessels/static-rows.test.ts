import { describe, expect, it } from 'vitest';
import { staticRows } from '../../../../processors/vessels/static-rows.ts';
import type { VesselStatic } from '../../../../schemas/ais.ts';

const report = (over: Partial<VesselStatic>): VesselStatic => ({
  kind: 'static', msg_type: 24, mmsi: 219000001, source: 'feed', reported_at: '2026-11-20T10:00:00Z', received_at: '2026-11-20T10:00:00Z', raw: ['x'], ...over,
});

describe('staticRows', () => {
  it('merges type 24 part A (name) and part B (type, dimensions) of a vessel in either order', () => {
    const a = report({ part: 'A', name: 'NORDIC TUG', reported_at: '2026-11-20T10:00:05Z' });
    const b = report({ part: 'B', ship_type: 52, ship_category: 'tug', callsign: 'OXAB2', to_bow: 10, to_stern: 5, length: 15 });
    for (const order of [[a, b], [b, a]]) {
      const [row] = staticRows(order);
      expect(row).toMatchObject({ mmsi: 219000001, name: 'NORDIC TUG', ship_type: 52, ship_category: 'tug', callsign: 'OXAB2', to_bow: 10, length: 15, reportedAt: Date.parse('2026-11-20T10:00:05Z') });
    }
  });

  it('lets a newer report change a field, and an older one not', () => {
    const older = report({ msg_type: 5, destination: 'AARHUS', reported_at: '2026-11-20T09:00:00Z' });
    const newer = report({ msg_type: 5, destination: 'MALMO', reported_at: '2026-11-20T11:00:00Z' });
    expect(staticRows([newer, older])[0]?.destination).toBe('MALMO');
  });

  it('gives one row per vessel sorted by MMSI, null for fields never reported', () => {
    const rows = staticRows([report({ mmsi: 5, name: 'B' }), report({ mmsi: 2, name: 'A' })]);
    expect(rows.map((r) => [r.mmsi, r.name, r.imo])).toEqual([[2, 'A', null], [5, 'B', null]]);
  });
});
