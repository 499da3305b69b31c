// Drone missions benchmark (issue 24, "Done means"): (1) alert event stored -> launch command on
// drone.commands, goal p99 <= 250 ms; (2) 100 drones reporting at 1 Hz with about 20 missions in flight,
// handled by one instance, telemetry record appended -> state committed, goal p99 <= 100 ms. The response
// loop, the drones role (startDroneMissions: command sender, fleet intake, monitor) and the relay run in
// this process as a processors instance runs them; the fleet simulator flies 100 drones from docks around a
// zone whose alert rule dispatches a drone on entry. PSS_BENCH_DRONES_ALERTS zone entries of distinct vessels
// (default 30) are stored one every PSS_BENCH_DRONES_ALERT_EVERY_MS (default 1000); each gives one mission.
// (2) is read from pss_drone_record_seconds (bucket bounds 5, 10, 25, 50, 75, 100, 150, 250 ms: the p99 is
// given as the bound of its bucket). Run: npm run bench drones
import { loadavg } from 'node:os';
import { eventId } from '../events/event-id.ts';
import { storeEvents } from '../events/store.ts';
import { FleetSimulator } from '../drones/simulator/fleet-simulator.ts';
import { runSimulator } from '../drones/simulator/simulator-runner.ts';
import { appliedSeconds } from '../drones/role.ts';
import { KafkaConsumer } from '../platform/kafka/index.ts';
import { createLogger } from '../platform/log.ts';
import { inTransaction } from '../platform/postgres.ts';
import { replaceZoneRules } from '../processors/maritime/rules-config/rule-store.ts';
import { ZoneStore } from '../processors/maritime/zones/zone-store.ts';
import { startDroneMissions } from '../response/drone-missions.ts';
import { startResponse } from '../response/role.ts';
import type { DroneCommand } from '../schemas/drone.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import { benchContext } from './support/bench-context.ts';
import { dropBenchDatabase } from './support/bench-database.ts';

const ALERTS = Number(process.env.PSS_BENCH_DRONES_ALERTS ?? 30);
const ALERT_EVERY_MS = Number(process.env.PSS_BENCH_DRONES_ALERT_EVERY_MS ?? 1_000);
const DRONES = 100;
const DATABASE = 'pss_bench_drones';
const ZONE = 'Drone bench quay';
const log = createLogger(process.env.PSS_BENCH_LOG_LEVEL ?? 'silent');
const wall = () => performance.timeOrigin + performance.now();
const pct = (sorted: readonly number[], q: number) => (sorted.length === 0 ? NaN : (sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number));

function entry(n: number, at: number): SecurityEvent {
  const mmsi = 232_000_000 + n;
  return {
    id: eventId(`bench-drones:${process.pid}:${n}`), type: 'zone_entry', timestamp: new Date(at).toISOString(), category: 'maritime', severity: 'high',
    source_module: 'maritime.zones', source_device: 'ais', title: `Vessel ${mmsi} entered ${ZONE}`, description: 'benchmark event',
    location: { lat: 55.503, lng: 12.605, zone: ZONE }, metadata: { mmsi, zone_type: 'restricted' }, requires_action: false, assigned_to: '', incident_id: null,
  };
}

/** The p99 of a prom-client histogram as the upper bound of the bucket that holds it, and the count. */
async function histogramP99(): Promise<{ count: number; p99UpToMs: number; p50UpToMs: number }> {
  const metric = await appliedSeconds.get();
  const buckets = metric.values.filter((v) => v.metricName?.endsWith('_bucket')).map((v) => ({ le: Number(v.labels.le), n: v.value })).sort((a, b) => a.le - b.le);
  const count = buckets.at(-1)?.n ?? 0;
  const bound = (q: number) => (buckets.find((b) => b.n >= q * count)?.le ?? Infinity) * 1000;
  return { count, p99UpToMs: bound(0.99), p50UpToMs: bound(0.5) };
}

