import { parseArgs } from 'node:util';
import { SETTINGS, loadConfig } from '../app/config.ts';
import { createLogger } from '../platform/log.ts';
import { FEATURES } from '../app/features.ts';
import { startService } from '../app/service.ts';

export async function startCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { roles: { type: 'string' } } });
  const config = loadConfig(values.roles === undefined ? process.env : { ...process.env, [SETTINGS.roles.env]: values.roles });
  const log = createLogger(config.logLevel);
  const service = await startService(config, config.roles, log, FEATURES);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      log.error({ timeout_ms: config.shutdownTimeoutMs }, 'shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    await service.stop();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  return 0;
}
