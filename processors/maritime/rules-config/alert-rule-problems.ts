import type { SystemConfig } from '../../../schemas/system-config.ts';
import { ALERT_RULE_TRIGGERS } from '../../../schemas/maritime-rules.ts';
import type { RuleProblem } from './rule-store.ts';

/**
 * What the schema cannot say about alert_rules (issue 23): a rule with no trigger, and parties and gates
 * the system configuration does not name. Reads the input as sent, since it runs in the same pass as the
 * schema (so one 422 lists every problem) and the input may have failed it: anything not of the expected
 * shape is the schema's to report and is skipped here.
 */

/** The names alert rules may use, from the system configuration (`/v1/system/config`). */
export interface KnownNames {
  parties: ReadonlySet<string>;
  gates: ReadonlySet<string>;
}

export function knownNames(config: Pick<SystemConfig, 'parties' | 'gates'>): KnownNames {
  return { parties: new Set(config.parties.map((p) => p.id)), gates: new Set(config.gates.map((g) => g.id)) };
}

/** One zone's `alert_rules` object at JSON Pointer `at`. */
export function alertRuleProblems(rules: unknown, known: KnownNames, at: string): RuleProblem[] {
  if (!isObject(rules)) return [];
  const problems: RuleProblem[] = [];
  if (!ALERT_RULE_TRIGGERS.some((t) => rules[t] !== undefined)) {
    problems.push({ path: at, message: `give ${ALERT_RULE_TRIGGERS.join(', ')} or more` });
  }
  for (const trigger of ALERT_RULE_TRIGGERS) {
    const actions = (rules[trigger] as { actions?: unknown } | undefined)?.actions;
    if (!Array.isArray(actions)) continue;
    actions.forEach((action: unknown, i) => {
      if (!isObject(action)) return;
      const where = `${at}/${trigger}/actions/${i}`;
      if (action.action === 'escalate_to') unknownNames(action.parties, known.parties, 'party', `${where}/parties`, problems);
      if (action.action === 'lock_gates') unknownNames(action.gates, known.gates, 'gate', `${where}/gates`, problems);
    });
  }
  return problems;
}

/** The alert rules of a request or file: one zone's rule set, or the bulk document (entries naming their zone). */
export function alertRuleProblemsIn(body: unknown, known: KnownNames, form: 'zone' | 'bulk'): RuleProblem[] {
  if (!isObject(body)) return [];
  const rules = body.alert_rules;
  if (form === 'zone') return alertRuleProblems(rules, known, '/alert_rules');
  if (!Array.isArray(rules)) return [];
  return rules.flatMap((entry: unknown, i) => (isObject(entry) ? alertRuleProblems(omitZone(entry), known, `/alert_rules/${i}`) : []));
}

function unknownNames(names: unknown, known: ReadonlySet<string>, what: 'party' | 'gate', at: string, into: RuleProblem[]): void {
  if (!Array.isArray(names)) return;
  names.forEach((name: unknown, i) => {
    if (typeof name === 'string' && !known.has(name)) {
      into.push({ path: `${at}/${i}`, message: `no ${what} "${quoted(name)}" in the system configuration (${what === 'party' ? 'parties' : 'gates'}: ${listed(known)})` });
    }
  });
}

function omitZone(entry: Record<string, unknown>): Record<string, unknown> {
  const { zone: _zone, ...rules } = entry;
  return rules;
}

/** At most 64 characters of a client's string in a message. */
function quoted(name: string): string {
  return name.length > 64 ? `${name.slice(0, 64)}...` : name;
}

function listed(known: ReadonlySet<string>): string {
  if (known.size === 0) return 'none';
  const names = [...known].slice(0, 20);
  return `${names.join(', ')}${known.size > names.length ? `, and ${known.size - names.length} more` : ''}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