async function main(): Promise<void> {
  const prefix = `bench-drones-${Date.now().toString(36)}-`;
  const { ctx, close } = await benchContext({ database: DATABASE, prefix, log, startRelay: true, settings: { PSS_DRONE_TELEMETRY_INTERVAL_MS: '1000' } });
  const { pool } = ctx;
  const zone = await new ZoneStore(pool).create({
    name: ZONE, type: 'restricted', alert_level: 'high', active: true,
    geometry: { type: 'Polygon', coordinates: [[[12.6, 55.5], [12.61, 55.5], [12.61, 55.506], [12.6, 55.506], [12.6, 55.5]]] },
  });
  const problems = await replaceZoneRules(pool, zone.id, { alert_rules: { on_entry: { alert_level: 'high', actions: [{ action: 'dispatch_drone', mission: 'inspect' }] } } });
  if (problems.length > 0) throw new Error(`alert rule refused: ${JSON.stringify(problems)}`);

  // 100 docks on a 10 x 10 grid about 300 m apart around the zone; drones fly at 15 m/s and stay a minute on station.
  const docks = Array.from({ length: DRONES }, (_, i) => ({ id: `bench-${i}`, lon: 12.59 + (i % 10) * 0.005, lat: 55.49 + Math.floor(i / 10) * 0.003 }));
  const sim = new FleetSimulator({ docks, speedMps: 15, telemetryHz: 1, drainPerMinute: 2, stationSeconds: 60 }, Date.now());
  const running = await runSimulator({ kafka: ctx.kafka, producer: ctx.producer, codec: ctx.codec, topics: ctx.topics, topicPrefix: prefix, log }, sim, { tickMs: 200 });

  const appended = new Map<string, number>();
  const launched = new Map<string, number>();
  const commands = new KafkaConsumer(ctx.kafka, { groupId: `${prefix}bench-commands`, topics: [ctx.topics.droneCommands], startAt: 'latest', lingerMs: 0, commitOffsets: false });
  const missionEvent = new Map<string, string>();
  await commands.run(async (records) => {
    const now = wall();
    const { values } = await ctx.codec.decode('droneCommands', records);
    for (const { value } of values as { value: DroneCommand }[]) if (value.type === 'launch' && !launched.has(value.mission_id)) launched.set(value.mission_id, now);
  });
  const response = await startResponse(ctx);
  const drones = await startDroneMissions(ctx);
  // Groups join, and every drone reports, before the clock starts.
  await new Promise((r) => setTimeout(r, 6_000));
  appliedSeconds.reset();

  const loadBefore = loadavg();
  for (let n = 0; n < ALERTS; n++) {
    const at = wall();
    const event = entry(n, at);
    appended.set(event.id, at);
    await inTransaction(pool, (c) => storeEvents(c, [event]));
    ctx.relay.wake();
    await new Promise((r) => setTimeout(r, ALERT_EVERY_MS));
  }
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { rows } = await pool.query<{ id: string; event_id: string }>('SELECT id, event_id FROM drone_missions');
    for (const r of rows) missionEvent.set(r.id, r.event_id);
    if ([...missionEvent.keys()].filter((id) => launched.has(id)).length >= ALERTS || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const { rows: [inFlight] } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM drone_missions WHERE status IN ('accepted', 'launched', 'on_station', 'returning')`);
  const telemetry = await histogramP99();
  const loadAfter = loadavg();

  await drones.stop();
  await response.stop();
  await commands.stop();
  await running.stop();
  await close();
  await dropBenchDatabase(DATABASE);

  const delays = [...launched].flatMap(([mission, at]) => {
    const event = missionEvent.get(mission);
    const stored = event === undefined ? undefined : appended.get(event);
    return stored === undefined ? [] : [at - stored];
  }).sort((a, b) => a - b);
  const p99 = pct(delays, 0.99);
  console.log(`${ALERTS} zone entries (high, rule dispatch_drone inspect), one every ${ALERT_EVERY_MS} ms; ${DRONES} simulated drones at 1 Hz; missions in flight at the end: ${inFlight?.n}`);
  console.log(`load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after`);
  console.log(`alert event stored -> launch command read on drone.commands (${delays.length}/${ALERTS}): p50 ${pct(delays, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${(delays.at(-1) ?? NaN).toFixed(1)} ms (goal p99 <= 250 ms: ${delays.length === ALERTS && p99 <= 250 ? 'met' : 'MISSED'})`);
  console.log(`fleet record appended -> state committed (${telemetry.count} records): p50 <= ${telemetry.p50UpToMs} ms, p99 <= ${telemetry.p99UpToMs} ms (goal p99 <= 100 ms: ${telemetry.p99UpToMs <= 100 ? 'met' : 'MISSED'})`);
  console.log(JSON.stringify({ alerts: ALERTS, drones: DRONES, in_flight: inFlight?.n, launch_ms: { p50: pct(delays, 0.5), p99, max: delays.at(-1), n: delays.length }, telemetry, load_before: loadBefore, load_after: loadAfter }));
}

await main();
