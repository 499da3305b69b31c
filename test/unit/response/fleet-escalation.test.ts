// Who a drone that could not fly is escalated to, and that asking again (a retried dispatch) names the same
// action whatever was escalated since (issue 33, item 10).
import { describe, expect, it } from 'vitest';
import { fleetEscalation } from '../../../response/fleet-escalation.ts';

const ORDER = ['supervisor', 'port_authority', 'coast_guard'];

describe('fleetEscalation', () => {
  it('goes to the first party not yet escalated to, else the last one again; nowhere without an order', () => {
    expect(fleetEscalation(ORDER, new Set(), 'msn_1', 'no_drone')?.party).toBe('supervisor');
    expect(fleetEscalation(ORDER, new Set(['supervisor']), 'msn_1', 'no_drone')?.party).toBe('port_authority');
    expect(fleetEscalation(ORDER, new Set(ORDER), 'msn_1', 'no_drone')?.party).toBe('coast_guard');
    expect(fleetEscalation([], new Set(), 'msn_1', 'no_drone')).toBeUndefined();
  });

  it('one id per mission and outcome, whichever party the retry would pick: a retried dispatch escalates once', () => {
    const first = fleetEscalation(ORDER, new Set(['supervisor']), 'msn_1', 'no_drone');
    const retry = fleetEscalation(ORDER, new Set(['supervisor', 'port_authority']), 'msn_1', 'no_drone');
    expect(retry?.party).toBe('coast_guard');
    expect(retry?.id).toBe(first?.id);
    expect(fleetEscalation(ORDER, new Set(), 'msn_1', 'timeout')?.id).not.toBe(first?.id);
    expect(fleetEscalation(ORDER, new Set(), 'msn_2', 'no_drone')?.id).not.toBe(first?.id);
  });
});
