// The demo's gate lane: a small sample of truck appointments and lane readings, sent through the ingest
// path (gate.appointments, then each reading validated into gate.readings) one truck every few seconds,
// looped with fresh ids, so a newcomer sees transactions and their decisions appear. Each truck shows one
// case: clean, a broken seal, an OCR mismatch with the booking, damage, a failed check digit, no booking.
// It is also the gate's lane controller: it follows gate.commands and sends no truck through a locked
// lane (lane-locks.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { processGateItem } from '../../ingest/gate/readings.ts';
import { ingestRuntime } from '../../ingest/runtime.ts';
import type { ServiceContext } from '../../platform/context.ts';
import { KafkaConsumer } from '../../platform/kafka/index.ts';
import type { GateAppointment } from '../../schemas/gate-appointment.ts';
import type { GateReading } from '../../schemas/gate-reading.ts';
import { LaneLocks, type LockTaken } from './lane-locks.ts';

export const DEMO_GATE = 'gate-north';
export const DEMO_LANES: readonly string[] = ['lane-1', 'lane-2', 'lane-3'];

interface Truck {
  plate: string;
  carrier: string;
  container: string;
  /** What the lane reads, when it differs from the booking. */
  read?: Partial<{ container: string; seal: string; damage: 'low' | 'medium' | 'high'; estimated: number }>;
  booked: boolean;
}

const SEAL = (n: number) => `DK${String(4_418_000 + n)}`;
const TRUCKS: Truck[] = [
  { plate: 'CX 41 822', carrier: 'Nordic Haulage', container: 'MSCU6639870', booked: true },
  { plate: 'BP 19 304', carrier: 'Baltic Trucking', container: 'MAEU8112730', booked: true, read: { seal: 'broken' } },
  { plate: 'AK 77 190', carrier: 'Øresund Logistics', container: 'CSQU3054383', booked: true, read: { container: 'TGHU9994210' } },
  { plate: 'DR 50 615', carrier: 'Nordic Haulage', container: 'HLXU1234561', booked: true, read: { damage: 'high' } },
  { plate: 'EL 33 047', carrier: 'Baltic Trucking', container: 'MSCU6639870', booked: true, read: { container: 'MSCU6639871' } },
  { plate: 'FN 62 558', carrier: 'Øresund Logistics', container: 'MAEU8112730', booked: false },
  { plate: 'GT 18 775', carrier: 'Nordic Haulage', container: 'HLXU1234561', booked: true, read: { estimated: 24_900 } },
];

export function gateLaneSample(loop: number, now: Date): { appointments: GateAppointment[]; readings: GateReading[] } {
  const appointments: GateAppointment[] = [];
  const readings: GateReading[] = [];
  TRUCKS.forEach((t, i) => {
    const appointmentId = `demo-apt-${loop}-${i}`;
    if (t.booked) appointments.push({ appointment_id: appointmentId, plate: t.plate, carrier: t.carrier, container_id: t.container, iso_type: '45G1', seal_number: SEAL(i), weight_declared_kg: 21_400 });
    const at = now.toISOString();
    readings.push({
      reading_id: `demo-${loop}-${i}`,
      gate: DEMO_GATE,
      lane: DEMO_LANES[i % DEMO_LANES.length]!,
      captured_at: at,
      vehicle: { plate: t.plate, plate_confidence: 0.96, plate_image_url: `https://cams.demo.local/plate/${loop}-${i}.jpg`, type: 'truck', carrier: t.carrier, driver_id: `drv-${100 + i}`, appointment_id: appointmentId },
      container: {
        id: t.read?.container ?? t.container, ocr_confidence: 0.94, ocr_image_url: `https://cams.demo.local/ocr/${loop}-${i}.jpg`, iso_type: '45G1', size: '40ft',
        weight_declared_kg: 21_400, weight_estimated_kg: t.read?.estimated ?? 21_650,
        seal: { number: SEAL(i), status: t.read?.seal ?? 'intact', confidence: 0.91, seal_image_url: `https://cams.demo.local/seal/${loop}-${i}.jpg` },
      },
      inspection: {
        damage_regions: t.read?.damage ? [{ type: 'hole', area: 'left_side', severity: t.read.damage, confidence: 0.88 }] : [],
        images: [{ type: 'front', url: `https://cams.demo.local/front/${loop}-${i}.jpg`, captured_at: at }],
      },
    });
  });
  return { appointments, readings };
}

