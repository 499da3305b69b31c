import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { readSystemConfig, replaceSystemConfig } from '../response/settings/system-config-store.ts';
import { systemConfigSchema, type SystemConfig } from '../schemas/system-config.ts';
import { UsageError, asCommand, validated, withDatabase } from './db.ts';
import { usageLine } from './usage.ts';

const SYSTEM_CONFIG_USAGE = usageLine('config');

/**
 * `pss config get`: the system configuration in force, as GET /v1/system/config serves it (JSON).
 * `pss config set FILE`: replaces it with the document in FILE (JSON, or YAML by extension), checked and
 * audited as PUT /v1/system/config does (the change's author: `cli`); running instances take it up at once.
 */
export async function systemConfigCommand(args: string[]): Promise<number> {
  return asCommand(async () => {
    const { positionals } = parseArgs({ args, allowPositionals: true });
    const [action, file] = positionals;
    if (action === 'get' && positionals.length === 1) {
      console.log(JSON.stringify(await withDatabase((pool) => readSystemConfig(pool)), null, 2));
      return;
    }
    if (action !== 'set' || file === undefined || positionals.length !== 2) throw new UsageError(SYSTEM_CONFIG_USAGE);
    const doc = validated<SystemConfig>(systemConfigSchema, await readDocument(file));
    const outcome = await withDatabase((pool) => replaceSystemConfig(pool, doc, { credentialId: 'cli', principal: `cli:${userInfo().username}`, kind: 'cli' }));
    if (outcome.problems !== undefined) throw new UsageError(outcome.problems.map((p) => `${p.path} ${p.message}`).join('; '));
    console.log(outcome.changed ? `stored the system configuration (revision ${outcome.stored.revision})` : 'unchanged: the document is the one in force');
    for (const w of outcome.warnings) console.error(`warning: ${w.path} ${w.message}`);
  });
}

async function readDocument(file: string): Promise<Record<string, unknown>> {
  let parsed: unknown;
  try {
    const text = await readFile(file, 'utf8');
    // YAML 1.2 core schema: no custom tags, so the file cannot construct anything but plain data.
    parsed = /\.ya?ml$/i.test(file) ? parseYaml(text, { schema: 'core', maxAliasCount: 100 }) : JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file}: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new UsageError(`${file}: the document must be an object (a mapping in YAML)`);
  return parsed as Record<string, unknown>;
}
