// The drone missions of a processors instance (drones/role.ts), with the response loop's part in them: a
// mission that times out, is rejected or fails escalates its incident through the action log.
import { startDrones } from '../drones/role.ts';
import type { RunningRole, ServiceContext } from '../platform/context.ts';
import { escalateUnanswered } from './executors/dispatch-drone.ts';
import { SystemConfigCache } from './settings/system-config-cache.ts';

export async function startDroneMissions(ctx: ServiceContext): Promise<RunningRole> {
  const cache = new SystemConfigCache();
  await cache.start(ctx.pool, ctx.log.child({ role: 'drones' }));
  const drones = await startDrones(ctx, { onUnanswered: escalateUnanswered(() => cache.current()) });
  return {
    name: 'drones',
    stop: async (deadline) => {
      await drones.stop(deadline);
      await cache.stop();
    },
  };
}
