// The maritime rules' entry point for the API and the `pss rules import` command: per-zone rule sets and
// the site-wide dwell_time in Postgres, every write followed by the zones' NOTIFY so running processors
// reload within moments (zones/zone-catalog.ts), exactly as a zone change does.
import type { Pool, PoolClient } from '../../../platform/postgres.ts';
import { inTransaction } from '../../../platform/postgres.ts';
import { RULE_KINDS, type AlertRules, type DwellTime, type MaritimeRules, type ZoneRuleSet } from '../../../schemas/maritime-rules.ts';
import { parseHours } from '../rules/schedule.ts';
import { ZONES_CHANGED_CHANNEL } from '../zones/zone-catalog.ts';

export interface RuleProblem {
  /** JSON Pointer of the offending field in the document. */
  path: string;
  message: string;
}

/** What the schema cannot say about one zone's rules: min above max, hours that do not parse, duplicate schedule names. */
export function ruleSetProblems(set: ZoneRuleSet, at = ''): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const speed = set.speed_rules;
  if (speed?.max_speed_knots !== undefined && speed.min_speed_knots !== undefined && speed.min_speed_knots >= speed.max_speed_knots) {
    problems.push({ path: `${at}/speed_rules/min_speed_knots`, message: 'min_speed_knots must be below max_speed_knots' });
  }
  if (speed !== undefined && speed.max_speed_knots === undefined && speed.min_speed_knots === undefined) {
    problems.push({ path: `${at}/speed_rules`, message: 'give max_speed_knots, min_speed_knots or both' });
  }
  const types = set.vessel_type_rules;
  if (types !== undefined && types.allowed_types === undefined && types.denied_types === undefined) {
    problems.push({ path: `${at}/vessel_type_rules`, message: 'give allowed_types, denied_types or both' });
  }
  const kinds = new Set<string>();
  set.ais_rules?.alert_on.forEach((item, i) => {
    const kind = Object.keys(item)[0] ?? '';
    if (kinds.has(kind)) problems.push({ path: `${at}/ais_rules/alert_on/${i}`, message: `${kind} is given twice` });
    kinds.add(kind);
  });
  const names = new Set<string>();
  set.time_rules?.schedules.forEach((s, i) => {
    if (s.hours !== undefined && parseHours(s.hours) === undefined) problems.push({ path: `${at}/time_rules/schedules/${i}/hours`, message: `hours "${s.hours}" is not HH:MM-HH:MM` });
    if (names.has(s.name)) problems.push({ path: `${at}/time_rules/schedules/${i}/name`, message: `schedule "${s.name}" is given twice` });
    names.add(s.name);
  });
  return problems;
}

export async function zoneRules(pool: Pool, zoneId: string): Promise<ZoneRuleSet> {
  const { rows } = await pool.query<{ rules: ZoneRuleSet }>('SELECT rules FROM maritime_zone_rules WHERE zone_id = $1', [zoneId]);
  return rows[0]?.rules ?? {};
}

/**
 * Every zone's alert rules (issue 23) by zone name as stored, the name zone events carry in
 * `location.zone`; for readers outside the zone processor (the response loop's planner), which holds
 * them in its catalog instead.
 */
export async function loadAlertRules(pool: Pool): Promise<Map<string, AlertRules>> {
  const { rows } = await pool.query<{ name: string; alert_rules: AlertRules }>(
    `SELECT z.name, r.rules -> 'alert_rules' AS alert_rules
       FROM maritime_zone_rules r JOIN zones z ON z.id = r.zone_id
      WHERE r.rules ? 'alert_rules'`,
  );
  return new Map(rows.map((r) => [r.name, r.alert_rules]));
}

/**
 * A check run inside a rule write's transaction, before anything is written; its problems abort the
 * write. The API and `pss rules import` pass one that re-reads the system configuration under a lock
 * (alert rules name its parties and gates), so no configuration change slips between check and write.
 */
export type RuleWriteGuard = (client: PoolClient) => Promise<RuleProblem[]>;

/** Replaces one zone's rules; an empty set removes them. Returns the guard's problems (nothing written) or []. */
export async function replaceZoneRules(pool: Pool, zoneId: string, set: ZoneRuleSet, guard?: RuleWriteGuard): Promise<RuleProblem[]> {
  return inTransaction(pool, async (client) => {
    const problems = (await guard?.(client)) ?? [];
    if (problems.length > 0) return problems;
    await writeZoneRules(client, zoneId, set);
    await notify(client);
    return [];
  });
}

