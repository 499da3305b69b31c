import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZoneStore } from '../../processors/maritime/zones/zone-store.ts';
import { KafkaAdmin, KafkaProducer, type InRecord } from '../../platform/kafka/index.ts';
import { createPool, migrate, type Pool } from '../../platform/postgres.ts';
import { topicNames, topicSpecs } from '../../platform/topics.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique } from '../support/stack.ts';
import { track } from '../support/tracks.ts';
import { valueOf } from '../support/codec.ts';
import { newEventRecords } from '../support/event-records.ts';

// Issue 5: "killing the processor mid-dwell and starting it again continues the same timers and emits no
// duplicate events". The processor runs as its own `pss start --roles processors` process and gets SIGKILL.
const PSS = fileURLToPath(new URL('../../bin/pss.js', import.meta.url));
const T0 = new Date('2026-11-20T12:00:00Z');
const at = (minute: number) => new Date(T0.getTime() + minute * 60_000).toISOString();
const MMSI = 219000777;

describe('a processor killed mid-dwell', () => {
  const config = testConfig({ PSS_TOPIC_PREFIX: `${unique('crash')}.` });
  const topics = topicNames(config.topicPrefix);
  const producer = new KafkaProducer(testKafka());
  let pool: Pool;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    const admin = new KafkaAdmin(testKafka());
    await admin.ensureTopics(topicSpecs(config.topicPrefix));
    await admin.close();
    pool = createPool(config.databaseUrl, 2);
    await new ZoneStore(pool).create({
      name: 'Crash test terminal', type: 'restricted', alert_level: 'high', active: true,
      geometry: { type: 'Circle', center: [11.5, 56.5], radius_meters: 400 },
    });
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await producer.close();
    await pool?.end();
  });

  function startProcessor(): ChildProcess {
    const env = {
      ...process.env,
      PSS_DATABASE_URL: config.databaseUrl,
      PSS_KAFKA_BROKERS: config.kafkaBrokers.join(','),
      PSS_TOPIC_PREFIX: config.topicPrefix,
      PSS_LOG_LEVEL: 'warn',
    };
    return spawn(process.execPath, [PSS, 'start', '--roles', 'processors'], { env, stdio: 'ignore' });
  }

  async function untilAllPublished(): Promise<void> {
    for (let i = 0; i < 100; i++) {
      // Only this vessel's zone events as new events: other test files share the database and may leave
      // entries of their own, and the response loop's updates and incident events are not what is checked.
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM event_outbox AS o JOIN security_events AS e ON e.id = o.event_id
          WHERE (e.body->'metadata'->>'mmsi')::int = $1 AND o.change = 'created' AND e.source_module = 'maritime.zones'`,
        [MMSI],
      );
      if (rows[0]?.n === 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('events stayed unpublished for 10 s');
  }

  const send = (minutes: [number, number]) =>
    producer.send(
      track(MMSI, T0, [{ minute: minutes[0], lon: 11.5, lat: 56.5 }, { minute: minutes[1], lon: 11.5005, lat: 56.5 }]).map((p) => ({
        topic: topics.aisPositions, key: String(p.mmsi), value: JSON.stringify(p),
      })),
    );
  // The zone processor's events of this vessel, as new events: the child runs every feature, so its
  // response loop republishes them with their incident_id (updates, not copies) and adds incident events.
  const mine = (records: InRecord[]) =>
    newEventRecords(records).map((r) => valueOf(r) as SecurityEvent).filter((e) => e.metadata.mmsi === MMSI && e.source_module === 'maritime.zones');

  it('continues the same dwell timers after SIGKILL and puts every event on the topic exactly once', async () => {
    child = startProcessor();
    await send([0, 20]);
    await consumeUntil(topics.securityEvents, (seen) => mine(seen).some((e) => e.type === 'dwell_threshold'), { timeoutMs: 60_000 });
    // Killed mid-dwell once its events are on the topic and recorded as such. (A kill between the broker's
    // acknowledgement and that record would publish them again, with the same ids:
    // docs/events-and-delivery.md "Security events".)
    await untilAllPublished();
    child.kill('SIGKILL');
    await once(child, 'exit');

    // Reports keep coming while no processor runs; a new one picks them up with the stored timers.
    await send([21, 50]);
    child = startProcessor();
    // Quiet for 2 s after the last escalation, so a duplicate would be seen.
    const escalated = (seen: InRecord[]) => mine(seen).filter((e) => e.type === 'dwell_escalation').length >= 2;
    const events = mine(await consumeUntil(topics.securityEvents, escalated, { timeoutMs: 60_000, quietMs: 2_000 }));

    // Events are keyed by id, so they sit on different partitions: compare in event-time order.
    expect(events.map((e) => [e.type, e.timestamp]).sort((a, b) => a[1]!.localeCompare(b[1]!) || a[0]!.localeCompare(b[0]!))).toEqual([
      ['zone_entry', at(0)],
      ['dwell_threshold', at(15)],
      ['dwell_escalation', at(30)],
      ['dwell_escalation', at(45)],
    ]);
    expect(new Set(events.map((e) => e.id)).size).toBe(4);
  });
});
