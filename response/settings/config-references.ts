// Which parties and gates the stored rules name, and where: a PUT /v1/system/config may not remove one
// that is still named (system-config-rules.ts). Read inside the PUT's transaction.
import type { Pool, PoolClient } from '../../platform/postgres.ts';
import { DEFAULT_ZONE_RULES_CONFIG } from '../../processors/maritime/rules/config.ts';
import { DWELL_LADDER_PARTIES } from '../../schemas/system-config.ts';
import type { EscalationAction } from '../../schemas/zone.ts';

type Uses = Map<string, string[]>;

function add(uses: Uses, id: string, where: string): void {
  const list = uses.get(id) ?? [];
  if (!list.includes(where)) list.push(where);
  uses.set(id, list);
}

/**
 * The targets of one action of zones' alert_rules (`maritime_zone_rules.rules->'alert_rules'`, Part A's
 * shape: `{ on_entry|on_dwell|on_exit: { actions: [{ action: 'escalate_to', parties: [...] } | { action:
 * 'lock_gates', gates: [...] }] } }`), each with its zone's name and trigger.
 */
async function alertRuleTargets(client: Pool | PoolClient, action: 'escalate_to' | 'lock_gates', list: 'parties' | 'gates'): Promise<Uses> {
  const { rows } = await client.query<{ zone: string; trigger: string; id: string }>(
    `SELECT z.name AS zone, t.key AS trigger, target #>> '{}' AS id
       FROM maritime_zone_rules AS r
       JOIN zones AS z ON z.id = r.zone_id
       CROSS JOIN LATERAL jsonb_each(CASE WHEN jsonb_typeof(r.rules -> 'alert_rules') = 'object' THEN r.rules -> 'alert_rules' ELSE '{}'::jsonb END) AS t
       CROSS JOIN LATERAL jsonb_path_query(t.value, '$.actions[*] ? (@.action == $action)' , jsonb_build_object('action', $1::text)) AS a
       CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(a -> $2::text) = 'array' THEN a -> $2::text ELSE '[]'::jsonb END) AS target
      ORDER BY z.name, t.key`,
    [action, list],
  );
  const uses: Uses = new Map();
  for (const r of rows) add(uses, r.id, `zone ${JSON.stringify(r.zone)} alert_rules.${r.trigger}`);
  return uses;
}

/** Parties named by alert rules (escalate_to) and by dwell ladders: the site's (stored, or the built-in one) and zones' own. */
export async function rulesNamingParties(client: Pool | PoolClient): Promise<Uses> {
  const uses = await alertRuleTargets(client, 'escalate_to', 'parties');
  const { rows: site } = await client.query<{ value: { escalation?: { action: EscalationAction }[] } }>(`SELECT value FROM maritime_site_rules WHERE key = 'dwell_time'`);
  // As withSiteDwellTime reads it: a stored dwell_time without escalation keeps the built-in ladder.
  const storedLadder = site[0]?.value.escalation;
  const siteLadder = storedLadder ?? DEFAULT_ZONE_RULES_CONFIG.dwell_time.escalation;
  const siteWhere = storedLadder === undefined ? 'the built-in dwell_time escalation' : 'the site dwell_time escalation';
  for (const step of siteLadder) add(uses, DWELL_LADDER_PARTIES[step.action], siteWhere);
  const { rows: zones } = await client.query<{ zone: string; action: EscalationAction }>(
    `SELECT z.name AS zone, step ->> 'action' AS action FROM zones AS z CROSS JOIN LATERAL jsonb_path_query(z.definition, '$.dwell.escalation[*]') AS step ORDER BY z.name`,
  );
  for (const r of zones) add(uses, DWELL_LADDER_PARTIES[r.action], `zone ${JSON.stringify(r.zone)} dwell escalation`);
  return uses;
}

/** Gates named by alert rules (lock_gates). */
export function rulesNamingGates(client: PoolClient): Promise<Uses> {
  return alertRuleTargets(client, 'lock_gates', 'gates');
}