export interface GateLaneOptions {
  /** One truck every this many ms (default 4 s). */
  everyMs?: number;
  /** How long before its trucks a loop's bookings are sent, so the processor has them (default 2 s). */
  bookingLeadMs?: number;
  /** A lock obeyed (the demo prints it). */
  onLock?: (lock: LockTaken) => void;
  /** A truck's reading sent, on the lane it took. */
  onSent?: (reading: { reading_id: string; lane: string }) => void;
  /** A truck turned away: every lane of the gate is locked. */
  onTurnedAway?: (truck: { reading_id: string; plate: string }) => void;
}

export interface RunningGateLane {
  locks: LaneLocks;
  stop(): Promise<void>;
}

type LaneContext = Pick<ServiceContext, 'config' | 'log' | 'producer' | 'topics' | 'codec' | 'kafka'>;

/**
 * Starts following gate.commands, then sends a truck every `everyMs` until stopped; the bookings of a loop
 * go first. A truck due at a locked lane takes the next open one, and is turned away when all are locked
 * (and a loop finding the whole gate locked books nothing).
 */
export async function startGateLane(ctx: LaneContext, opts: GateLaneOptions = {}): Promise<RunningGateLane> {
  const everyMs = opts.everyMs ?? 4_000;
  const locks = new LaneLocks(DEMO_GATE, Date.now());
  // A group of its own from the topic's start: a lock written while this lane was starting is not missed
  // (LaneLocks leaves those issued before it started); nothing is committed, the locks live in this process.
  const commands = new KafkaConsumer(ctx.kafka, { groupId: `${ctx.config.topicPrefix}demo-gate-lane-${process.pid}-${Date.now()}`, topics: [ctx.topics.gateCommands], startAt: 'earliest', commitOffsets: false, lingerMs: 0 });
  await commands.run(async (records) => {
    const { values } = await ctx.codec.decode('gateCommands', records);
    for (const { value } of values) {
      const taken = locks.apply(value);
      if (taken !== undefined) opts.onLock?.(taken);
    }
  });
  const stopping = new AbortController();
  const signal = stopping.signal;
  const rt = ingestRuntime(ctx);
  const trucks = (async () => {
    for (let loop = Math.floor(Date.now() / 1000); !signal.aborted; loop++) {
      const { appointments, readings } = gateLaneSample(loop, new Date());
      if (!locks.allLocked(DEMO_LANES)) {
        await rt.queue.add(appointments.map((a) => ({ topic: ctx.topics.gateAppointments, key: a.appointment_id, value: ctx.codec.encode('gateAppointments', a) })));
        // The terminal books ahead of arrival; give the processor a moment to store the bookings.
        await sleep(opts.bookingLeadMs ?? 2_000, undefined, { signal }).catch(() => undefined);
      }
      for (const reading of readings) {
        if (signal.aborted) break;
        const lane = locks.route(reading.lane, DEMO_LANES);
        if (lane === undefined) {
          opts.onTurnedAway?.({ reading_id: reading.reading_id, plate: reading.vehicle?.plate ?? '-' });
        } else {
          const outcome = processGateItem({ ...reading, lane, captured_at: new Date().toISOString() }, { topics: ctx.topics, codec: ctx.codec, source: 'demo-gate-lane', maxItemBytes: rt.config.ingestMaxItemBytes, now: Date.now });
          await rt.queue.add([outcome.record]);
          opts.onSent?.({ reading_id: reading.reading_id, lane });
        }
        await sleep(everyMs, undefined, { signal }).catch(() => undefined);
      }
    }
  })().catch((err: unknown) => ctx.log.error({ err }, 'demo gate lane failed'));
  return {
    locks,
    stop: async () => {
      stopping.abort();
      await trucks;
      await commands.stop();
    },
  };
}
