import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { replaceAllRules } from '../processors/maritime/rules-config/rule-store.ts';
import { maritimeRulesSchema, RULE_KINDS, type MaritimeRules } from '../schemas/maritime-rules.ts';
import { UsageError, asCommand, validated, withDatabase } from './db.ts';

const USAGE = 'usage: pss rules import FILE.json';

/**
 * `pss rules import FILE`: the bulk rules document (as PUT /v1/maritime/rules takes it) from a JSON
 * file, validated by the same schema and checks, replacing every zone's rules. YAML is not read: no YAML
 * parser is a dependency of the service (README "Maritime rules").
 */
export async function rulesCommand(args: string[]): Promise<number> {
  return asCommand(async () => {
    const { positionals } = parseArgs({ args, allowPositionals: true });
    const [action, file] = positionals;
    if (action !== 'import' || file === undefined || positionals.length !== 2) throw new UsageError(USAGE);
    if (/\.ya?ml$/i.test(file)) throw new UsageError(`${file}: YAML is not supported yet; give the same document as JSON`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(file, 'utf8'));
    } catch (err) {
      throw new UsageError(`${file}: ${(err as Error).message}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`${file}: the document must be a JSON object`);
    const doc = validated<MaritimeRules>(maritimeRulesSchema, parsed as Record<string, unknown>);
    const problems = await withDatabase((pool) => replaceAllRules(pool, doc));
    if (problems.length > 0) throw new UsageError(problems.map((p) => `${p.path} ${p.message}`).join('; '));
    const count = RULE_KINDS.reduce((n, k) => n + (doc[k]?.length ?? 0), 0);
    console.log(`imported ${count} rule entries${doc.dwell_time === undefined ? '' : ' and the site-wide dwell_time'}`);
  });
}
