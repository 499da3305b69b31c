// The drone missions of a processors instance (app/features.ts): the command sender, a consumer group on
// drone.telemetry and drone.reports, and the fleet monitor's sweep. Instances share the group, the outbox
// and the sweep (SKIP LOCKED), so each report is applied and each command sent by one of them.
import type { RunningRole, ServiceContext } from '../platform/context.ts';
import { KafkaConsumer } from '../platform/kafka/index.ts';
import { histogram } from '../platform/metrics.ts';
import { startPeriodicJob } from '../platform/periodic-job.ts';
import { inTransaction, type Pool } from '../platform/postgres.ts';
import { DroneCommandSender } from './command-sender.ts';
import { applyBatch, sortRecords, type UnansweredHook } from './fleet-intake.ts';
import { sweepLostLinks, sweepMissions } from './monitor.ts';
import type { MissionSettings } from './missions.ts';
import { fleetSettings } from './settings.ts';

export const appliedSeconds = histogram('pss_drone_record_seconds', 'From a fleet record appended to drone.telemetry / drone.reports to its state change committed', [], [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1, 5]);

export interface DronesOptions {
  /** A mission that timed out, was rejected or failed: its incident escalates (the response loop records the action). */
  onUnanswered?: UnansweredHook;
}

/** One sweep of the monitor at `now` (tests run it at a moved instant); true when events were stored. */
export async function sweepFleet(pool: Pool, s: MissionSettings, now: Date, onUnanswered?: UnansweredHook): Promise<number> {
  return inTransaction(pool, async (client) => {
    // Deadlines first: a mission that timed out releases its drone, which is then on the ground and no longer missed.
    const swept = await sweepMissions(client, s, now);
    const lost = await sweepLostLinks(client, s, now);
    for (const u of swept.unanswered) await onUnanswered?.(client, u);
    return lost.length + swept.events.length;
  });
}

export async function startDrones(ctx: ServiceContext, options: DronesOptions = {}): Promise<RunningRole> {
  const log = ctx.log.child({ role: 'drones' });
  const s = fleetSettings(ctx.config);
  const sender = new DroneCommandSender({ pool: ctx.pool, producer: ctx.producer, codec: ctx.codec, topic: ctx.topics.droneCommands, log, sendTimeoutMs: ctx.config.gateCommandAckTimeoutMs });
  await sender.start();
  const consumer = new KafkaConsumer(ctx.kafka, {
    groupId: `${ctx.config.topicPrefix}drones`,
    topics: [ctx.topics.droneTelemetry, ctx.topics.droneReports],
    maxBatch: 500,
    lingerMs: 2,
    startAt: 'earliest',
  });
  await consumer.run(async (records) => {
    const now = new Date();
    const batch = sortRecords(ctx, records, now);
    if (batch.letters.length > 0) await ctx.producer.send(batch.letters);
    if (batch.telemetry.length === 0 && batch.reports.length === 0) return;
    const events = await inTransaction(ctx.pool, (client) => applyBatch(client, batch, s, now, options.onUnanswered));
    const done = Date.now();
    for (const r of records) appliedSeconds.observe(Math.max(0, done - r.timestamp) / 1000);
    if (events.length > 0) ctx.relay.wake();
  });
  const monitor = startPeriodicJob({
    name: 'drone fleet monitor', everyMs: ctx.config.droneSweepMs, log,
    run: async () => {
      if ((await sweepFleet(ctx.pool, s, new Date(), options.onUnanswered)) > 0) ctx.relay.wake();
    },
  });
  return {
    name: 'drones',
    stop: async (deadline) => {
      await consumer.stop();
      await monitor.stop();
      await sender.stop(deadline);
    },
  };
}
