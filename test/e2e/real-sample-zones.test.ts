import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { DEMO_ZONES } from '../../cli/demo/copenhagen-port.ts';
import { FEATURES } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { createAisDecoder } from '../../ingest/ais/index.ts';
import { KafkaAdmin, KafkaPartitionReader, KafkaProducer, type InRecord } from '../../platform/kafka/index.ts';
import { metricTotal } from '../../platform/metrics.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { call } from '../support/service.ts';
import { consumeUntil, testConfig, testKafka, testLog } from '../support/stack.ts';
import { valueOf } from '../support/codec.ts';
import { newEventRecords } from '../support/event-records.ts';

// The whole path on real data: the Danish Maritime Authority recording of Copenhagen, produced as raw NMEA
// to ais.raw (as an outside receiver would), decoded by ingest, evaluated against the demo port's zones.
const RECORDING = fileURLToPath(new URL('../fixtures/ais/real-nmea-dma-copenhagen-oresund.txt', import.meta.url));

/** Position reports with a position in the recording, as the decoder sees them. */
function positionsIn(lines: string[]): number {
  const decoder = createAisDecoder({ source: 'count', now: Date.now });
  return lines.flatMap((line) => decoder.push(line)).filter((r) => r.kind === 'position' && r.lat !== undefined).length;
}

async function untilEvaluated(n: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if ((await metricTotal('pss_maritime_positions_total')) >= n) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the processor did not evaluate ${n} positions within 30 s`);
}

/**
 * Until the zone group has committed every position on the topic. The evaluation count alone can be reached
 * early: records a member evaluated before a rebalance moved their partition are evaluated again by the new
 * owner and counted twice (seen once in a full run on a loaded host: an entry missing at the check).
 */
async function untilCommitted(service: RunningService): Promise<void> {
  const { kafka, topics, config } = service.context;
  const admin = new KafkaAdmin(kafka);
  const reader = new KafkaPartitionReader(kafka, topics.aisPositions, 'committed-check');
  try {
    const end = (await reader.offsets('latest')).reduce((a, b) => a + b, 0n);
    for (let i = 0; i < 300; i++) {
      const committed = [...(await admin.committedOffsets(`${config.topicPrefix}maritime-zones`, topics.aisPositions)).values()].reduce((a, b) => a + b, 0n);
      if (committed >= end) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the zone group did not commit the ${end} positions on ${topics.aisPositions} within 30 s`);
  } finally {
    await reader.close();
    await admin.close();
  }
}

describe('the real Copenhagen recording against the demo port', () => {
  let service: RunningService;
  const producer = new KafkaProducer(testKafka());

  beforeAll(async () => {
    service = await startService(testConfig(), ['api', 'processors', 'ingest'], testLog, FEATURES);
    const { pool, config } = service.context;
    const key = (await createApiKey(pool, config.environment, { name: 'zones', scopes: ['maritime:write'] }, 'test')).key;
    for (const zone of DEMO_ZONES) {
      const res = await call(`${service.url}/v1/maritime/zones`, key, { method: 'POST', json: zone });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
    }
  });
  afterAll(async () => {
    await producer.close();
    await service?.stop();
  });

  it('raises entries for the vessels the recording places in each zone, and none for authorized ones', async () => {
    const lines = readFileSync(RECORDING, 'latin1').split(/\r?\n/);
    const records = [];
    for (let i = 0; i < lines.length; i += 40) {
      records.push({ topic: service.context.topics.aisRaw, key: 'dma-copenhagen', value: lines.slice(i, i + 40).join('\n') });
    }
    await producer.send(records);

    const wanted: [number, string][] = [
      [219592000, 'Cruise terminal'], // CROWN OF SCANDINAVIA at the quay
      [219006221, 'Holmen naval base'], // TINSOLDATEN, canal tour boat
      [236180000, 'Northern approach channel'],
      [220492000, 'Middelgrund anchorage'], // RMS COPENHAGEN at anchor
    ];
    const entered = (events: SecurityEvent[], mmsi: number, zone: string) =>
      events.some((e) => e.type === 'zone_entry' && e.metadata.mmsi === mmsi && e.location.zone === zone);

    // Wait until the processor has evaluated every position of the recording, then read every stored
    // event from the topic, so the absence of an alert below is a finding, not a race.
    await untilEvaluated(positionsIn(lines));
    await untilCommitted(service);
    // The test database is shared with other files (some on other topics): count this port's events only,
    // the zone processor's. The response loop runs too: it republishes them with their incident_id
    // (updates, not copies) and adds incident and response events of these zones, still coming now.
    const names = DEMO_ZONES.map((z) => z.name);
    const { rows } = await service.context.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM security_events WHERE zone = ANY($1::text[]) AND source_module = 'maritime.zones'`,
      [names],
    );
    const stored = rows[0]!.n;
    const ofThisPort = (records: InRecord[]) =>
      newEventRecords(records).map((r) => valueOf(r) as SecurityEvent).filter((e) => names.includes(e.location.zone ?? '') && e.source_module === 'maritime.zones');
    const events = ofThisPort(await consumeUntil(service.context.topics.securityEvents, (seen) => ofThisPort(seen).length >= stored, { timeoutMs: 45_000 }));
    expect(events.length).toBe(stored);

    for (const [mmsi, zone] of wanted) expect(entered(events, mmsi, zone), `${mmsi} entering ${zone}`).toBe(true);
    const exclusion = events.find((e) => e.type === 'zone_entry' && e.metadata.mmsi === 219006221)!;
    expect(exclusion).toMatchObject({ severity: 'critical', requires_action: true });
    // PILOT MERKUR waits 470 m from the cruise terminal, inside its buffer, and is authorized by MMSI.
    expect(events.filter((e) => e.metadata.mmsi === 219001061 && e.metadata.alerting === true)).toEqual([]);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });
});
