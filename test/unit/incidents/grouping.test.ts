import { describe, expect, it } from 'vitest';
import { entitiesOf, groupingOf, lookupsOf, normalizeId, type VesselLinks } from '../../../incidents/grouping.ts';
import type { SecurityEvent } from '../../../schemas/event.ts';

const event = (over: Partial<SecurityEvent> & { metadata?: Record<string, unknown> }): SecurityEvent => ({
  id: 'evt_00000000000000000000000000000001',
  type: 'zone_entry',
  timestamp: '2026-11-21T07:00:00.000Z',
  category: 'maritime',
  severity: 'high',
  source_module: 'maritime.zones',
  source_device: '',
  title: 't',
  description: '',
  location: {},
  metadata: {},
  requires_action: true,
  assigned_to: '',
  incident_id: null,
  ...over,
});

const MMSI = 219592000;
const IMO = 9074729; // a real IMO number (check digit 9)
const gateEvent = (metadata: Record<string, unknown>) => event({ type: 'seal_violation', category: 'gate', source_module: 'gate', source_device: 'G1/L2', metadata });

describe('groupingOf: the key is the first entity the event names, in order vessel, container, plate, gate, zone, device', () => {
  const rows: [string, SecurityEvent, VesselLinks, string, RegExp][] = [
    ['a maritime event by its MMSI', event({ location: { zone: 'Holmen' }, metadata: { mmsi: MMSI, zone_id: 'zone_1' } }), {}, `vessel:${MMSI}`, /^vessel MMSI 219592000 \(metadata\.mmsi\)$/],
    ['an MMSI written as digits', event({ metadata: { mmsi: String(MMSI) } }), {}, `vessel:${MMSI}`, /metadata\.mmsi/],
    ['an encounter by its first vessel', event({ type: 'encounter', metadata: { mmsi: MMSI, other_mmsi: 219000002 } }), {}, `vessel:${MMSI}`, /metadata\.mmsi/],
    // The AIS x gate fusion: the gate event carries its booking's vessel, or the store finds it by container.
    ['a gate event whose booking names the vessel', gateEvent({ gate: 'G1', container_id: 'MSCU1234565', vehicle_plate: 'AB123CD', vessel_mmsi: MMSI, appointment_id: 'apt-7' }), {}, `vessel:${MMSI}`,
      /^vessel MMSI 219592000: container MSCU1234565 is booked on it \(metadata\.vessel_mmsi of appointment apt-7\)$/],
    ['a gate event whose container is booked on the vessel', gateEvent({ gate: 'G1', container_id: 'mscu 123456-5' }), { booking: { appointmentId: 'apt-9', mmsi: MMSI } }, `vessel:${MMSI}`,
      /container MSCU1234565 is booked on it \(appointment apt-9\)/],
    ['a booking naming the IMO of a vessel whose MMSI is known', gateEvent({ container_id: 'MSCU1234565' }), { booking: { appointmentId: 'apt-3', imo: IMO }, mmsiOfImo: MMSI }, `vessel:${MMSI}`,
      /booked on IMO 9074729 \(appointment apt-3\); MMSI from the vessel's static data/],
    ['a booking naming an IMO nobody knows the MMSI of', gateEvent({ container_id: 'MSCU1234565' }), { booking: { appointmentId: 'apt-3', imo: IMO } }, `vessel_imo:${IMO}`, /no MMSI known/],
    ['a container without a booked vessel', gateEvent({ gate: 'G1', container_id: 'MSCU1234565', vehicle_plate: 'AB123CD' }), {}, 'container:MSCU1234565', /^container MSCU1234565/],
    ['a truck without a container', gateEvent({ gate: 'G1', container_id: null, vehicle_plate: 'ab-123 cd' }), {}, 'plate:AB123CD', /vehicle plate AB123CD/],
    ['a gate event naming only its gate', gateEvent({ gate: 'G1' }), {}, 'gate:G1', /^gate G1/],
    ['a perimeter event by its zone name, case-insensitively', event({ type: 'perimeter_breach', category: 'perimeter', location: { zone: 'North Fence' }, source_device: 'cam-3' }), {}, 'zone:north fence', /^zone North Fence/],
    ['a zone known by id only', event({ metadata: { zone_id: 'zone_9' } }), {}, 'zone:zone_9', /zone id zone_9/],
    ['a camera going offline again and again', event({ type: 'camera_offline', category: 'perimeter', source_module: 'perimeter.cams', source_device: 'cam-12' }), {}, 'device:perimeter.cams/cam-12', /device/],
    ['an event naming nothing', event({ metadata: { mmsi: 'not a number', container_id: '' } }), {}, 'event:evt_00000000000000000000000000000001', /an incident of its own/],
  ];
  it.each(rows)('%s', (_name, e, links, key, reason) => {
    const g = groupingOf(e, links);
    expect(g.key).toBe(key);
    expect(g.reason).toMatch(reason);
  });

  it('puts every entity of the event in the subject, the vessel found through links included', () => {
    const g = groupingOf(gateEvent({ gate: 'G1', container_id: 'MSCU 1234565', vehicle_plate: 'AB123CD' }), { booking: { appointmentId: 'apt-9', mmsi: MMSI } });
    expect(g.subject).toEqual({ mmsi: MMSI, zone: null, zone_id: null, gate_id: 'G1', container_id: 'MSCU1234565', plate: 'AB123CD' });
    const zone = groupingOf(event({ location: { zone: 'Holmen' }, metadata: { mmsi: MMSI, zone_id: 'zone_1', zone_name: 'Holmen old name' } }));
    expect(zone.subject).toMatchObject({ zone: 'Holmen', zone_id: 'zone_1' });
  });

  it('gives an AIS gap of a vessel and a seal violation on a container booked for it one key', () => {
    const gap = event({ type: 'ais_gap', metadata: { mmsi: MMSI, gap_seconds: 900 } });
    const seal = gateEvent({ gate: 'G1', container_id: 'MSCU1234565' });
    expect(groupingOf(seal, { booking: { appointmentId: 'apt-1', mmsi: MMSI } }).key).toBe(groupingOf(gap).key);
    expect(groupingOf(seal).key).not.toBe(groupingOf(gap).key);
  });

  it('is deterministic: the same event and links give the same key and reason', () => {
    const e = gateEvent({ container_id: 'MSCU1234565' });
    expect(groupingOf(e, { booking: { appointmentId: 'a', mmsi: MMSI } })).toEqual(groupingOf(structuredClone(e), { booking: { appointmentId: 'a', mmsi: MMSI } }));
  });
});

describe('lookupsOf: what the store looks up', () => {
  it('looks nothing up for an event naming its vessel, the booking of a container otherwise, and the MMSI of an IMO', () => {
    expect(lookupsOf(entitiesOf(event({ metadata: { mmsi: MMSI, container_id: 'X' } })))).toEqual({});
    expect(lookupsOf(entitiesOf(gateEvent({ container_id: 'mscu1234565' })))).toEqual({ bookingOfContainer: 'MSCU1234565', imo: undefined });
    expect(lookupsOf(entitiesOf(gateEvent({ vessel_imo: IMO })))).toEqual({ bookingOfContainer: undefined, imo: IMO });
  });

  it('normalizes ids as the gate compares them: upper case, without spaces, dots and dashes', () => {
    expect(normalizeId(' ms.cu-123 4565 ')).toBe('MSCU1234565');
  });
});
