// dispatch_drone: recorded as waiting for the drone fleet. Missions, the fleet contract over Kafka and
// their events are the drone issue's (README "Not built yet"); its dispatcher picks these records up.
import { completeAction } from '../action-log.ts';
import type { ActionHandler } from '../executor.ts';
import type { ExecutorContext } from './context.ts';

export function dispatchDroneExecutor(ctx: ExecutorContext): ActionHandler {
  return (action) => completeAction(ctx.pool, action, { mission: action.target, priority: action.params.priority ?? 'automatic', fleet: 'not connected' }, 'waiting_fleet');
}
