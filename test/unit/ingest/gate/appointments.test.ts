import { describe, expect, it } from 'vitest';
import { appointmentProblems, isImoNumber } from '../../../../ingest/gate/appointments.ts';

describe('vessel links of appointments', () => {
  it('checks the IMO check digit', () => {
    // IMO 9074729: 9*7 + 0*6 + 7*5 + 4*4 + 7*3 + 2*2 = 139, and 139 mod 10 = 9.
    expect(isImoNumber(9074729)).toBe(true);
    expect(isImoNumber(9074728)).toBe(false);
    expect(isImoNumber(907472)).toBe(false);
  });

  it('names each appointment whose vessel_imo has a wrong check digit, and nothing else', () => {
    const body = { appointments: [{ vessel_imo: 9074729 }, { vessel_imo: 9074720 }, { vessel_mmsi: 219592000 }, { vessel_imo: 'x' }, null] };
    expect(appointmentProblems(body)).toEqual([{ path: '/appointments/1/vessel_imo', message: '9074720 is not an IMO number: its check digit does not match' }]);
    expect(appointmentProblems(null)).toEqual([]);
  });
});
