import { loadConfig } from '../app/config.ts';
import { createLogger } from '../platform/log.ts';
import { migrate } from '../platform/postgres.ts';

export async function migrateCommand(): Promise<number> {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const applied = await migrate(config.databaseUrl, log);
  log.info({ applied }, applied.length ? 'migrations applied' : 'database is up to date');
  return 0;
}
