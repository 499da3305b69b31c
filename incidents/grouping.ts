// Which incident an event belongs to, by the port's own entities (issue 23, item 5; docs/response.md "Incidents").
// Pure: the store (incidents/store.ts) looks up what the event itself does not say (the vessel a
// container is booked on, the MMSI of a vessel known by IMO) and passes it in as `links`.
//
// The key is the first of these the event names, in this order (the most specific thing at stake first):
//   1. vessel:<mmsi>      metadata.mmsi (maritime events); metadata.vessel_mmsi (a gate event whose booking
//                         names the ship); the booking of its container; an IMO whose MMSI is known. This
//                         is the AIS x gate fusion: an ais_gap of a vessel and a seal_violation on a
//                         container booked for it share the key.
//   2. vessel_imo:<imo>   a vessel known by IMO only (no MMSI found for it yet)
//   3. container:<id>     metadata.container_id, upper case without spaces, dashes and dots
//   4. plate:<plate>      metadata.vehicle_plate or metadata.plate, normalized the same way
//   5. gate:<id>          metadata.gate or metadata.gate_id
//   6. zone:<name>        location.zone or metadata.zone_name (lower case), else metadata.zone_id
//   7. device:<module>/<device>  the sensor that reported it (a camera's repeated camera_offline)
//   8. event:<id>         nothing to group on: the event is an incident of its own
import type { SecurityEvent } from '../schemas/event.ts';

/** What the store found about the vessel of an event that does not name one itself. */
export interface VesselLinks {
  /** The newest booking of the event's container that names a vessel. */
  booking?: { appointmentId: string; mmsi?: number; imo?: number };
  /** The MMSI the vessels' static data gives the IMO of the event or of its booking. */
  mmsiOfImo?: number;
}

/** The entities an event names, normalized as keys compare them. */
export interface Entities {
  mmsi?: number;
  /** Where the MMSI was read. */
  mmsiField?: 'metadata.mmsi' | 'metadata.vessel_mmsi';
  imo?: number;
  appointmentId?: string;
  container?: string;
  plate?: string;
  gate?: string;
  zone?: string;
  zoneId?: string;
  device?: string;
}

/** The incident's subject columns (the list filters on them). */
export interface Subject {
  mmsi: number | null;
  zone: string | null;
  zone_id: string | null;
  gate_id: string | null;
  container_id: string | null;
  plate: string | null;
}

export interface Grouping {
  key: string;
  reason: string;
  subject: Subject;
}

/** Container ids and plates as OCR and bookings write them differ in case and separators only. */
export function normalizeId(text: string): string {
  return text.toUpperCase().replace(/[\s.-]/g, '');
}

const MAX_MMSI = 1073741823;

/** An MMSI or IMO as metadata or a booking may carry it (a number, or digits); undefined for anything else. */
export function vesselNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d{1,10}$/.test(value.trim()) ? Number(value.trim()) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= MAX_MMSI ? n : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

export function entitiesOf(event: SecurityEvent): Entities {
  const m = event.metadata as Record<string, unknown>;
  const own = vesselNumber(m.mmsi);
  const booked = vesselNumber(m.vessel_mmsi);
  const container = text(m.container_id);
  const plate = text(m.vehicle_plate) ?? text(m.plate);
  const zone = text(event.location.zone) ?? text(m.zone_name);
  return {
    mmsi: own ?? booked,
    mmsiField: own !== undefined ? 'metadata.mmsi' : booked !== undefined ? 'metadata.vessel_mmsi' : undefined,
    imo: vesselNumber(m.vessel_imo) ?? vesselNumber(m.imo),
    appointmentId: text(m.appointment_id),
    container: container === undefined ? undefined : normalizeId(container),
    plate: plate === undefined ? undefined : normalizeId(plate),
    gate: text(m.gate) ?? text(m.gate_id),
    zone: zone?.toLowerCase(),
    zoneId: text(m.zone_id),
    device: text(event.source_device) === undefined ? undefined : `${event.source_module}/${event.source_device.trim()}`,
  };
}

