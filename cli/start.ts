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
      const pending = service.pending();
      log.error({ timeout_ms: config.shutdownTimeoutMs, pending }, `shutdown timed out; exiting while still stopping: ${pending.join(', ') || 'nothing named'}`);
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    const still = await service.stop();
    // Past the deadline the log has named what did not stop (stopInTurn); the exit code says it too.
    log.info({ not_stopped: still }, still.length === 0 ? 'stopped' : 'stopped, except what the deadline cut short');
    process.exit(still.length === 0 ? 0 : 1);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  return 0;
}
