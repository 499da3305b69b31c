// The demo's gate lane: a small sample of truck appointments and lane readings, sent through the ingest
// path (gate.appointments, then each reading validated into gate.readings) one truck every few seconds,
// looped with fresh ids, so a newcomer sees transactions and their decisions appear. Each truck shows one
// case: clean, a broken seal, an OCR mismatch with the booking, damage, a failed check digit, no booking.
import { setTimeout as sleep } from 'node:timers/promises';
import { processGateItem } from '../../ingest/gate/readings.ts';
import { ingestRuntime } from '../../ingest/runtime.ts';
import type { ServiceContext } from '../../platform/context.ts';
import type { GateAppointment } from '../../schemas/gate-appointment.ts';
import type { GateReading } from '../../schemas/gate-reading.ts';

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
      gate: 'gate-north',
      lane: `lane-${(i % 3) + 1}`,
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

/** Sends a truck every `everyMs` until aborted; the appointments of a loop go first. */
export function driveGateLane(ctx: ServiceContext, signal: AbortSignal, everyMs = 4_000): void {
  void (async () => {
    const rt = ingestRuntime(ctx);
    for (let loop = Math.floor(Date.now() / 1000); !signal.aborted; loop++) {
      const { appointments, readings } = gateLaneSample(loop, new Date());
      await rt.queue.add(appointments.map((a) => ({ topic: ctx.topics.gateAppointments, key: a.appointment_id, value: ctx.codec.encode('gateAppointments', a) })));
      // The terminal books ahead of arrival; give the processor a moment to store the bookings.
      await sleep(2_000, undefined, { signal }).catch(() => undefined);
      for (const reading of readings) {
        if (signal.aborted) break;
        const outcome = processGateItem({ ...reading, captured_at: new Date().toISOString() }, { topics: ctx.topics, codec: ctx.codec, source: 'demo-gate-lane', maxItemBytes: rt.config.ingestMaxItemBytes, now: Date.now });
        await rt.queue.add([outcome.record]);
        await sleep(everyMs, undefined, { signal }).catch(() => undefined);
      }
    }
  })().catch((err) => ctx.log.error({ err }, 'demo gate lane failed'));
}
