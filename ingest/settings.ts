// The ingest role's settings, owned here and assembled with every other module's in app/config.ts.
import { bool, int, list, type Setting, type SettingsValues } from '../platform/config.ts';

/** A named network endpoint of an ingest source: `[name=]host:port`; the name defaults to `host:port`. */
export interface Endpoint {
  name: string;
  host: string;
  port: number;
}
const endpoints = (kind: string) => (raw: string): Endpoint[] => {
  if (raw.trim() === '') return [];
  const out: Endpoint[] = [];
  for (const item of list(raw)) {
    const match = /^(?:([\w.:-]+)=)?([\w.-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(item);
    const port = Number(match?.[3]);
    if (!match || port > 65535) throw new Error(`"${item}" is not [name=]host:port`);
    const host = (match[2] as string).replace(/^\[|\]$/g, '');
    out.push({ name: match[1] ?? `${kind}:${host}:${port}`, host, port });
  }
  if (new Set(out.map((e) => e.name)).size !== out.length) throw new Error('source names must be unique');
  return out;
};

export const INGEST_SETTINGS = {
  aisTcpSources: {
    env: 'PSS_AIS_TCP_SOURCES',
    description: 'AIS receivers/aggregators to connect to over TCP, comma-separated `[name=]host:port` (the name becomes the report `source`, default `tcp:host:port`). Empty: none.',
    default: '',
    parse: endpoints('tcp'),
  },
  aisUdpSources: {
    env: 'PSS_AIS_UDP_SOURCES',
    description: 'UDP addresses to listen on for AIS NMEA datagrams, comma-separated `[name=]host:port` (e.g. `0.0.0.0:10110`). Empty: none.',
    default: '',
    parse: endpoints('udp'),
  },
  aisStrictTagBlocks: {
    env: 'PSS_AIS_STRICT_TAG_BLOCKS',
    description: 'Reject NMEA 4.0 tag blocks whose checksum is missing or wrong (true/false). Some real feeds write `*00` on every tag block.',
    default: 'true',
    parse: bool,
  },
  aisFragmentTimeoutMs: {
    env: 'PSS_AIS_FRAGMENT_TIMEOUT_MS',
    description: 'How long an incomplete multi-sentence AIS message waits for its other fragments before it is dead-lettered as orphan_fragment.',
    default: '10000',
    parse: int(100, 3_600_000),
  },
  aisMaxLineLength: {
    env: 'PSS_AIS_MAX_LINE_LENGTH',
    description: 'Longest NMEA line accepted, in characters (tag block, sentence and receiver fields together; bytes, for feeds read as latin1). Longer lines are dead-lettered as line_too_long with their first 4 KiB; a stream reader skips the rest of such a line. Real sentences are at most 82 characters.',
    default: '4096',
    parse: int(128, 1_048_576),
  },
  aisFragmentMaxBytes: {
    env: 'PSS_AIS_FRAGMENT_MAX_BYTES',
    description: 'Largest total size (characters) of the fragments one source holds while their messages are incomplete; beyond it the oldest incomplete messages are dead-lettered as orphan_fragment (the newest one is always kept). The ais.raw consumer holds up to 1,000 sources.',
    default: '131072',
    parse: int(1024, 1_073_741_824),
  },
  aisTcpReconnectMinMs: {
    env: 'PSS_AIS_TCP_RECONNECT_MIN_MS',
    description: 'First delay before reconnecting a lost TCP source; doubles on each failed attempt (with jitter).',
    default: '500',
    parse: int(10, 600_000),
  },
  aisTcpReconnectMaxMs: {
    env: 'PSS_AIS_TCP_RECONNECT_MAX_MS',
    description: 'Largest delay between TCP reconnect attempts.',
    default: '30000',
    parse: int(10, 3_600_000),
  },
  aisTcpIdleTimeoutMs: {
    env: 'PSS_AIS_TCP_IDLE_TIMEOUT_MS',
    description: 'A TCP source that sends nothing for this long is considered dead and reconnected. 0 disables.',
    default: '120000',
    parse: int(0, 3_600_000),
  },
  ingestRawConsumers: {
    env: 'PSS_INGEST_RAW_CONSUMERS',
    description: 'Run the consumers that decode/validate what other producers write to ais.raw and gate.readings.raw (true/false).',
    default: 'true',
    parse: bool,
  },
  ingestBatchRecords: {
    env: 'PSS_INGEST_BATCH_RECORDS',
    description: 'Ingest producer: a batch is sent as soon as it holds this many records.',
    default: '2000',
    parse: int(1, 100_000),
  },
  ingestLingerMs: {
    env: 'PSS_INGEST_LINGER_MS',
    description: 'Ingest producer: a partial batch is sent at the latest this long after its first record.',
    default: '5',
    parse: int(0, 10_000),
  },
  ingestMaxInFlight: {
    env: 'PSS_INGEST_MAX_IN_FLIGHT',
    description: 'Ingest producer: batches handed to Kafka and not yet acknowledged. 1 keeps per-MMSI order even when a send fails and is retried.',
    default: '1',
    parse: int(1, 16),
  },
  ingestMaxQueuedRecords: {
    env: 'PSS_INGEST_MAX_QUEUED_RECORDS',
    description: 'Ingest producer: records held and not yet acknowledged above which sources pause reading (TCP/file), UDP drops, HTTP waits. Bounds memory when Kafka is slow.',
    default: '20000',
    parse: int(100, 10_000_000),
  },
  ingestMaxItemBytes: {
    env: 'PSS_INGEST_MAX_ITEM_BYTES',
    description: 'Largest single input item: a record on ais.raw or gate.readings.raw, or a gate reading or decoded AIS report in an HTTP body (its JSON text). Larger items are dead-lettered as record_too_large (first 4 KiB kept). Keep it well below the broker\'s message.max.bytes (1 MiB by default): the record made from a report can hold its input twice.',
    default: '262144',
    parse: int(1024, 16_777_216),
  },
  ingestStuckAfterMs: {
    env: 'PSS_INGEST_STUCK_AFTER_MS',
    description: 'Ingest producer: while its oldest unacknowledged batch has waited longer than this (no write is getting through), /readyz reports ingest_producer as failing (503) and HTTP ingest answers 503 at once instead of holding requests to the ack timeout.',
    default: '5000',
    parse: int(1_000, 3_600_000),
  },
  ingestHttpMaxItems: {
    env: 'PSS_INGEST_HTTP_MAX_ITEMS',
    description: 'Largest number of sentences, reports or gate readings in one HTTP ingest request.',
    default: '10000',
    parse: int(1, 1_000_000),
  },
  ingestHttpMaxBytes: {
    env: 'PSS_INGEST_HTTP_MAX_BYTES',
    description: 'Largest HTTP ingest request body in bytes.',
    default: '5242880',
    parse: int(1024, 1_073_741_824),
  },
  ingestHttpAckTimeoutMs: {
    env: 'PSS_INGEST_HTTP_ACK_TIMEOUT_MS',
    description: 'How long an HTTP ingest request waits for Kafka to acknowledge its records before answering 503 (the records are still produced later).',
    default: '15000',
    parse: int(100, 600_000),
  },
} as const satisfies Record<string, Setting<unknown>>;

export type IngestConfig = SettingsValues<typeof INGEST_SETTINGS>;

declare module '../platform/config.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merges the ingest settings into Config
  interface Config extends IngestConfig {}
}
