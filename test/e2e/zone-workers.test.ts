// The zone processor as two members in worker threads (PSS_MARITIME_ZONE_WORKERS=2) on the real path:
// the Copenhagen recording through ingest, evaluated by the workers against the demo port's zones. The
// workers' events are published by the main thread's relay (woken by them), their counters appear in
// /metrics, /readyz counts their consumers, and the service stops with them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { DEMO_ZONES } from '../../cli/demo/copenhagen-port.ts';
import { FEATURES } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { createAisDecoder } from '../../ingest/ais/index.ts';
import { KafkaProducer, type InRecord } from '../../platform/kafka/index.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { call } from '../support/service.ts';
import { consumeUntil, testConfig, testKafka, testLog } from '../support/stack.ts';
import { valueOf } from '../support/codec.ts';
import { newEventRecords } from '../support/event-records.ts';

const RECORDING = fileURLToPath(new URL('../fixtures/ais/real-nmea-dma-copenhagen-oresund.txt', import.meta.url));
const SUFFIX = ' (zone workers test)';

async function metricsText(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

/** A counter's value in /metrics text, summed over its label sets. */
function counterIn(text: string, name: string): number {
  return text.split('\n').filter((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`)).reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

describe('the zone processor in worker threads', () => {
  let service: RunningService;
  const producer = new KafkaProducer(testKafka());
  const zoneIds: string[] = [];

  beforeAll(async () => {
    const prefix = `${testConfig().topicPrefix}zw-`;
    service = await startService(testConfig({ PSS_TOPIC_PREFIX: prefix, PSS_MARITIME_ZONE_WORKERS: '2' }), ['api', 'processors', 'ingest'], testLog, FEATURES);
    const { pool, config } = service.context;
    const key = (await createApiKey(pool, config.environment, { name: 'zone-workers', scopes: ['maritime:write'] }, 'test')).key;
    for (const zone of DEMO_ZONES) {
      const res = await call(`${service.url}/v1/maritime/zones`, key, { method: 'POST', json: { ...zone, name: `${zone.name}${SUFFIX}` } });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      zoneIds.push((res.json as { id: string }).id);
    }
  });
  afterAll(async () => {
    await producer.close();
    if (zoneIds.length > 0) await service?.context.pool.query('DELETE FROM zones WHERE id = ANY($1::text[])', [zoneIds]);
    await service?.stop();
  });

  it('raises the recording\'s zone entries from the workers, publishes them once, and shows the workers in /metrics and /readyz', async () => {
    const lines = readFileSync(RECORDING, 'latin1').split(/\r?\n/);
    const records = [];
    for (let i = 0; i < lines.length; i += 40) records.push({ topic: service.context.topics.aisRaw, key: 'dma-copenhagen', value: lines.slice(i, i + 40).join('\n') });
    await producer.send(records);

    const names = DEMO_ZONES.map((z) => `${z.name}${SUFFIX}`);
    // New events only: the response loop republishes each with its incident_id (an update, not a copy).
    const ofThisPort = (seen: InRecord[]) => newEventRecords(seen).map((r) => valueOf(r) as SecurityEvent).filter((e) => names.includes(e.location.zone ?? ''));
    const entered = (events: SecurityEvent[], mmsi: number, zone: string) => events.some((e) => e.type === 'zone_entry' && e.metadata.mmsi === mmsi && e.location.zone === `${zone}${SUFFIX}`);
    const wanted: [number, string][] = [
      [219592000, 'Cruise terminal'],
      [219006221, 'Holmen naval base'],
      [236180000, 'Northern approach channel'],
      [220492000, 'Middelgrund anchorage'],
    ];
    const events = ofThisPort(await consumeUntil(service.context.topics.securityEvents, (seen) => wanted.every(([m, z]) => entered(ofThisPort(seen), m, z)), { timeoutMs: 60_000 }));
    for (const [mmsi, zone] of wanted) expect(entered(events, mmsi, zone), `${mmsi} entering ${zone}`).toBe(true);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);

    // Every position of the recording, counted by the workers (reported about once a second; the main
    // thread evaluates none here, so /metrics shows the workers' counts).
    const decoder = createAisDecoder({ source: 'count', now: Date.now });
    const positions = lines.flatMap((line) => decoder.push(line)).filter((r) => r.kind === 'position' && r.lat !== undefined).length;
    let evaluated = 0;
    for (let i = 0; i < 300 && evaluated < positions; i++) {
      evaluated = counterIn(await metricsText(service.url!), 'pss_maritime_positions_total');
      if (evaluated < positions) await new Promise((r) => setTimeout(r, 100));
    }
    expect(evaluated).toBe(positions);
    const ready = await fetch(`${service.url}/readyz`);
    expect(ready.status, await ready.clone().text()).toBe(200);
  });

  it('stops the workers with the service, well within the shutdown timeout', async () => {
    const started = Date.now();
    await service.stop();
    expect(Date.now() - started).toBeLessThan(10_000);
    service = undefined as unknown as RunningService;
  });
});
