// Issue 21, item 3: a site that sends no gate.appointments must not review every truck by hand. Through the
// real gate pipeline (readings and bookings on their topics, both consumer groups, Postgres), with the
// default PSS_GATE_APPOINTMENTS=auto and one gate overridden each way: before any booking a clean unbooked
// truck is approved; once the site has received a booking an unbooked truck is flagged again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gateFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { checkDigit } from '../../ingest/gate/iso6346.ts';
import { findingsOf } from '../../ingest/gate/readings.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import { topicNames, topicSpecs } from '../../platform/topics.ts';
import type { GateReadingRecord } from '../../schemas/gate-reading.ts';
import { reading } from '../support/gate-readings.ts';
import { testConfig, testKafka, testLog, unique, withAdmin } from '../support/stack.ts';

const containerId = (n: number) => {
  const ten = `OPTU${String(n).padStart(6, '0')}`;
  return `${ten}${checkDigit(ten)}`;
};

describe('gate appointments: required, optional, auto', () => {
  const prefix = `${unique('gateopt')}.`;
  const run = prefix.replace(/\W/g, '');
  const topics = topicNames(prefix);
  const producer = new KafkaProducer(testKafka());
  let service: RunningService;
  let n = 0;

  /** A clean truck (no damage, intact seal, good reads) naming a booking that may or may not exist. */
  const truck = (gate: string, appointmentId = `apt-${run}-none-${n}`): GateReadingRecord => {
    n += 1;
    const base = reading();
    const r = reading({
      reading_id: `rd-${run}-${n}`, gate, lane: 'lane-1', captured_at: new Date().toISOString(),
      vehicle: { ...base.vehicle, plate: `OPT ${n}`, appointment_id: appointmentId },
      container: { ...base.container!, id: containerId(n) },
      inspection: { damage_regions: [], images: base.inspection!.images },
    });
    return { ...r, source: 'e2e', received_at: new Date().toISOString(), findings: findingsOf(r) };
  };

  /** Puts readings on gate.readings and waits for their transactions: status and appointment factor by reading id. */
  const decide = async (records: GateReadingRecord[]) => {
    await producer.send(records.map((r) => ({ topic: topics.gateReadings, key: r.gate, value: JSON.stringify(r) })));
    const ids = records.map((r) => r.reading_id);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { rows } = await service.context.pool.query<{ reading_id: string; status: string; appointment: number }>(
        `SELECT reading_id, status, (SELECT (f->>'score')::real FROM jsonb_array_elements(body->'risk_factors') f WHERE f->>'factor' = 'appointment') AS appointment
           FROM gate_transactions WHERE reading_id = ANY($1)`,
        [ids],
      );
      if (rows.length === ids.length || Date.now() > deadline) return new Map(rows.map((r) => [r.reading_id, { status: r.status, appointment: r.appointment }]));
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    await withAdmin((admin) => admin.ensureTopics(topicSpecs(prefix)));
    // The site's mode is the default (auto); one gate always requires a booking, one never does.
    service = await startService(testConfig({ PSS_TOPIC_PREFIX: prefix, PSS_GATE_APPOINTMENTS_BY_GATE: `strict-${run}=required,depot-${run}=optional` }), ['processors'], testLog, [gateFeature]);
  });
  afterAll(async () => {
    await producer.close();
    await service?.stop();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name))).catch(() => undefined);
  });

  it('approves a clean unbooked truck at a site that never sent a booking, except at a gate that requires one', async () => {
    const plain = truck(`gate-${run}`);
    const unnamed = truck(`gate-${run}`);
    delete unnamed.vehicle!.appointment_id;
    const strict = truck(`strict-${run}`);
    const decided = await decide([plain, unnamed, strict]);
    expect(decided.get(plain.reading_id)).toEqual({ status: 'approved', appointment: 0 });
    expect(decided.get(unnamed.reading_id)).toEqual({ status: 'approved', appointment: 0 });
    expect(decided.get(strict.reading_id)).toEqual({ status: 'flagged', appointment: 100 });
  });

  it('requires bookings once the site has received one, except at a gate where they are optional', async () => {
    const booked = truck(`gate-${run}`, `apt-${run}-booked`);
    const appointment = { appointment_id: `apt-${run}-booked`, plate: booked.vehicle!.plate!, carrier: booked.vehicle!.carrier, container_id: booked.container!.id!, iso_type: '22G1', seal_number: 'SL-778812', weight_declared_kg: 18_200 };
    await producer.send([{ topic: topics.gateAppointments, key: appointment.appointment_id, value: JSON.stringify(appointment) }]);
    const unbooked = truck(`gate-${run}`);
    const depot = truck(`depot-${run}`);
    const decided = await decide([booked, unbooked, depot]);
    expect(decided.get(booked.reading_id)).toEqual({ status: 'approved', appointment: 0 });
    expect(decided.get(unbooked.reading_id)).toEqual({ status: 'flagged', appointment: 100 });
    expect(decided.get(depot.reading_id)).toEqual({ status: 'approved', appointment: 0 });
  });
});
