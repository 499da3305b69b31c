// The maritime zone processor: a consumer group on ais.positions. Per batch it loads the states of
// vessels it has not seen since the last rebalance (meanwhile the vessel directory catches up with the
// static data produced before the batch: docs/zones-and-rules.md, decision 14), evaluates (evaluate-batch.ts,
// pure), stores changed states and new events in one transaction, wakes the event relay, and only then
// lets the consumer commit offsets. A crash anywhere replays the batch into the same state and the same
// event ids.
// Offsets do not wait for the events to reach the topic: once committed they are in the outbox, and the
// relay (events/relay.ts) delivers them, after a crash too; waiting would tie the batch to the broker's
// produce latency and gain no guarantee.
import type { RunningRole, ServiceContext } from '../../platform/context.ts';
import { KafkaConsumer, type InRecord } from '../../platform/kafka/index.ts';
import { counter, histogram } from '../../platform/metrics.ts';
import { inTransaction, isPostgresTimeout } from '../../platform/postgres.ts';
import { startRoleWorkers } from '../../platform/role-workers.ts';
import { storeEvents } from '../../events/store.ts';
import { checkpointOf, needsCheckpoint, type Checkpoint } from './checkpoint-policy.ts';
import { evaluatePositions, expireSilent, withHousekeeping, type PartitionedPosition } from './evaluate-batch.ts';
import { DEFAULT_ZONE_RULES_CONFIG, withSiteDwellTime, type ZoneRulesConfig } from './rules/config.ts';
import { adoptSharedClocks, feedAsOf, newFeedState, type FeedState, type Outage } from './rules/feed-silence.ts';
import { sharedFeedClocks, shareFeedClocks } from './store/feed-clock-store.ts';
import { recentFeedOutages } from '../../platform/health/feed-outages.ts';
import type { VesselState } from './rules/vessel-state.ts';
import { applyEncounters } from './store/encounter-store.ts';
import { applyOccupancy } from './store/occupancy-store.ts';
import { ScheduleWatch } from './rules/occupancy-rule.ts';
import { loadVesselStates, saveVesselStates } from './store/vessel-state-store.ts';
import { followVesselDirectory, VesselDirectory } from './vessel-directory.ts';
import { ruleEvent } from './zone-events.ts';
import { ZoneCatalog, type ZoneSnapshot } from './zones/zone-catalog.ts';

const positionsEvaluated = counter('pss_maritime_positions_total', 'Positions evaluated against the zones');
const latePositions = counter('pss_maritime_late_positions_total', 'Positions older than the vessel\'s newest and ignored');
const futurePositions = counter('pss_maritime_future_positions_total', 'Positions dated too far after their receipt and ignored');
const unreadable = counter('pss_maritime_unreadable_total', 'Records on the positions topic that the codec could not read');
const stalledBatches = counter('pss_maritime_batch_timeouts_total', 'Batches that failed because a Postgres query timed out (each is retried)');
const batchSeconds = histogram('pss_maritime_batch_seconds', 'Time to evaluate and store one batch', [], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]);
const staticWaitSeconds = histogram('pss_maritime_static_wait_seconds', 'Time a batch waited for the vessel directory to read ais.static up to its end offsets', [], [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2]);
const staticWaitExceeded = counter('pss_maritime_static_wait_exceeded_total', 'Batches evaluated before the vessel directory had read ais.static up to its end offsets (wait bound passed, or offsets unavailable)');

/**
 * How long a batch waits for the vessel directory to read the static reports produced before its
 * positions. Past it the batch is evaluated anyway (counted and logged); what the directory learns later
 * re-evaluates the vessels it concerns (evaluate-batch.ts `learned`).
 */
const STATIC_WAIT_BOUND_MS = 2_000;

/**
 * How often (wall clock) silent vessels are checked, with or without traffic (an idle member does it on its
 * tick: reports that arrived at once, a replay or a catch-up, and then stopped are judged at the feed clock
 * they left); the silence limits themselves are event time.
 */
