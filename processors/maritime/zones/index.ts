// The zones module's entry point for the API and the commands: storage (definition, geography and H3
// cover written together, processors told by NOTIFY), the checks a schema cannot express, and dwell.
import type { Pool } from '../../../platform/postgres.ts';
import type { DwellResponse } from '../../../schemas/dwell.ts';
import type { StoredZone, ZoneCreate } from '../../../schemas/zone.ts';
import { validateZoneGeometry } from '../geometry/validate.ts';
import { dwellResponse } from '../rules/dwell-report.ts';
import { scheduleProblem } from '../rules/schedule.ts';
import { vesselStatesInZone } from '../store/vessel-state-store.ts';
import { bufferMetersOf } from './zone-index.ts';

export { ZoneStore, type ZoneFilter } from './zone-store.ts';

export interface ZoneProblem {
  /** JSON Pointer of the offending field in the request body. */
  path: string;
  message: string;
}

/** What the zone schema cannot say (closed rings, self-intersection, sizes, schedule time zone), each at its field. */
export function zoneProblems(body: ZoneCreate): ZoneProblem[] {
  const problems = validateZoneGeometry(body.geometry, bufferMetersOf(body)).map((message) => ({ path: '/geometry', message }));
  const schedule = body.schedule ? scheduleProblem(body.schedule) : undefined;
  if (schedule) problems.push({ path: `/schedule/${schedule.field}`, message: schedule.message });
  return problems;
}

/** The dwell response of a zone, measured to the newest report among its vessels (event time). */
export async function zoneDwell(pool: Pool, zone: StoredZone): Promise<DwellResponse> {
  const states = await vesselStatesInZone(pool, zone.id);
  const asOf = states.reduce((max, s) => Math.max(max, s.last_seen_at), 0);
  return dwellResponse(zone, states, asOf);
}