/** What the store should look up for an event: the booking of its container, the MMSI of an IMO. */
export function lookupsOf(e: Entities): { bookingOfContainer?: string; imo?: number } {
  if (e.mmsi !== undefined) return {};
  return { bookingOfContainer: e.container, imo: e.imo };
}

interface Vessel {
  mmsi?: number;
  imo?: number;
  why: string;
}

function vesselOf(e: Entities, links: VesselLinks): Vessel | undefined {
  const booked = e.appointmentId === undefined ? '' : ` of appointment ${e.appointmentId}`;
  if (e.mmsi !== undefined && e.mmsiField === 'metadata.mmsi') return { mmsi: e.mmsi, why: `vessel MMSI ${e.mmsi} (metadata.mmsi)` };
  if (e.mmsi !== undefined) {
    return { mmsi: e.mmsi, why: `vessel MMSI ${e.mmsi}: ${e.container === undefined ? 'the booking' : `container ${e.container} is booked on it`} (metadata.vessel_mmsi${booked})` };
  }
  const { booking, mmsiOfImo } = links;
  if (booking?.mmsi !== undefined) {
    return { mmsi: booking.mmsi, why: `vessel MMSI ${booking.mmsi}: container ${e.container} is booked on it (appointment ${booking.appointmentId})` };
  }
  const imo = e.imo ?? booking?.imo;
  if (imo === undefined) return undefined;
  const via = e.imo !== undefined ? `IMO ${imo} (metadata.vessel_imo${booked})` : `container ${e.container} is booked on IMO ${imo} (appointment ${booking?.appointmentId})`;
  if (mmsiOfImo !== undefined) return { mmsi: mmsiOfImo, imo, why: `vessel MMSI ${mmsiOfImo}: ${via}; MMSI from the vessel's static data` };
  return { imo, why: `vessel IMO ${imo}: ${via}; no MMSI known for it` };
}

/** The key, its reason and the subject of an event (the header comment gives the order). */
export function groupingOf(event: SecurityEvent, links: VesselLinks = {}): Grouping {
  const e = entitiesOf(event);
  const vessel = vesselOf(e, links);
  const subject: Subject = {
    mmsi: vessel?.mmsi ?? null,
    zone: text(event.location.zone) ?? text((event.metadata as Record<string, unknown>).zone_name) ?? null,
    zone_id: e.zoneId ?? null,
    gate_id: e.gate ?? null,
    container_id: e.container ?? null,
    plate: e.plate ?? null,
  };
  const by = (key: string, reason: string): Grouping => ({ key, reason, subject });
  if (vessel?.mmsi !== undefined) return by(`vessel:${vessel.mmsi}`, vessel.why);
  if (vessel?.imo !== undefined) return by(`vessel_imo:${vessel.imo}`, vessel.why);
  if (e.container !== undefined) return by(`container:${e.container}`, `container ${e.container} (metadata.container_id)`);
  if (e.plate !== undefined) return by(`plate:${e.plate}`, `vehicle plate ${e.plate} (metadata)`);
  if (e.gate !== undefined) return by(`gate:${e.gate}`, `gate ${e.gate} (metadata)`);
  if (e.zone !== undefined) return by(`zone:${e.zone}`, `zone ${subject.zone} (named by the event; no vessel, container, plate or gate)`);
  if (e.zoneId !== undefined) return by(`zone:${e.zoneId}`, `zone id ${e.zoneId} (metadata.zone_id; no vessel, container, plate or gate)`);
  if (e.device !== undefined) return by(`device:${e.device}`, `device ${e.device} (no vessel, container, plate, gate or zone)`);
  return by(`event:${event.id}`, 'the event names no vessel, container, plate, gate, zone or device: an incident of its own');
}