const HOUSEKEEPING_EVERY_MS = 10_000;
/**
 * How often the ingest feeds' outages are read from Postgres (docs/operations.md "Feed silence"), and the
 * feeds' clocks shared with the other members (docs/zones-and-rules.md "AIS loss"); how long after its
 * end an outage still matters (a vessel silent since before it counts from its end).
 */
const FEED_OUTAGES_EVERY_MS = 2_000;
const FEED_OUTAGES_WITHIN_MS = 6 * 3_600_000;
/** How often an idle zone consumer looks for static data learned about the vessels it holds. */
const LEARNED_TICK_MS = 1_000;

/**
 * What this instance holds for the partitions it owns. All of it is a cache of Postgres (states, feed
 * outages) or of the partitions' own records (the feed clocks), dropped on every rebalance and after a failed
 * batch. `states` holds every vessel seen (the previous fix the rules need), not only the stored ones.
 */
class OwnedVessels {
  constructor(sourceOutages?: Map<string, Outage>) {
    this.feed = newFeedState(sourceOutages);
    this.asOf = feedAsOf(this.feed);
  }

  states = new Map<number, VesselState>();
  feed: FeedState;
  /** What was last written per vessel, to skip writes that change nothing durable. */
  checkpoints = new Map<number, Checkpoint>();
  /** Position-only changes not written yet (written on a graceful stop, or with the next change). */
  unwritten = new Map<number, VesselState>();
  /** Vessels known to have no stored state, so they are not looked up again. */
  absent = new Set<number>();

  /** How far each vessel's silence can be judged: its feed's clock (rules/feed-silence.ts). */
  asOf: (mmsi: number) => number | undefined;
}

/**
 * The zone processor as the instance runs it: one member of the group in this thread (`workers` 0), or
 * `workers` members in worker threads (platform/role-workers.ts; PSS_MARITIME_ZONE_WORKERS).
 */
export function startZoneProcessors(ctx: ServiceContext, workers: number, reportEveryMs?: number): Promise<RunningRole> {
  if (workers === 0) return startZoneProcessor(ctx);
  return startRoleWorkers(ctx, { name: 'maritime-zones', module: new URL(import.meta.url), start: 'startZoneProcessor', count: workers, ...(reportEveryMs === undefined ? {} : { reportEveryMs }) });
}

