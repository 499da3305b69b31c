// Every Kafka topic of the service, declared once: name, key, partitions, retention and compaction.
// `ensureTopics` creates missing ones at start-up of every role and of the test harness.

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
  },
  aisPositions: {
    name: 'ais.positions',
    key: 'mmsi',
    partitions: 6,
    config: { 'retention.ms': String(7 * DAY_MS) },
    description: 'Decoded, validated vessel position reports (types 1, 2, 3, 18, 19, 27).',
  },
  aisStatic: {
    name: 'ais.static',
    key: 'mmsi',
    partitions: 6,
    config: { 'cleanup.policy': 'compact', 'min.compaction.lag.ms': String(60 * 60 * 1000) },
    description: 'Latest static and voyage data per vessel (types 5, 19, 24); compacted.',
  },
  aisStations: {
    name: 'ais.stations',
    key: 'mmsi',
    partitions: 3,
    config: { 'cleanup.policy': 'compact' },
    description: 'Non-vessel reports: base stations (type 4) and aids to navigation (type 21); compacted.',
  },
  gateReadings: {
    name: 'gate.readings',
    key: 'gate',
    partitions: 6,
    config: { 'retention.ms': String(30 * DAY_MS) },
    description: 'Validated gate lane sensor readings.',
  },
  gateReadingsRaw: {
    name: 'gate.readings.raw',
    key: 'gate',
    partitions: 6,
    config: { 'retention.ms': String(2 * DAY_MS) },
    description: 'Gate lane readings from producers outside the service, unvalidated; ingest validates them into gate.readings or the dead-letter topic.',
  },
  securityEvents: {
    name: 'security.events',
    key: 'event id',
    partitions: 6,
    config: { 'retention.ms': String(30 * DAY_MS) },
    description: 'Every security event, in the spec shape, with deterministic ids.',
  },
  deadLetter: {
    name: 'ingest.deadletter',
    key: 'source',
    partitions: 3,
    config: { 'retention.ms': String(30 * DAY_MS) },
    description: 'Rejected input with the raw message, source, reason and time.',
  },
} as const satisfies Record<string, TopicSpec>;

export type TopicId = keyof typeof TOPICS;

/** Topic names as deployed: the configured prefix lets tests and tenants share one broker. */
export function topicNames(prefix: string): Record<TopicId, string> {
  const out = {} as Record<TopicId, string>;
  for (const [id, spec] of Object.entries(TOPICS) as [TopicId, TopicSpec][]) out[id] = prefix + spec.name;
  return out;
}

export function topicSpecs(prefix: string): TopicSpec[] {
  return Object.values(TOPICS).map((spec) => ({ ...spec, name: prefix + spec.name }));
}
