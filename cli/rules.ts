import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { alertRuleProblemsIn, knownNames } from '../processors/maritime/rules-config/alert-rule-problems.ts';
import { replaceAllRules } from '../processors/maritime/rules-config/rule-store.ts';
import { readSystemConfig, readSystemConfigLocked } from '../response/settings/system-config-store.ts';
import { maritimeRulesSchema, RULE_KINDS, type MaritimeRules } from '../schemas/maritime-rules.ts';
import type { PoolClient } from '../platform/postgres.ts';
import { UsageError, asCommand, validated, withDatabase } from './db.ts';
import { usageLine } from './usage.ts';

const USAGE = usageLine('rules');

/**
 * `pss rules import FILE`: the bulk rules document (as PUT /v1/maritime/rules takes it) from a JSON or
 * YAML file (by extension), validated by the same schema and checks, replacing every zone's rules.
 */
export async function rulesCommand(args: string[]): Promise<number> {
  return asCommand(async () => {
    const { positionals } = parseArgs({ args, allowPositionals: true });
    const [action, file] = positionals;
    if (action !== 'import' || file === undefined || positionals.length !== 2) throw new UsageError(USAGE);
    const yaml = /\.ya?ml$/i.test(file);
    let parsed: unknown;
    try {
      const text = await readFile(file, 'utf8');
      // YAML 1.2 core schema: no custom tags, so a rules file cannot construct anything but plain data.
      parsed = yaml ? parseYaml(text, { schema: 'core', maxAliasCount: 100 }) : JSON.parse(text);
    } catch (err) {
      throw new UsageError(`${file}: ${(err as Error).message}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`${file}: the document must be an object (a mapping in YAML)`);
    const { doc, problems } = await withDatabase(async (pool) => {
      // Parties and gates of alert_rules are checked against the system configuration with the schema.
      const known = knownNames(await readSystemConfig(pool));
      const valid = validated<MaritimeRules>(maritimeRulesSchema, parsed as Record<string, unknown>, alertRuleProblemsIn(parsed, known, 'bulk'));
      const guard = async (client: PoolClient) => alertRuleProblemsIn(valid, knownNames(await readSystemConfigLocked(client)), 'bulk');
      return { doc: valid, problems: await replaceAllRules(pool, valid, guard) };
    });
    if (problems.length > 0) throw new UsageError(problems.map((p) => `${p.path} ${p.message}`).join('; '));
    const count = RULE_KINDS.reduce((n, k) => n + (doc[k]?.length ?? 0), 0);
    console.log(`imported ${count} rule entries${doc.dwell_time === undefined ? '' : ' and the site-wide dwell_time'}`);
  });
}