/** The bulk document: every zone's rules in the spec's structures, zones named by name. */
export async function allRules(pool: Pool): Promise<MaritimeRules & { dwell_time?: DwellTime }> {
  const [{ rows }, { rows: site }] = await Promise.all([
    pool.query<{ name: string; rules: ZoneRuleSet }>('SELECT z.name, r.rules FROM maritime_zone_rules r JOIN zones z ON z.id = r.zone_id ORDER BY z.name, z.id'),
    pool.query<{ value: DwellTime }>(`SELECT value FROM maritime_site_rules WHERE key = 'dwell_time'`),
  ]);
  const doc: Record<string, unknown> = {};
  if (site[0] !== undefined) doc.dwell_time = site[0].value;
  for (const kind of RULE_KINDS) doc[kind] = rows.filter((r) => r.rules[kind] !== undefined).map((r) => ({ zone: r.name, ...r.rules[kind] }));
  return doc as MaritimeRules;
}

/**
 * Replaces every zone's rules with the document's (a zone it does not name has none afterwards) and the
 * site-wide dwell_time (absent: the built-in defaults). Problems (an unknown zone, two entries of one
 * kind for a zone, what `ruleSetProblems` and the guard find) are returned and nothing is written.
 */
export async function replaceAllRules(pool: Pool, doc: MaritimeRules, guard?: RuleWriteGuard): Promise<RuleProblem[]> {
  const { rows } = await pool.query<{ id: string; name: string }>('SELECT id, name FROM zones');
  const byName = new Map(rows.map((r) => [r.name.toLowerCase(), r.id]));
  const sets = new Map<string, Record<string, unknown>>();
  const problems: RuleProblem[] = [];
  for (const kind of RULE_KINDS) {
    (doc[kind] ?? []).forEach((entry, i) => {
      const { zone, ...rule } = entry as { zone: string } & Record<string, unknown>;
      const id = byName.get(zone.toLowerCase());
      if (id === undefined) return problems.push({ path: `/${kind}/${i}/zone`, message: `no zone is named "${zone}"` });
      const set = sets.get(id) ?? {};
      if (set[kind] !== undefined) return problems.push({ path: `/${kind}/${i}/zone`, message: `zone "${zone}" has more than one ${kind} entry` });
      set[kind] = rule;
      sets.set(id, set);
      for (const p of ruleSetProblems({ [kind]: rule } as ZoneRuleSet)) problems.push({ path: `/${kind}/${i}${p.path.slice(kind.length + 1)}`, message: p.message });
    });
  }
  if (problems.length > 0) return problems;
  return inTransaction(pool, async (client) => {
    const guarded = (await guard?.(client)) ?? [];
    if (guarded.length > 0) return guarded;
    const { rows: before } = await client.query<{ zone_id: string }>('DELETE FROM maritime_zone_rules RETURNING zone_id');
    for (const { zone_id } of before) if (!sets.has(zone_id)) await writeZoneRules(client, zone_id, {});
    for (const [zoneId, set] of sets) await writeZoneRules(client, zoneId, set as ZoneRuleSet);
    if (doc.dwell_time === undefined) await client.query(`DELETE FROM maritime_site_rules WHERE key = 'dwell_time'`);
    else {
      await client.query(
        `INSERT INTO maritime_site_rules (key, value) VALUES ('dwell_time', $1::jsonb)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
        [JSON.stringify(doc.dwell_time)],
      );
    }
    await notify(client);
    return [];
  });
}

async function writeZoneRules(client: PoolClient, zoneId: string, set: ZoneRuleSet): Promise<void> {
  if (set.time_rules === undefined) {
    // Occupancy is counted only while a zone has time rules; stale rows would be counted if they came back.
    await client.query('DELETE FROM maritime_zone_occupancy WHERE zone_id = $1', [zoneId]);
    await client.query('DELETE FROM maritime_occupancy_alerts WHERE zone_id = $1', [zoneId]);
  }
  if (Object.keys(set).length === 0) {
    await client.query('DELETE FROM maritime_zone_rules WHERE zone_id = $1', [zoneId]);
    return;
  }
  await client.query(
    `INSERT INTO maritime_zone_rules (zone_id, rules) VALUES ($1, $2::jsonb)
     ON CONFLICT (zone_id) DO UPDATE SET rules = EXCLUDED.rules, updated_at = now()`,
    [zoneId, JSON.stringify(set)],
  );
}

async function notify(client: PoolClient): Promise<void> {
  await client.query('SELECT pg_notify($1, $2)', [ZONES_CHANGED_CHANNEL, 'rules']);
}
