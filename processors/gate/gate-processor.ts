// The gate processor: two consumer groups on the processors role.
//   gate-appointments: reads the compacted gate.appointments topic into gate_appointments (a tombstone
//     deletes), so the decision can look a reading's appointment up by id.
//   gate-transactions: on gate.readings (key gate). Per batch: wait (bounded) until gate-appointments has
//     stored every booking on its topic (appointments-watch.ts), look the appointments up, score and decide
//     each reading (pure: transaction.ts), and store the new transactions, their first audit entry (the
//     system decision and its rule), their events and their gate commands (commands.ts, to the command
//     outbox) in one Postgres transaction; then wake the relay and let the consumer commit. A reading_id
//     already stored (a replay after a crash, a retried ingest) is skipped by the insert, so it yields no
//     second transaction, audit entry, event or command.
import type { RunningRole, ServiceContext } from '../../platform/context.ts';
import { KafkaConsumer, type InRecord } from '../../platform/kafka/index.ts';
import { counter, histogram } from '../../platform/metrics.ts';
import { inTransaction } from '../../platform/postgres.ts';
import { storeEvents } from '../../events/store.ts';
import type { GateAppointment } from '../../schemas/gate-appointment.ts';
import type { GateReadingRecord } from '../../schemas/gate-reading.ts';
import { TRANSACTION_STATUSES } from '../../schemas/gate-transaction.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import type { AuditEntry } from './audit-chain.ts';
import { bookingRequired } from './appointment-policy.ts';
import { enqueueGateCommands } from './command-outbox.ts';
import { decisionCommand } from './commands.ts';
import { thresholdProblems } from './decision.ts';
import { transactionEvents } from './gate-events.ts';
import { AppointmentsWatch } from './appointments-watch.ts';
import { appendAudit, deleteAppointments, insertTransactions, loadAppointments, upsertAppointments } from './store.ts';
import { buildTransaction, type DecideOptions, type NewTransaction } from './transaction.ts';
import type { Config } from '../../platform/config.ts';

const readingsDecided = counter('pss_gate_transactions_total', 'Gate transactions created, by status', ['status'], { status: TRANSACTION_STATUSES.filter((s) => s !== 'overridden') });
const duplicates = counter('pss_gate_duplicate_readings_total', 'Gate readings skipped because their reading_id already has a transaction');
const unreadable = counter('pss_gate_unreadable_total', 'Records on gate.readings or gate.appointments that could not be read and were skipped', ['topic']);
const appointmentsLate = counter('pss_gate_appointments_wait_exceeded_total', 'Reading batches decided before the appointments group had stored every booking on gate.appointments (waited the bound, or the broker could not say)');
const decisionSeconds = histogram('pss_gate_decision_seconds', 'Time from ingest receiving a reading to its stored decision', [], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]);

export const SYSTEM_ACTOR = 'system:gate-processor';

/** At start: how long the readings wait for the bookings already on gate.appointments to be stored. */
const APPOINTMENTS_START_WAIT_MS = 30_000;
/** Per batch: how long a batch of readings waits for bookings put on the topic before it was fetched. */
const APPOINTMENTS_BATCH_WAIT_MS = 2_000;

export function decideOptions(config: Config): DecideOptions {
  const thresholds = { manualReviewAt: config.gateManualReviewAt, rejectAt: config.gateRejectAt };
  const problems = thresholdProblems(thresholds);
  if (problems.length > 0) throw new Error(problems.join('; '));
  return {
    thresholds,
    risk: { minOcrConfidence: config.gateMinOcrConfidence, minSealConfidence: config.gateMinSealConfidence, weightTolerancePercent: config.gateWeightTolerancePercent, weightToleranceKg: config.gateWeightToleranceKg },
    appointments: { site: config.gateAppointments, byGate: config.gateAppointmentsByGate },
  };
}

/** The first audit entry of a transaction: the system's decision and the rule that made it. */
export function decisionAudit(tx: NewTransaction): AuditEntry {
  return {
    transactionId: tx.id,
    action: 'system_decision',
    at: tx.createdAt,
    actor: SYSTEM_ACTOR,
    details: { status: tx.status, decision: tx.decision, risk_score: tx.riskScore, hold_reasons: tx.verdict.holdReasons, reading_id: tx.readingId },
    rule: tx.verdict.rule,
  };
}

/**
 * Decides and stores one batch of readings; returns the transactions that were new. `bookingsSeen`: the
 * site has ever received a booking (undefined: not known), for gates whose appointments mode is auto.
 */
