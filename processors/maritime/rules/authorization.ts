import type { RuleZone } from './config.ts';

/**
 * Is a vessel authorized in a zone (spec "Threat zone": `authorized_vessels`)? Yes when its MMSI is
 * in any entry's `mmsi_list`, or its category from static data (pilot, tug, port_authority, ...) is
 * in any entry's `vessel_types`. Categories compare case-insensitively. A vessel whose category is
 * not known yet is authorized by MMSI only.
 */
export function isVesselAuthorized(zone: RuleZone, mmsi: number, category: string | null | undefined): boolean {
  const entries = zone.authorized_vessels;
  if (entries === undefined || entries.length === 0) return false;
  const allowed = allowedFor(entries);
  if (allowed.mmsi.has(mmsi)) return true;
  return category !== null && category !== undefined && allowed.categories.has(category.toLowerCase());
}

interface Allowed {
  mmsi: Set<number>;
  categories: Set<string>;
}

type AuthorizedVessels = NonNullable<RuleZone['authorized_vessels']>;

/** Built once per list object: zones are refreshed as new objects, so a stale entry cannot be read. */
const allowed_by_list = new WeakMap<AuthorizedVessels, Allowed>();

function allowedFor(entries: AuthorizedVessels): Allowed {
  let allowed = allowed_by_list.get(entries);
  if (allowed === undefined) {
    allowed = { mmsi: new Set(), categories: new Set() };
    for (const entry of entries) {
      if ('mmsi_list' in entry) for (const mmsi of entry.mmsi_list) allowed.mmsi.add(mmsi);
      else for (const type of entry.vessel_types) allowed.categories.add(type.toLowerCase());
    }
    allowed_by_list.set(entries, allowed);
  }
  return allowed;
}
