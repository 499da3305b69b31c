// `pss demo` (the README's run command): the service on the local stack with a demo port. It seeds the
// zones of cli/demo/copenhagen-port.ts, makes this run's demo API key, replays the real Copenhagen
// recording through ingest in a loop on the wall clock, drives a gate lane and a drone fleet, and prints
// every security event as it happens, until Ctrl-C (or --minutes).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { loadConfig } from '../app/config.ts';
import { FEATURES } from '../app/features.ts';
import { startService, type RunningService } from '../app/service.ts';
import { KafkaConsumer } from '../platform/kafka/index.ts';
import { createLogger } from '../platform/log.ts';
import { ZoneStore } from '../processors/maritime/zones/index.ts';
import { DEMO_ZONES } from './demo/copenhagen-port.ts';
import { demoLogSink } from './demo/demo-log.ts';
import { issueDemoKey, revokeDemoKey } from './demo/demo-key.ts';
import { replayLooped } from './demo/demo-replay.ts';
import { startDemoFleet } from './demo/drone-fleet.ts';
import { formatEvent, formatLockNotice, TABLE_HEADER } from './demo/event-table.ts';
import { DEMO_GATE, startGateLane } from './demo/gate-lane.ts';
import { usageLine } from './usage.ts';

/** The demo's log file: the terminal is the event table's. */
export const DEMO_LOG = join(process.env.PSS_HOME ?? join(homedir(), '.cache', 'port-security-service'), 'demo.log');