export async function processReadings(ctx: Pick<ServiceContext, 'pool' | 'relay'>, readings: GateReadingRecord[], options: DecideOptions, bookingsSeen: boolean | undefined, now: () => number = Date.now): Promise<NewTransaction[]> {
  const unique = new Map<string, GateReadingRecord>();
  let skipped = 0;
  for (const r of readings) {
    // Postgres cannot store NUL or a lone surrogate in jsonb; such a reading would fail its whole batch
    // forever and block the partition. The raw-topic path lets them through validation, so skip it here.
    if (!storable(r)) {
      unreadable.inc({ topic: 'gate.readings' });
      skipped += 1;
      continue;
    }
    if (!unique.has(r.reading_id)) unique.set(r.reading_id, r);
  }
  const ids = [...new Set([...unique.values()].map((r) => r.vehicle?.appointment_id).filter((id): id is string => id !== undefined))];
  const appointments = await loadAppointments(ctx.pool, ids);
  const txs = [...unique.values()].map((r) => {
    const appointment = r.vehicle?.appointment_id === undefined ? undefined : appointments.get(r.vehicle.appointment_id);
    return buildTransaction(r, { appointment, required: bookingRequired(options.appointments, r.gate, bookingsSeen) }, options, now());
  });
  const { fresh, events } = await inTransaction(ctx.pool, async (client) => {
    const inserted = await insertTransactions(client, txs);
    const fresh = txs.filter((t) => inserted.has(t.id));
    const events: SecurityEvent[] = await storeEvents(client, fresh.flatMap(transactionEvents));
    await enqueueGateCommands(client, fresh.map((t) => decisionCommand(t, SYSTEM_ACTOR)));
    // Last: the chain's lock is held from here to the commit, so concurrent batches wait the least.
    await appendAudit(client, fresh.map(decisionAudit));
    return { fresh, events };
  });
  if (events.length > 0) ctx.relay.wake();
  duplicates.inc(txs.length - fresh.length + (readings.length - skipped - unique.size));
  for (const t of fresh) {
    readingsDecided.inc({ status: t.status });
    decisionSeconds.observe(t.body.processing_time_ms / 1000);
  }
  return fresh;
}

export async function startGateProcessor(ctx: ServiceContext): Promise<RunningRole> {
  const log = ctx.log.child({ role: 'gate' });
  const options = decideOptions(ctx.config);

  const appointmentsGroup = `${ctx.config.topicPrefix}gate-appointments`;
  const appointmentsConsumer = new KafkaConsumer(ctx.kafka, { groupId: appointmentsGroup, topics: [ctx.topics.gateAppointments], startAt: 'earliest', maxBatch: 5_000 });
  await appointmentsConsumer.run(async (records) => {
    const tombstones = records.filter((r) => r.value === undefined || r.value.length === 0);
    const { values, failures } = await ctx.codec.decode('gateAppointments', records.filter((r) => r.value !== undefined && r.value.length > 0));
    skipUnreadable('gate.appointments', failures.map((f) => ({ record: f.record, reason: f.error.message })));
    const good: GateAppointment[] = [];
    for (const { record, value } of values) {
      if (isAppointment(value) && storable(value)) good.push(value);
      else skipUnreadable('gate.appointments', [{ record, reason: 'not a storable appointment (appointment_id, plate and container_id are required strings; no NUL or lone surrogate)' }]);
    }
    await upsertAppointments(ctx.pool, good);
    await deleteAppointments(ctx.pool, tombstones.map((r) => r.key).filter((k): k is string => k !== undefined));
  });

  // A booking on the topic before a reading is stored before that reading is decided (appointments-watch.ts).
  const watch = new AppointmentsWatch(ctx.kafka, appointmentsGroup, ctx.topics.gateAppointments, log);
  const appointmentsStored = async (boundMs: number) => {
    if (await watch.readUpToNow(boundMs)) return;
    appointmentsLate.inc();
    log.warn({ waited_ms: boundMs }, 'gate.appointments not stored up to its end yet; deciding readings without waiting longer');
  };
  await appointmentsStored(APPOINTMENTS_START_WAIT_MS);

  // Several members of the group in one instance: while one batch waits on Postgres, another is decided.
  const readingsConsumers = Array.from({ length: ctx.config.gateProcessorConsumers }, () =>
    new KafkaConsumer(ctx.kafka, { groupId: `${ctx.config.topicPrefix}gate-transactions`, topics: [ctx.topics.gateReadings], maxBatch: 5_000 }));
  await Promise.all(readingsConsumers.map((consumer) => consumer.run(async (records) => {
    const { values, failures } = await ctx.codec.decode('gateReadings', records);
    skipUnreadable('gate.readings', failures.map((f) => ({ record: f.record, reason: f.error.message })));
    await appointmentsStored(APPOINTMENTS_BATCH_WAIT_MS);
    await processReadings(ctx, values.map((v) => v.value), options, watch.bookingsSeen);
  })));

  return {
    name: 'gate',
    stop: async () => {
      await Promise.all(readingsConsumers.map((consumer) => consumer.stop()));
      await appointmentsConsumer.stop();
      await watch.close();
    },
  };

  function skipUnreadable(topic: string, items: { record: InRecord; reason: string }[]): void {
    for (const { record, reason } of items) {
      // Ingest validated what it wrote; this is another producer's mistake and cannot block the partition.
      unreadable.inc({ topic });
      log.warn({ topic: record.topic, partition: record.partition, offset: String(record.offset), reason }, 'unreadable gate record skipped');
    }
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether every string (and key) of a value can be stored in jsonb. */
export function storable(value: unknown): boolean {
  if (typeof value === 'string') return !value.includes('\u0000') && !LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.every(storable);
  if (typeof value === 'object' && value !== null) return Object.entries(value).every(([k, v]) => storable(k) && storable(v));
  return true;
}

/** Another producer may write the topic directly: the fields the decision relies on must be there. */
function isAppointment(v: unknown): v is GateAppointment {
  const a = v as Partial<Record<string, unknown>> | null;
  return typeof a === 'object' && a !== null && typeof a.appointment_id === 'string' && typeof a.plate === 'string' && typeof a.container_id === 'string';
}
