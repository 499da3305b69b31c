// The demo's drone fleet: the fleet simulator (drones/simulator/) with four docks around the harbour,
// on the fleet contract of the running service, so a vessel entering the naval base (critical: the level
// dispatches a drone at once) shows a mission's launch, evidence and completion among the printed events.
import { FleetSimulator } from '../../drones/simulator/fleet-simulator.ts';
import { runSimulator, type RunningSimulator } from '../../drones/simulator/simulator-runner.ts';
import type { ServiceContext } from '../../platform/context.ts';
import { DEFAULT_DOCKS, parseDocks } from '../drones.ts';

export async function startDemoFleet(ctx: ServiceContext): Promise<RunningSimulator> {
  const sim = new FleetSimulator({ docks: parseDocks(DEFAULT_DOCKS), speedMps: 15, telemetryHz: 1, drainPerMinute: 2, stationSeconds: 20 }, Date.now());
  return runSimulator({ kafka: { ...ctx.kafka, clientId: `${ctx.kafka.clientId}-demo-fleet` }, producer: ctx.producer, codec: ctx.codec, topics: ctx.topics, topicPrefix: ctx.config.topicPrefix, log: ctx.log }, sim);
}