export async function demoCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { minutes: { type: 'string' } } });
  const minutes = values.minutes === undefined ? undefined : Number(values.minutes);
  if (minutes !== undefined && !(minutes > 0)) {
    console.error(`pss demo: --minutes must be a number greater than 0\n${usageLine('demo')}`);
    return 2;
  }
  const config = loadConfig({ PSS_LOG_LEVEL: 'info', ...process.env });
  const file = pino.destination({ dest: DEMO_LOG, mkdir: true, sync: false });
  const log = createLogger(config.logLevel, demoLogSink(file, DEMO_LOG, (line) => console.error(line)));
  const service = await startService(config, config.roles, log, FEATURES);
  const { pool } = service.context;
  await seedZones(service);
  const { key, revokedEarlier } = await issueDemoKey(pool, config.environment);

  // What is started below, stopped in reverse; each is set once it runs, so a signal during start-up (the
  // key printed, the rest still starting) stops what runs and revokes the key, instead of Node's default
  // exit that left the key valid.
  const parts: { printer?: { stop(): Promise<void> }; gateLane?: { stop(): Promise<void> }; fleet?: { stop(): Promise<void> } } = {};
  let replayDone: Promise<unknown> = Promise.resolve();
  const replay = new AbortController();
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${why}: stopping the demo`);
    const timer = setTimeout(() => {
      const pending = service.pending();
      log.error({ timeout_ms: config.shutdownTimeoutMs, pending }, `demo shutdown timed out; exiting while still stopping: ${pending.join(', ') || 'nothing named'}`);
      file.flushSync();
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    // First, so that no way out of the demo leaves its admin key valid.
    await revokeDemoKey(pool, key.id).then(
      () => console.log(`demo API key ${key.id} revoked`),
      (err: unknown) => log.error({ err, key_id: key.id }, `revoking the demo API key failed: revoke it with pss keys revoke ${key.id}`),
    );
    replay.abort();
    await replayDone;
    await parts.gateLane?.stop();
    await parts.fleet?.stop();
    await parts.printer?.stop();
    const still = await service.stop();
    file.flushSync();
    process.exit(still.length === 0 ? 0 : 1);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal));

  printBanner(service, key.key, revokedEarlier);
  await warnOfFutureReports(service);
  if (stopping) return 0;
  parts.printer = await printEvents(service);
  if (config.roles.includes('ingest')) replayDone = replayLooped(service.context, replay.signal).catch((err: unknown) => log.error({ err }, 'demo replay failed'));
  parts.gateLane = await startGateLane(service.context, { onLock: (lock) => console.log(formatLockNotice(DEMO_GATE, lock, new Date())) });
  // Four simulated drones: an entry into the naval base (critical) sends one (mission_launched, evidence_captured, mission_completed).
  if (config.roles.includes('processors')) parts.fleet = await startDemoFleet(service.context);
  if (minutes !== undefined) setTimeout(() => void stop(`${minutes} min (--minutes)`), minutes * 60_000).unref();
  return 0;
}

async function seedZones(service: RunningService): Promise<void> {
  const zones = new ZoneStore(service.context.pool);
  for (const zone of DEMO_ZONES) {
    if (!(await zones.nameTaken(zone.name))) await zones.create(zone);
  }
}

/**
 * Demos before issue 34 stamped reports up to hours ahead of the clock. A vessel's report older than the
 * one stored is not newer and is dropped, so those vessels stay quiet until the clock passes their time.
 */
async function warnOfFutureReports(service: RunningService): Promise<void> {
  const { rows } = await service.context.pool.query<{ last: Date | null }>('SELECT max(last_seen_at) AS last FROM maritime_vessel_state');
  const last = rows[0]?.last;
  if (last == null || last.getTime() <= Date.now() + 60_000) return;
  console.log(
    `note: the database holds vessel reports up to ${last.toISOString()}, ahead of the clock (an older demo stamped them in the future);\n` +
    '      until then the vessels reporting again are older than what is stored and show nothing. A fresh database avoids it\n' +
    '      (stop the demo, `dropdb -h 127.0.0.1 -U postgres pss`, `npm start` creates it again).\n',
  );
}

async function printEvents(service: RunningService): Promise<KafkaConsumer> {
  const consumer = new KafkaConsumer(service.context.kafka, {
    groupId: `${service.context.config.topicPrefix}demo-printer-${process.pid}-${Date.now()}`,
    topics: [service.context.topics.securityEvents],
    startAt: 'latest',
    lingerMs: 0,
    commitOffsets: false,
  });
  const seen = new Set<string>();
  await consumer.run(async (records) => {
    const { values } = await service.context.codec.decode('securityEvents', records);
    for (const { value: event } of values) {
      if (seen.has(event.id)) continue;
      seen.add(event.id);
      console.log(formatEvent(event));
    }
  });
  return consumer;
}

function printBanner(service: RunningService, key: string, revokedEarlier: string[]): void {
  const url = service.url ?? '(no api role)';
  console.log(
    [
      '',
      `Port Security Service demo: ${url}`,
      `  demo API key (admin; revoked when the demo stops, expires in a day): ${key}`,
      ...(revokedEarlier.length === 0 ? [] : [`  (revoked the key${revokedEarlier.length > 1 ? 's' : ''} an earlier demo left valid: ${revokedEarlier.join(', ')})`]),
      `  zones:  curl -H "Authorization: Bearer ${key}" ${url}/v1/maritime/zones`,
      `  events: curl -H "Authorization: Bearer ${key}" "${url}/v1/events?per_page=20"`,
      `  drones: curl -H "Authorization: Bearer ${key}" ${url}/v1/drones/missions`,
      `  health: ${url}/readyz   metrics: ${url}/metrics   API: ${url}/v1/openapi.json`,
      `  live event stream (docs/events-and-delivery.md "Live event stream"): npx wscat -c "${url.replace(/^http/, 'ws')}/v1/events/stream?token=${key}"`,
      `    then type: {"type":"subscribe","filters":{"categories":["maritime"],"min_severity":"medium"}}`,
      `  gate transactions: curl -H "Authorization: Bearer ${key}" "${url}/v1/transactions?sort=risk_score"`,
      `  log: ${DEMO_LOG} (errors also print here)`,
      `Replaying the Danish Maritime Authority recording of Copenhagen in a loop on the wall clock (4 min a loop),`,
      `and a truck every 4 s at ${DEMO_GATE}. Ctrl-C stops. Events as they happen:`,
      '',
      TABLE_HEADER,
    ].join('\n'),
  );
}