export async function startZoneProcessor(ctx: ServiceContext, rules: ZoneRulesConfig = DEFAULT_ZONE_RULES_CONFIG): Promise<RunningRole> {
  const log = ctx.log.child({ role: 'maritime-zones' });
  const catalog = new ZoneCatalog(ctx.pool, log);
  await catalog.start();
  const directory = new VesselDirectory();
  // Zone evaluation starts once the vessel directory has read what ais.static holds, so authorization by
  // vessel type works from the first report after a restart.
  const directoryRole = await followVesselDirectory(ctx, directory);

  // Outlives rebalances: outages and clocks are the feeds', not the partitions'.
  let sourceOutages = new Map<string, Outage>();
  let outagesReadAt = 0;
  let sharedClocks = new Map<string, number>();
  const clocksShared = new Map<string, number>();
  let owned = new OwnedVessels(sourceOutages);
  const scheduleWatch = new ScheduleWatch();
  let lastHousekeeping = Date.now();
  let lastCaughtUpHousekeeping = Date.now();
  // An idle poll means every partition of this member has been read: then vessels are judged on their
  // feed's clock alone (rules/feed-silence.ts `caughtUp`), so a vessel alone on its partition is judged too
  // even when every housekeeping due falls on a batch.
  const housekeepingDue = (idle: boolean): boolean =>
    Date.now() - lastHousekeeping > HOUSEKEEPING_EVERY_MS || (idle && Date.now() - lastCaughtUpHousekeeping > HOUSEKEEPING_EVERY_MS);
  // The site-wide dwell_time stored through the rules API, over the built-in defaults; rebuilt only when
  // the snapshot changes, because dwell policies are cached per config object.
  let configFor: { snapshot: ZoneSnapshot; config: ZoneRulesConfig } | undefined;
  const configOf = (snapshot: ZoneSnapshot): ZoneRulesConfig => {
    if (configFor?.snapshot !== snapshot) configFor = { snapshot, config: withSiteDwellTime(rules, snapshot.dwellTime) };
    return configFor.config;
  };

  const consumer = new KafkaConsumer(ctx.kafka, {
    groupId: `${ctx.config.topicPrefix}maritime-zones`,
    topics: [ctx.topics.aisPositions],
    maxBatch: 10_000,
    // Static data learned for a vessel this member holds is applied within a second even while none of
    // its partitions brings a position (members in workers or instances each own only some partitions).
    tickMs: LEARNED_TICK_MS,
  });
  consumer.onRebalance(() => {
    const pending = [...owned.unwritten.values()];
    owned = new OwnedVessels(sourceOutages);
    // Written late is fine: a stored state is only replaced by one with a newer report (see the store).
    if (pending.length > 0) void writeStates(pending).catch((err) => log.warn({ err }, 'checkpoint on rebalance failed'));
  });

  await consumer.run(async (records) => {
    try {
      await evaluate(records);
    } catch (err) {
      // The in-memory states may be ahead of what was stored: forget them, so the retry of this batch
      // starts from the durable states and derives the same events again.
      owned = new OwnedVessels(sourceOutages);
      if (isPostgresTimeout(err)) {
        stalledBatches.inc();
        log.error({ err, records: records.length }, 'batch stalled: a Postgres query timed out; retrying the batch');
      }
      throw err;
    }
  });

  return {
    name: 'maritime-zones',
    stop: async () => {
      await consumer.stop();
      // A planned restart continues exactly: write what only moved before leaving.
      await writeStates([...owned.unwritten.values()]).catch((err) =>
        log.warn({ err }, 'final checkpoint failed; the next owner continues from the last one'),
      );
      await directoryRole.stop();
      await catalog.stop();
    },
  };

  function writeStates(states: VesselState[]): Promise<void> {
    return states.length === 0 ? Promise.resolve() : inTransaction(ctx.pool, (client) => saveVesselStates(client, states));
  }

  async function evaluate(records: InRecord[]): Promise<void> {
    const idle = records.length === 0;
    if (idle && !(housekeepingDue(idle) && owned.states.size > 0) && !directory.learnedAny(owned.states)) return;
    const started = performance.now();
    const items = await parsePositions(records);
    if (Date.now() - outagesReadAt > FEED_OUTAGES_EVERY_MS) {
      [sourceOutages, sharedClocks] = await Promise.all([recentFeedOutages(ctx.pool, FEED_OUTAGES_WITHIN_MS), shareClocks().then(() => sharedFeedClocks(ctx.pool, FEED_OUTAGES_WITHIN_MS))]);
      outagesReadAt = Date.now();
      owned.feed.sourceOutages = sourceOutages;
    }
    const v = owned;
    const unknown = new Set<number>();
    for (const { position } of items) {
      if (!v.states.has(position.mmsi) && !v.absent.has(position.mmsi)) unknown.add(position.mmsi);
    }
    const [loaded] = await Promise.all([loadVesselStates(ctx.pool, [...unknown]), staticDataCurrent()]);
    for (const mmsi of unknown) {
      const state = loaded.get(mmsi);
      if (state === undefined) {
        v.absent.add(mmsi);
        continue;
      }
      v.states.set(mmsi, state);
      v.checkpoints.set(mmsi, checkpointOf(state, durableJson(state)));
    }

    const snapshot = catalog.snapshot;
    const config = configOf(snapshot);
    let outcome = evaluatePositions(items, v.states, snapshot, directory, config, directory.takeLearned(), v.feed);
    if (housekeepingDue(idle)) {
      lastHousekeeping = Date.now();
      if (idle) lastCaughtUpHousekeeping = lastHousekeeping;
      v.feed.caughtUp = idle;
      // Everything on this member's partitions has been read: what the others read of its feeds counts.
      if (idle) adoptSharedClocks(v.feed, sharedClocks, config.feed_silence_seconds);
      outcome = withHousekeeping(outcome, expireSilent(v.states, v.asOf, snapshot, config, v.feed));
    }
    const { events, changed, occupancy, encounters } = outcome;

    // Schedule windows that opened or closed by this instance's newest event time are judged now too.
    const eventTime = Math.max(0, ...v.feed.watermarks.values());
    const windows = eventTime > 0 ? scheduleWatch.due(snapshot.rules, snapshot.zoneRules, eventTime) : { zones: [], confirm: () => undefined };

    const due: VesselState[] = [];
    const written = new Map<number, Checkpoint>();
    for (const state of changed) {
      v.absent.delete(state.mmsi);
      const zones = durableJson(state);
      if (!needsCheckpoint(state, zones, v.checkpoints.get(state.mmsi), config)) {
        v.unwritten.set(state.mmsi, state);
        continue;
      }
      due.push(state);
      written.set(state.mmsi, checkpointOf(state, zones));
    }
    const fresh =
      due.length === 0 && events.length === 0 && occupancy.length === 0 && windows.zones.length === 0 && encounters.length === 0
        ? []
        : await inTransaction(ctx.pool, async (client) => {
            await saveVesselStates(client, due);
            const crowded = await applyOccupancy(client, occupancy, snapshot.rules, snapshot.zoneRules, { zones: windows.zones, at: eventTime });
            const met = await applyEncounters(client, encounters, snapshot.rules, snapshot.zoneRules);
            return storeEvents(client, events.concat(crowded.map((intent) => ruleEvent(intent, 'occupancy')), met.map((intent) => ruleEvent(intent, 'encounter'))));
          });
    for (const [mmsi, checkpoint] of written) {
      v.checkpoints.set(mmsi, checkpoint);
      v.unwritten.delete(mmsi);
    }
    windows.confirm();
    if (fresh.length > 0) ctx.relay.wake();

    positionsEvaluated.inc(items.length);
    latePositions.inc(outcome.late);
    futurePositions.inc(outcome.future);
    batchSeconds.observe((performance.now() - started) / 1000);
  }

  /** Writes how far this member has read each feed, where that moved since it last wrote. */
  async function shareClocks(): Promise<void> {
    const moved = new Map([...owned.feed.clock.carried].filter(([feed, t]) => t > (clocksShared.get(feed) ?? Number.NEGATIVE_INFINITY)));
    await shareFeedClocks(ctx.pool, moved);
    for (const [feed, t] of moved) clocksShared.set(feed, t);
  }

  /** What a checkpoint compares: the zone presences and the rule slices. */
  function durableJson(state: VesselState): string {
    return state.rules === undefined ? JSON.stringify(state.zones) : JSON.stringify([state.zones, state.rules]);
  }

  /** Static reports produced before this batch's positions are in the directory before they are evaluated. */
  async function staticDataCurrent(): Promise<void> {
    const started = performance.now();
    const current = await directoryRole.current(STATIC_WAIT_BOUND_MS);
    const waited = performance.now() - started;
    staticWaitSeconds.observe(waited / 1000);
    if (current) return;
    staticWaitExceeded.inc();
    log.warn({ waited_ms: Math.round(waited) }, 'vessel directory behind ais.static; batch evaluated without its newest static data');
  }

  async function parsePositions(records: InRecord[]): Promise<PartitionedPosition[]> {
    const { values, failures } = await ctx.codec.decode('aisPositions', records);
    for (const { record, error } of failures) {
      // Ingest validated every record, so this is another producer's mistake; it cannot block the partition.
      unreadable.inc();
      log.warn({ topic: record.topic, partition: record.partition, offset: String(record.offset), reason: error.code, detail: error.message }, 'unreadable position skipped');
    }
    return values.map(({ record, value }) => ({ partition: record.partition, position: value }));
  }
}
