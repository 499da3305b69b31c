// `pss demo` (the README's run command): the service on the local stack with a demo port. It seeds the
// zones of cli/demo/copenhagen-port.ts, makes a demo API key, replays the real Copenhagen recording
// through ingest, time-compressed and looped, and prints every security event as it happens.
import { fileURLToPath } from 'node:url';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { createApiKey } from '../api/auth/api-keys.ts';
import { ZoneStore } from '../processors/maritime/zones/index.ts';
import { AisChannel } from '../ingest/ais-channel.ts';
import { ingestRuntime } from '../ingest/runtime.ts';
import { SyntheticClock } from '../ingest/sources/replay-timing.ts';
import { loadConfig } from '../app/config.ts';
import { KafkaConsumer } from '../platform/kafka/index.ts';
import { createLogger, type Logger } from '../platform/log.ts';
import type { SecurityEvent } from '../schemas/event.ts';
import { DEMO_ZONES } from './demo/copenhagen-port.ts';
import { driveGateLane } from './demo/gate-lane.ts';
import { startDemoFleet } from './demo/drone-fleet.ts';
import { FEATURES } from '../app/features.ts';
import { startService, type RunningService } from '../app/service.ts';

const RECORDING = fileURLToPath(new URL('../test/fixtures/ais/real-nmea-dma-copenhagen-oresund.txt', import.meta.url));
/** The recording spans about four minutes (10:45-10:49 UTC); each loop plays it in this many seconds. */
const LOOP_SECONDS = 24;
/** Event time runs this much faster than the wall clock, so four recorded minutes take 24 s. */
const COMPRESSION = 10;

export async function demoCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { minutes: { type: 'string', default: '10' } } });
  const config = loadConfig({ PSS_LOG_LEVEL: 'warn', ...process.env });
  const log = createLogger(config.logLevel);
  const service = await startService(config, config.roles, log, FEATURES);
  await seedZones(service);
  const key = await createApiKey(service.context.pool, config.environment, { name: 'demo', scopes: ['admin'], expires_in_days: 1 }, 'pss demo');
  printBanner(service, key.key);

  const printer = await printEvents(service, log);
  const replay = replayLooped(service, Number(values.minutes) * 60_000);
  const gateLane = new AbortController();
  driveGateLane(service.context, gateLane.signal);
  // Four simulated drones: an entry into the naval base (critical) sends one (mission_launched, evidence_captured, mission_completed).
  const fleet = config.roles.includes('processors') ? await startDemoFleet(service.context) : undefined;
  const stop = async () => {
    replay.abort();
    gateLane.abort();
    await fleet?.stop();
    await printer.stop();
    await service.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  return 0;
}

async function seedZones(service: RunningService): Promise<void> {
  const zones = new ZoneStore(service.context.pool);
  for (const zone of DEMO_ZONES) {
    if (!(await zones.nameTaken(zone.name))) await zones.create(zone);
  }
}

/**
 * Feeds the recording through the ingest path (decoder, validation, Kafka) with a compressed clock: the
 * recording has no per-line times, so each line is stamped by a synthetic clock (as `pss replay --rate`
 * does) whose rate makes one loop span the recording's four minutes of event time, fed in LOOP_SECONDS:
 * event time runs COMPRESSION times faster than the wall clock. Looped, stationary vessels keep reporting
 * and dwell builds up.
 */
