// Every Kafka topic of the service, declared once: name, key, partitions, retention and compaction, and
// what its values are (read and written only through platform/codec/). `ensureTopics` creates missing
// ones at start-up of every role and of the test harness.
import { nonVesselReportSchema, vesselPositionSchema, vesselStaticSchema, type NonVesselReport, type VesselPosition, type VesselStatic } from '../schemas/ais.ts';
import { deadLetterSchema, type DeadLetter } from '../schemas/dead-letter.ts';
import { securityEventSchema, type SecurityEvent } from '../schemas/event.ts';
import { gateReadingRecordSchema, type GateReadingRecord } from '../schemas/gate-reading.ts';
import { gateAppointmentSchema, type GateAppointment } from '../schemas/gate-appointment.ts';
import { gateCommandSchema, type GateCommand } from '../schemas/gate-transaction.ts';
import { droneCommandSchema, type DroneCommand } from '../schemas/drone.ts';

/**
 * A topic's values: JSON described by a JSON Schema (registered in schema-registry mode), or text exactly
 * as a producer outside the service wrote it, which the consumer validates itself. `binary` names a compact
 * form the codec may write instead of plain JSON (PSS_POSITION_FORMAT) and always reads.
 */
export type ValueFormat = { schema: object; binary?: 'position' } | { text: BufferEncoding };

export interface TopicSpec {
  name: string;
  key: string;
  partitions: number;
  config: Record<string, string>;
  description: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export const TOPICS = {
  aisRaw: {
    name: 'ais.raw',
    key: 'source',
    partitions: 6,
    config: { 'retention.ms': String(2 * DAY_MS) },
    description: 'Raw NMEA lines from producers outside the service; ingest decodes them.',
    // NMEA is ASCII; latin1 keeps any stray byte as one character for the AIS decoder to judge.
    value: { text: 'latin1' },
  },
  aisPositions: {
    name: 'ais.positions',
    key: 'mmsi',
    partitions: 6,
    config: { 'retention.ms': String(7 * DAY_MS) },
    description: 'Decoded, validated vessel position reports (types 1, 2, 3, 18, 19, 27).',
    value: { schema: vesselPositionSchema, binary: 'position' },
  },
  aisStatic: {
    name: 'ais.static',
    key: 'mmsi',
    partitions: 6,
    config: { 'cleanup.policy': 'compact', 'min.compaction.lag.ms': String(60 * 60 * 1000) },
    description: 'Latest static and voyage data per vessel (types 5, 19, 24); compacted.',
    value: { schema: vesselStaticSchema },
  },
  aisStations: {
    name: 'ais.stations',
    key: 'mmsi',
    partitions: 3,
    config: { 'cleanup.policy': 'compact' },
    description: 'Non-vessel reports: base stations (type 4) and aids to navigation (type 21); compacted.',
    value: { schema: nonVesselReportSchema },
  },
  gateReadings: {
    name: 'gate.readings',
    key: 'gate',
    partitions: 6,
    config: { 'retention.ms': String(30 * DAY_MS) },
    description: 'Validated gate lane sensor readings.',
    value: { schema: gateReadingRecordSchema },
  },
  gateReadingsRaw: {
    name: 'gate.readings.raw',
    key: 'gate',
    partitions: 6,
    config: { 'retention.ms': String(2 * DAY_MS) },
    description: 'Gate lane readings from producers outside the service, unvalidated; ingest validates them into gate.readings or the dead-letter topic.',
    value: { text: 'utf8' },
  },
  gateAppointments: {
    name: 'gate.appointments',
    key: 'appointment_id',
    partitions: 3,
    config: { 'cleanup.policy': 'compact' },
    description: 'Truck appointments from the terminal operating system (POST /v1/gate/appointments); compacted, the latest version of each appointment.',
    value: { schema: gateAppointmentSchema },
  },
  gateCommands: {
    name: 'gate.commands',
    key: 'gate',
    partitions: 6,
    config: { 'retention.ms': String(7 * DAY_MS) },
    description: 'Commands to gate lane controllers (open, hold, lock) for automated decisions, overrides and response actions, from the command outbox; controllers execute each command_id once.',
    value: { schema: gateCommandSchema },
  },
  droneCommands: {
    name: 'drone.commands',
    key: 'drone_id',
    partitions: 3,
    config: { 'retention.ms': String(7 * DAY_MS) },
    description: 'Commands to the drone fleet adapter (launch, update_target, abort, return_home) from the drone command outbox, in order per drone; the adapter executes each command_id once (docs/drones.md).',
    value: { schema: droneCommandSchema },
  },
  droneTelemetry: {
    name: 'drone.telemetry',
    key: 'drone_id',
    partitions: 3,
    config: { 'retention.ms': String(2 * DAY_MS) },
    description: 'Drone telemetry from the fleet adapter (position, altitude, battery, mode, link), unvalidated JSON; the drones role validates each record (bad ones to the dead-letter topic).',
    value: { text: 'utf8' },
  },
  droneReports: {
    name: 'drone.reports',
    key: 'drone_id',
    partitions: 3,
    config: { 'retention.ms': String(30 * DAY_MS) },
    description: 'Command acknowledgements, mission progress and evidence records from the fleet adapter, unvalidated JSON; the drones role validates each record (bad ones to the dead-letter topic).',
    value: { text: 'utf8' },
  },
  securityEvents: {
    name: 'security.events',
    key: 'event id',
    partitions: 6,
    config: { 'retention.ms': String(30 * DAY_MS) },
    description: 'Every security event, in the spec shape, with deterministic ids.',
    value: { schema: securityEventSchema },
  },
  deadLetter: {
    name: 'ingest.deadletter',
    key: 'source',
    partitions: 3,
    config: { 'retention.ms': String(30 * DAY_MS) },
    description: 'Rejected input with the raw message, source, reason and time.',
    value: { schema: deadLetterSchema },
  },
} as const satisfies Record<string, TopicSpec & { value: ValueFormat }>;

export type TopicId = keyof typeof TOPICS;

/** Each topic's value type: the type schemas/ derives from the schema declared above, or text. */
type TopicValues = {
  aisRaw: string;
  aisPositions: VesselPosition;
  aisStatic: VesselStatic;
  aisStations: NonVesselReport;
  gateReadings: GateReadingRecord;
  gateReadingsRaw: string;
  gateAppointments: GateAppointment;
  gateCommands: GateCommand;
  droneCommands: DroneCommand;
  droneTelemetry: string;
  droneReports: string;
  securityEvents: SecurityEvent;
  deadLetter: DeadLetter;
};

export type TopicValue<T extends TopicId> = TopicValues[T];

/** Topic names as deployed: the configured prefix lets tests and tenants share one broker. */
export function topicNames(prefix: string): Record<TopicId, string> {
  const out = {} as Record<TopicId, string>;
  for (const [id, spec] of Object.entries(TOPICS) as [TopicId, TopicSpec][]) out[id] = prefix + spec.name;
  return out;
}

/** The topics as deployed; `partitions` (PSS_TOPIC_PARTITIONS, by unprefixed name) replaces declared counts. */
export function topicSpecs(prefix: string, partitions: Record<string, number> = {}): TopicSpec[] {
  return Object.values(TOPICS).map((spec) => ({ ...spec, name: prefix + spec.name, partitions: partitions[spec.name] ?? spec.partitions }));
}
