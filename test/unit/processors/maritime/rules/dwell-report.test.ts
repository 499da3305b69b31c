import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { dwellResponse } from '../../../../../processors/maritime/rules/dwell-report.ts';
import type { VesselState } from '../../../../../processors/maritime/rules/vessel-state.ts';
import { dwellResponseSchema } from '../../../../../schemas/dwell.ts';
import { every, iso, makeZone, MINUTE, run, SECOND, T0, zoneMap, type Report } from './zone-fixtures.ts';

const zone = makeZone({ id: 'z1', name: 'North Basin', type: 'restricted', authorized_vessels: [{ vessel_types: ['tug'] }] });
const zones = zoneMap(zone, makeZone({ id: 'z2', name: 'Elsewhere' }));

const vessel = (reports: Report[]): VesselState => {
  const { state } = run(reports, zones);
  if (state === undefined) throw new Error('no state');
  return state;
};

describe('dwellResponse', () => {
  const asOf = T0 + 60 * MINUTE;
  const states = [
    vessel(every(MINUTE, T0 + 50 * MINUTE, asOf, { mmsi: 1, in: ['z1'], name: 'SHORT STAY' })),
    vessel(every(MINUTE, T0, asOf, { mmsi: 2, in: ['z1'], name: 'LONG STAY' })),
    vessel(every(MINUTE, T0 + 10 * MINUTE, asOf, { mmsi: 3, in: ['z1'], name: 'HARBOUR TUG', category: 'tug' })),
    vessel(every(MINUTE, T0, asOf, { mmsi: 4, in: ['z2'] })),
    vessel([...every(MINUTE, T0, T0 + 5 * MINUTE, { mmsi: 5, in: ['z1'] }), ...every(MINUTE, T0 + 5 * MINUTE, T0 + 9 * MINUTE, { mmsi: 5 })]),
  ];

  it('lists the vessels inside the zone, longest dwell first, with the spec fields', () => {
    const response = dwellResponse(zone, states, asOf);
    expect(response.zone_id).toBe('z1');
    expect(response.zone_name).toBe('North Basin');
    expect(response.vessels).toEqual([
      { mmsi: 2, vessel_name: 'LONG STAY', entered_at: iso(T0), dwell_minutes: 60, authorized: false, alert_status: 'escalated' },
      { mmsi: 3, vessel_name: 'HARBOUR TUG', entered_at: iso(T0 + 10 * MINUTE), dwell_minutes: 50, authorized: true, alert_status: 'none' },
      { mmsi: 1, vessel_name: 'SHORT STAY', entered_at: iso(T0 + 50 * MINUTE), dwell_minutes: 10, authorized: false, alert_status: 'none' },
    ]);
  });

  it('reports active once the dwell threshold has fired and before any escalation', () => {
    const [item] = dwellResponse(zone, [vessel(every(MINUTE, T0, T0 + 20 * MINUTE, { in: ['z1'] }))], T0 + 20 * MINUTE).vessels;
    expect(item?.alert_status).toBe('active');
  });

  it('includes dwell carried over from an earlier stay', () => {
    const reports = [
      ...every(MINUTE, T0, T0 + 10 * MINUTE, { in: ['z1'] }),
      ...every(MINUTE, T0 + 10 * MINUTE, T0 + 13 * MINUTE),
      ...every(MINUTE, T0 + 20 * MINUTE, T0 + 22 * MINUTE, { in: ['z1'] }),
    ];
    const [item] = dwellResponse(zone, [vessel(reports)], T0 + 22 * MINUTE + 30 * SECOND).vessels;
    expect(item).toMatchObject({ entered_at: iso(T0 + 20 * MINUTE), dwell_minutes: 12 });
  });

  it('still lists a vessel whose departure is not confirmed yet', () => {
    const reports = [...every(MINUTE, T0, T0 + 5 * MINUTE, { in: ['z1'] }), { at: T0 + 5 * MINUTE }];
    expect(dwellResponse(zone, [vessel(reports)], T0 + 5 * MINUTE).vessels).toHaveLength(1);
  });

  it('names a vessel without static data with an empty string, as the dwell response schema requires', () => {
    const unnamed: VesselState = { ...vessel(every(MINUTE, T0, T0 + 5 * MINUTE, { mmsi: 6, in: ['z1'] })), vessel_name: null };
    const response = dwellResponse(zone, [unnamed], T0 + 5 * MINUTE);
    expect(response.vessels.map((v) => [v.mmsi, v.vessel_name])).toEqual([[6, '']]);
    const validate = new Ajv({ strict: false }).compile({ ...dwellResponseSchema, $id: undefined });
    expect(validate(response), JSON.stringify(validate.errors)).toBe(true);
  });

  it('answers an empty list for a zone nobody is in', () => {
    expect(dwellResponse(makeZone({ id: 'z9', name: 'Empty' }), states, asOf)).toEqual({ zone_id: 'z9', zone_name: 'Empty', vessels: [] });
  });
});