function replayLooped(service: RunningService, forMs: number): AbortController {
  const controller = new AbortController();
  const started = Date.now();
  void (async () => {
    // A second run continues after the first: its clock starts past the newest report already stored,
    // which may be ahead of the wall clock (event time runs faster here), so no report counts as late.
    const { rows } = await service.context.pool.query<{ last: Date | null }>('SELECT max(last_seen_at) AS last FROM maritime_vessel_state');
    const origin = Math.max(started, (rows[0]?.last?.getTime() ?? 0) + 60_000);
    const rt = ingestRuntime(service.context);
    const lines = (await readFile(RECORDING, 'latin1')).split(/\r?\n/);
    const clock = new SyntheticClock(origin, lines.filter((line) => line.trim() !== '').length / (LOOP_SECONDS * COMPRESSION));
    const channel = new AisChannel({ source: 'dma-copenhagen-replay', kind: 'replay', queue: rt.queue, records: rt.records, strictTagBlocks: rt.config.aisStrictTagBlocks, fragmentTimeoutMs: rt.config.aisFragmentTimeoutMs, lineTime: () => clock.next() });
    const slices = LOOP_SECONDS * 4;
    const perSlice = Math.ceil(lines.length / slices);
    while (!controller.signal.aborted && Date.now() - started < forMs) {
      for (let i = 0; i < lines.length && !controller.signal.aborted; i += perSlice) {
        channel.write(lines.slice(i, i + perSlice).join('\n') + '\n');
        await sleep(250);
      }
    }
    channel.end();
    console.log('\nreplay finished; the service keeps running (Ctrl-C to stop)');
  })().catch((err) => service.context.log.error({ err }, 'demo replay failed'));
  return controller;
}

async function printEvents(service: RunningService, log: Logger): Promise<KafkaConsumer> {
  const consumer = new KafkaConsumer(service.context.kafka, {
    groupId: `${service.context.config.topicPrefix}demo-printer-${process.pid}-${Date.now()}`,
    topics: [service.context.topics.securityEvents],
    startAt: 'latest',
    lingerMs: 0,
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
  log.debug('printing events');
  return consumer;
}

const SEVERITY_MARK: Record<string, string> = { low: '.', medium: '*', high: '!', critical: '!!' };

export function formatEvent(e: SecurityEvent): string {
  if (e.source_module === 'gate') {
    const g = e.metadata as { container_id?: string | null; vehicle_plate?: string | null; status?: string };
    const what = `${g.container_id ?? '-'} on ${g.vehicle_plate ?? '-'}${e.type === 'gate_transaction_created' ? ` -> ${g.status ?? ''}` : ''}`;
    return `${e.timestamp.slice(11, 19)} ${(SEVERITY_MARK[e.severity] ?? '').padEnd(2)} ${e.severity.padEnd(8)} ${e.type.padEnd(16)} ${e.source_device.padEnd(26)} ${what}`;
  }
  const m = e.metadata as { mmsi?: number; vessel_name?: string | null; dwell_minutes?: number };
  const vessel = `${m.vessel_name ?? 'unknown'} (${m.mmsi ?? '?'})`;
  const dwell = m.dwell_minutes ? ` dwell ${m.dwell_minutes} min` : '';
  return `${e.timestamp.slice(11, 19)} ${(SEVERITY_MARK[e.severity] ?? '').padEnd(2)} ${e.severity.padEnd(8)} ${e.type.padEnd(16)} ${(e.location.zone ?? '').padEnd(26)} ${vessel}${dwell}`;
}

function printBanner(service: RunningService, key: string): void {
  console.log(
    [
      '',
      `Port Security Service demo: ${service.url}`,
      `  demo API key (admin, 1 day): ${key}`,
      `  zones:  curl -H "Authorization: Bearer ${key}" ${service.url}/v1/maritime/zones`,
      `  drones: curl -H "Authorization: Bearer ${key}" ${service.url}/v1/drones/missions`,
      `  health: ${service.url}/readyz   metrics: ${service.url}/metrics   API: ${service.url}/v1/openapi.json`,
      `  live event stream (docs/events-and-delivery.md "Live event stream"): npx wscat -c "${service.url?.replace(/^http/, 'ws')}/v1/events/stream?token=${key}"`,
      `    then type: {"type":"subscribe","filters":{"categories":["maritime"],"min_severity":"medium"}}`,
      `  gate transactions: curl -H "Authorization: Bearer ${key}" "${service.url}/v1/transactions?sort=risk_score"`,
      `Replaying the Danish Maritime Authority recording of Copenhagen (event time x${COMPRESSION}) and a truck every 4 s at gate-north; events as they happen:`,
      '',
      'event time  severity  type             zone / gate lane           vessel / container on plate',
    ].join('\n'),
  );
}
