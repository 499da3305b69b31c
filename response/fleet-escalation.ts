// Who a drone that could not fly (or did not come back) is escalated to, and under which action id. Pure.
import { actionId } from './planner.ts';

/**
 * The escalation of an incident for one of its missions and one outcome (`why`: no_drone, timeout, rejected,
 * failed): to the first party of the escalation order not yet escalated to for the incident, else the last
 * one again. The id is made of the mission and the outcome only, never the party: the dispatch of a
 * mission with no drone available is retried (1 s, 5 s, ...) and asks again each time, and an id naming
 * the party would be new at every retry (the previous one made that party escalated-to), walking the
 * whole escalation order within seconds (issue 33, item 10).
 */
export function fleetEscalation(order: readonly string[], escalatedTo: ReadonlySet<string>, missionId: string, why: string): { id: string; party: string } | undefined {
  const party = order.find((p) => !escalatedTo.has(p)) ?? order[order.length - 1];
  return party === undefined ? undefined : { id: actionId(`${missionId}:${why}`, 'escalate', 'fleet'), party };
}
