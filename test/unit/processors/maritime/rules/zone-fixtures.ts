import type { RuleZone, ZoneRulesConfig } from '../../../../../processors/maritime/rules/config.ts';
import { DEFAULT_ZONE_RULES_CONFIG } from '../../../../../processors/maritime/rules/config.ts';
import type { VesselState } from '../../../../../processors/maritime/rules/vessel-state.ts';
import type { ZoneEventIntent } from '../../../../../processors/maritime/rules/zone-event-intents.ts';
import { step, type ZoneObservation } from '../../../../../processors/maritime/rules/vessel-zone-state.ts';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
/** Monday 2024-06-03 10:00:00Z. */
export const T0 = Date.parse('2024-06-03T10:00:00Z');
export const MMSI = 219_000_001;

export function makeZone(overrides: Partial<RuleZone> = {}): RuleZone {
  return {
    id: 'z-restricted',
    name: 'North Basin',
    type: 'restricted',
    alert_level: 'high',
    active: true,
    ...overrides,
  };
}

export function zoneMap(...zones: RuleZone[]): Map<string, RuleZone> {
  return new Map(zones.map((zone) => [zone.id, zone]));
}

export function config(overrides: Partial<ZoneRulesConfig> = {}): ZoneRulesConfig {
  return { ...DEFAULT_ZONE_RULES_CONFIG, ...overrides };
}

/** Where the vessel is for one report: `in` = zone ids inside, `near` = zone ids in the buffer. */
export interface Report {
  at: number;
  in?: string[];
  near?: string[];
  mmsi?: number;
  name?: string;
  category?: string;
}

export function observation(report: Report): ZoneObservation {
  return {
    mmsi: report.mmsi ?? MMSI,
    reported_at: report.at,
    lat: 55.7,
    lon: 12.6,
    sog: 4.2,
    cog: 181,
    vessel: { name: report.name ?? 'NORDIC STAR', category: report.category ?? 'cargo' },
    inside: report.in ?? [],
    inBuffer: report.near ?? [],
  };
}

/** Reports every `every_ms` from `from` (inclusive) to `to` (exclusive), all in the same place. */
export function every(every_ms: number, from: number, to: number, where: Omit<Report, 'at'> = {}): Report[] {
  const reports: Report[] = [];
  for (let at = from; at < to; at += every_ms) reports.push({ ...where, at });
  return reports;
}

export interface Run {
  state: VesselState | undefined;
  intents: ZoneEventIntent[];
}

export function run(
  reports: Report[],
  zones: Map<string, RuleZone>,
  cfg: ZoneRulesConfig = DEFAULT_ZONE_RULES_CONFIG,
  initial?: VesselState,
): Run {
  let state = initial;
  const intents: ZoneEventIntent[] = [];
  for (const report of reports) {
    const result = step(state, observation(report), zones, cfg);
    state = result.state;
    intents.push(...result.intents);
  }
  return { state, intents };
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** `type@timestamp` per intent: compact to compare sequences. */
export function timeline(intents: ZoneEventIntent[]): string[] {
  return intents.map((intent) => `${intent.type}@${intent.timestamp}`);
}
