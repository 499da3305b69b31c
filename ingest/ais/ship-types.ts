// "Type of ship and cargo" codes (ITU-R M.1371-5, Annex 8, table 53) mapped to the vessel categories
// the rules use. One table, read top to bottom:
//
//   code     ITU meaning                                              category
//   0        not available (default)                                  (field absent)
//   1-19     reserved for future use                                  unknown
//   20-29    wing in ground (WIG); 21-24 carry hazard cat. A-D         wing_in_ground
//   30       fishing                                                  fishing
//   31, 32   towing; 32 = tow longer than 200 m or wider than 25 m    towing
//   33       dredging or underwater operations                        dredging
//   34       diving operations                                        diving
//   35       military operations                                      military
//   36       sailing                                                  sailing
//   37       pleasure craft                                           pleasure
//   38, 39   reserved for future use                                  unknown
//   40-49    high speed craft (HSC); 41-44 hazard cat. A-D             high_speed_craft
//   50       pilot vessel                                             pilot
//   51       search and rescue vessel                                 search_and_rescue
//   52       tug                                                      tug
//   53       port tender                                              port_authority
//   54       anti-pollution equipment                                 anti_pollution
//   55       law enforcement                                          law_enforcement
//   56, 57   spare, for assignment to local vessels                   local_vessel
//   58       medical transport (1949 Geneva Conventions)              medical
//   59       noncombatant ship (RR Resolution 18)                     noncombatant
//   60-69    passenger; 61-64 hazard cat. A-D                          passenger
//   70-79    cargo; 71-74 hazard cat. A-D                              cargo
//   80-89    tanker; 81-84 hazard cat. A-D                             tanker
//   90-99    other types of ship; 91-94 hazard cat. A-D                other
//   100-199  reserved for regional use                                unknown
//   200-255  reserved for future use                                  unknown
//
// Decisions: 53 (port tender, the harbour's own service craft) is the "port authority" category; 55 is
// law_enforcement, not port_authority, because police and customs craft are a different actor for
// security rules. The reserved second digits 5-8 of the 2x/4x/6x-9x groups keep their group's category
// (the first digit still says what the vessel is). Reserved codes keep their raw `ship_type` so
// nothing is lost, and map to `unknown`.
import type { HazardousCategory, ShipCategory } from '../../schemas/ais.ts';

export interface ShipTypeDescription {
  readonly category: ShipCategory;
  readonly hazardous_category?: HazardousCategory;
}

const RANGES: ReadonlyArray<readonly [first: number, last: number, category: ShipCategory]> = [
  [1, 19, 'unknown'],
  [20, 29, 'wing_in_ground'],
  [30, 30, 'fishing'],
  [31, 32, 'towing'],
  [33, 33, 'dredging'],
  [34, 34, 'diving'],
  [35, 35, 'military'],
  [36, 36, 'sailing'],
  [37, 37, 'pleasure'],
  [38, 39, 'unknown'],
  [40, 49, 'high_speed_craft'],
  [50, 50, 'pilot'],
  [51, 51, 'search_and_rescue'],
  [52, 52, 'tug'],
  [53, 53, 'port_authority'],
  [54, 54, 'anti_pollution'],
  [55, 55, 'law_enforcement'],
  [56, 57, 'local_vessel'],
  [58, 58, 'medical'],
  [59, 59, 'noncombatant'],
  [60, 69, 'passenger'],
  [70, 79, 'cargo'],
  [80, 89, 'tanker'],
  [90, 99, 'other'],
  [100, 255, 'unknown'],
];

/** Groups whose second digit 1-4 is the IMO hazardous cargo category A-D (table 53, note). */
const HAZARD_GROUPS = new Set([2, 4, 6, 7, 8, 9]);
const HAZARDS: readonly HazardousCategory[] = ['A', 'B', 'C', 'D'];

function buildTable(): ReadonlyArray<ShipTypeDescription | undefined> {
  const table: Array<ShipTypeDescription | undefined> = new Array<ShipTypeDescription | undefined>(256).fill(undefined);
  for (const [first, last, category] of RANGES) {
    for (let code = first; code <= last; code++) {
      const group = Math.floor(code / 10);
      const digit = code % 10;
      const hazard = code < 100 && HAZARD_GROUPS.has(group) && digit >= 1 && digit <= 4 ? HAZARDS[digit - 1] : undefined;
      table[code] = Object.freeze(hazard === undefined ? { category } : { category, hazardous_category: hazard });
    }
  }
  return table;
}

const TABLE = buildTable();

/** The category of a ship type code, or undefined for 0 (not available) and codes outside 0-255. */
export function describeShipType(code: number): ShipTypeDescription | undefined {
  return Number.isInteger(code) ? TABLE[code] : undefined;
}
