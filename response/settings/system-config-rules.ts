// What makes a system configuration unusable beyond its schema (schemas/system-config.ts): ids given
// twice, names that lead nowhere, webhooks that do not exist, and parties or gates removed while a rule
// still names them. Pure: the facts from Postgres come in `facts` (system-config-store.ts gathers them),
// so one pass finds every problem and PUT /v1/system/config refuses them in one 422.
import { ALERT_LEVELS } from '../../schemas/zone.ts';
import type { SystemConfig } from '../../schemas/system-config.ts';

/** A problem at a JSON Pointer of the document. */
export interface ConfigProblem {
  path: string;
  message: string;
}

export interface SystemConfigFacts {
  /** Of the webhook ids the document names, those that exist. */
  existingWebhooks: ReadonlySet<string>;
  /** Party ids named by stored rules (alert rules, dwell ladders), each with where: `zone "Holmen" alert_rules.on_entry`. */
  partiesInUse: ReadonlyMap<string, readonly string[]>;
  /** Gate ids named by zones' alert_rules (lock_gates), each with where. */
  gatesInUse: ReadonlyMap<string, readonly string[]>;
}

/** Every webhook id the document names, for the store to look up. */
export function namedWebhooks(config: SystemConfig): string[] {
  return [...new Set([...config.channels.push.webhook_ids, ...config.parties.flatMap((p) => p.webhook_ids)])];
}

export function systemConfigProblems(config: SystemConfig, facts: SystemConfigFacts): ConfigProblem[] {
  return [
    ...duplicates(config.parties, '/parties', 'party'),
    ...duplicates(config.gates, '/gates', 'gate'),
    ...escalationOrderProblems(config),
    ...levelProblems(config),
    ...webhookProblems(config, facts.existingWebhooks),
    ...stillNamed(config.parties, facts.partiesInUse, '/parties', 'party'),
    ...stillNamed(config.gates, facts.gatesInUse, '/gates', 'gate'),
  ];
}

function duplicates(items: readonly { id: string }[], path: string, what: string): ConfigProblem[] {
  const first = new Map<string, number>();
  const problems: ConfigProblem[] = [];
  items.forEach(({ id }, i) => {
    const earlier = first.get(id);
    if (earlier === undefined) first.set(id, i);
    else problems.push({ path: `${path}/${i}/id`, message: `${what} id ${JSON.stringify(id)} is already used by ${path}/${earlier}` });
  });
  return problems;
}

function escalationOrderProblems(config: SystemConfig): ConfigProblem[] {
  const parties = new Set(config.parties.map((p) => p.id));
  return config.escalation_order.flatMap((id, i) =>
    parties.has(id) ? [] : [{ path: `/escalation_order/${i}`, message: `names party ${JSON.stringify(id)}, which /parties does not define` }],
  );
}

/** A level that escalates, or whose acknowledgement timeout escalates, needs a party to escalate to. */
function levelProblems(config: SystemConfig): ConfigProblem[] {
  if (config.escalation_order.length > 0) return [];
  return ALERT_LEVELS.flatMap((level) => {
    const behaviour = config.alert_levels[level];
    const problems: ConfigProblem[] = [];
    if (behaviour.escalation !== 'none') {
      problems.push({ path: `/alert_levels/${level}/escalation`, message: `${behaviour.escalation} escalates along /escalation_order, which is empty` });
    }
    if (behaviour.ack_timeout_minutes !== null) {
      problems.push({ path: `/alert_levels/${level}/ack_timeout_minutes`, message: 'an unacknowledged incident escalates to the next party of /escalation_order, which is empty; use null for no timeout' });
    }
    return problems;
  });
}

function webhookProblems(config: SystemConfig, existing: ReadonlySet<string>): ConfigProblem[] {
  const unknown = (ids: readonly string[], path: string) =>
    ids.flatMap((id, i) => (existing.has(id) ? [] : [{ path: `${path}/${i}`, message: `webhook ${JSON.stringify(id)} does not exist` }]));
  return [
    ...unknown(config.channels.push.webhook_ids, '/channels/push/webhook_ids'),
    ...config.parties.flatMap((p, i) => unknown(p.webhook_ids, `/parties/${i}/webhook_ids`)),
  ];
}

/** Rules name parties and gates by id: removing one they name would leave an action with nowhere to go. */
function stillNamed(items: readonly { id: string }[], inUse: ReadonlyMap<string, readonly string[]>, path: string, what: string): ConfigProblem[] {
  const kept = new Set(items.map((i) => i.id));
  return [...inUse]
    .filter(([id]) => !kept.has(id))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, where]) => ({ path, message: `${what} ${JSON.stringify(id)} cannot be removed: ${where.join('; ')} still name${where.length === 1 ? 's' : ''} it` }));
}
