import { loadConfig } from '../app/config.ts';
import { FEATURES } from '../app/features.ts';
import { createLogger } from '../platform/log.ts';
import { migrate } from '../platform/postgres.ts';

export async function migrateCommand(): Promise<number> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const applied = await migrate(config.databaseUrl, log);
  // What the features set up beside the schema (the analyst login), as every start-up does.
  for (const feature of FEATURES) await feature.setup?.(config);
  log.info({ applied }, applied.length ? 'migrations applied' : 'database is up to date');
  return 0;
}
