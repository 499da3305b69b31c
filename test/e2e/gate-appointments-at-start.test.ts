import { afterAll, describe, expect, it } from 'vitest';
import { gateFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { checkDigit } from '../../ingest/gate/iso6346.ts';
import { findingsOf } from '../../ingest/gate/readings.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import { topicNames, topicSpecs } from '../../platform/topics.ts';
import type { GateReadingRecord } from '../../schemas/gate-reading.ts';
import { reading } from '../support/gate-readings.ts';
import { testConfig, testKafka, testLog, unique, withAdmin } from '../support/stack.ts';

// Issue 11: appointments and readings waiting on their topics when the processors start (a restart, a
// backlog): both consumer groups start at once, and a reading must not be decided before the appointments
// already on gate.appointments have been stored, or a booked truck is flagged as unbooked.
const TRUCKS = 200;
const BACKLOG = 30_000;
const containerId = (n: number) => {
  const ten = `STRU${String(n).padStart(6, '0')}`;
  return `${ten}${checkDigit(ten)}`;
};

describe('appointments and readings waiting when the processors start', () => {
  const prefix = `${unique('gatestart')}.`;
  const topics = topicNames(prefix);
  const producer = new KafkaProducer(testKafka());
  let service: RunningService | undefined;
  afterAll(async () => {
    await producer.close();
    await service?.stop();
  });

  it('decides every reading with its appointment', async () => {
    await withAdmin((admin) => admin.ensureTopics(topicSpecs(prefix)));
    const run = prefix.replace(/\W/g, '');
    const trucks = Array.from({ length: TRUCKS }, (_, n) => {
      const plate = `ST ${n}`;
      const appointment = { appointment_id: `apt-${run}-${n}`, plate, carrier: 'Nordic Haulage', container_id: containerId(n), iso_type: '22G1', seal_number: 'SL-778812', weight_declared_kg: 18_200 };
      const base = reading();
      const r = reading({
        reading_id: `rd-${run}-${n}`, gate: `gate-${n % 6}`, lane: 'lane-1', captured_at: new Date().toISOString(),
        vehicle: { ...base.vehicle, plate, appointment_id: appointment.appointment_id },
        container: { ...base.container!, id: appointment.container_id },
        inspection: { damage_regions: [], images: base.inspection!.images },
      });
      const record: GateReadingRecord = { ...r, source: 'e2e', received_at: new Date().toISOString(), findings: findingsOf(r) };
      return { appointment, record };
    });
    // A backlog of other bookings ahead of theirs.
    for (let i = 0; i < BACKLOG; i += 5_000) {
      await producer.send(Array.from({ length: 5_000 }, (_, k) => ({ appointment_id: `apt-${run}-other-${i + k}`, plate: `OT ${i + k}`, container_id: containerId(500_000 + i + k) }))
        .map((a) => ({ topic: topics.gateAppointments, key: a.appointment_id, value: JSON.stringify(a) })));
    }
    await producer.send(trucks.map((t) => ({ topic: topics.gateAppointments, key: t.appointment.appointment_id, value: JSON.stringify(t.appointment) })));
    await producer.send(trucks.map((t) => ({ topic: topics.gateReadings, key: t.record.gate, value: JSON.stringify(t.record) })));

    service = await startService(testConfig({ PSS_TOPIC_PREFIX: prefix }), ['processors'], testLog, [gateFeature]);
    const ids = trucks.map((t) => t.record.reading_id);
    const deadline = Date.now() + 60_000;
    let rows: { reading_id: string; status: string }[] = [];
    while (Date.now() < deadline) {
      ({ rows } = await service.context.pool.query<{ reading_id: string; status: string }>('SELECT reading_id, status FROM gate_transactions WHERE reading_id = ANY($1)', [ids]));
      if (rows.length === TRUCKS) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(rows).toHaveLength(TRUCKS);
    const stopped = rows.filter((r) => r.status !== 'approved');
    expect(stopped.length, JSON.stringify(stopped.slice(0, 3))).toBe(0);
  });
});
