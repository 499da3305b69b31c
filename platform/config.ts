// Every setting of the service: one typed, documented entry each, read from PSS_* environment variables
// and validated at start-up. The README's configuration table is generated from SETTINGS (`pss config`).

export interface Setting<T> {
  env: string;
  description: string;
  default?: string;
  parse: (raw: string) => T;
}

export class ConfigError extends Error {
  constructor(readonly setting: string, message: string) {
    super(`${setting}: ${message}`);
    this.name = 'ConfigError';
  }
}

const str = (raw: string): string => {
  if (raw.trim() === '') throw new Error('must not be empty');
  return raw;
};
const int = (min: number, max: number) => (raw: string): number => {
  if (!/^-?\d+$/.test(raw.trim())) throw new Error(`must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new Error(`must be between ${min} and ${max}, got ${n}`);
  return n;
};
const oneOf = <T extends string>(...values: T[]) => (raw: string): T => {
  if (!(values as string[]).includes(raw)) throw new Error(`must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
};
const url = (protocols: string[]) => (raw: string): string => {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new Error(`must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) throw new Error(`must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  return raw.replace(/\/$/, '');
};
const list = (raw: string): string[] => {
  const items = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new Error('must list at least one item');
  return items;
};
const hostPorts = (raw: string): string[] => {
  const items = list(raw);
  for (const item of items) {
    if (!/^[\w.-]+:\d{1,5}$/.test(item)) throw new Error(`"${item}" is not host:port`);
  }
  return items;
};
const bool = (raw: string): boolean => {
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new Error(`must be true or false, got "${raw}"`);
};
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
const roles = (raw: string): Role[] => {
  const items = list(raw);
  for (const item of items) {
    if (!(ROLES as readonly string[]).includes(item)) throw new Error(`unknown role "${item}"; roles are ${ROLES.join(', ')}`);
  }
  return items as Role[];
};

export const ROLES = ['ingest', 'processors', 'api'] as const;
export type Role = (typeof ROLES)[number];

export const SETTINGS = {
  environment: {
    env: 'PSS_ENVIRONMENT',
    description: 'Deployment environment: production, test or development. Selects the API key prefix (svc_live_, svc_test_, svc_dev_).',
    default: 'development',
    parse: oneOf('production', 'test', 'development'),
  },
  kafkaBrokers: {
    env: 'PSS_KAFKA_BROKERS',
    description: 'Comma-separated Kafka bootstrap brokers (host:port).',
    default: '127.0.0.1:9092',
    parse: hostPorts,
  },
  kafkaClientId: {
    env: 'PSS_KAFKA_CLIENT_ID',
    description: 'Kafka client id prefix of this instance.',
    default: 'pss',
    parse: str,
  },
  topicPrefix: {
    env: 'PSS_TOPIC_PREFIX',
    description: 'Prefix for every Kafka topic and consumer group name (lets tests and tenants share a broker).',
    default: '',
    parse: (raw: string) => raw,
  },
  databaseUrl: {
    env: 'PSS_DATABASE_URL',
    description: 'PostgreSQL (with PostGIS) connection URL.',
    default: 'postgres://postgres@127.0.0.1:5432/pss',
    parse: url(['postgres:', 'postgresql:']),
  },
  databasePoolSize: {
    env: 'PSS_DATABASE_POOL_SIZE',
    description: 'Maximum PostgreSQL connections per instance.',
    default: '10',
    parse: int(1, 200),
  },
  databaseConnectTimeoutMs: {
    env: 'PSS_DATABASE_CONNECT_TIMEOUT_MS',
    description: 'How long opening a PostgreSQL connection, or waiting for a free one of the pool, may take before the query fails.',
    default: '5000',
    parse: int(100, 600_000),
  },
  databaseStatementTimeoutMs: {
    env: 'PSS_DATABASE_STATEMENT_TIMEOUT_MS',
    description: 'PostgreSQL statement_timeout: the server cancels a statement running longer. A connection that does not answer at all is dropped 1 s later, a transaction left idle is ended after twice this, and /readyz reports postgres failing for two such periods after a timeout.',
    default: '30000',
    parse: int(100, 3_600_000),
  },
  httpHost: {
    env: 'PSS_HTTP_HOST',
    description: 'Address the HTTP/WebSocket server binds to.',
    default: '127.0.0.1',
    parse: str,
  },
  httpPort: {
    env: 'PSS_HTTP_PORT',
    description: 'Port of the HTTP/WebSocket server (REST under /v1, OAuth under /oauth, /healthz, /readyz, /metrics). 0 picks a free port.',
    default: '8080',
    parse: int(0, 65535),
  },
  httpBodyTimeoutMs: {
    env: 'PSS_HTTP_BODY_TIMEOUT_MS',
    description: 'Longest time a client may take to send one request, headers and body; a slower one gets 408 and its connection is closed. (A body declared larger than its route allows gets 413 before it is read.)',
    default: '30000',
    parse: int(1_000, 600_000),
  },
  publicUrl: {
    env: 'PSS_PUBLIC_URL',
    description: 'Public base URL of the API ({base_url}), used in links and the OpenAPI document.',
    default: 'http://127.0.0.1:8080',
    parse: url(['http:', 'https:']),
  },
  authUrl: {
    env: 'PSS_AUTH_URL',
    description: 'Public base URL of the authorization server ({auth_url}); served by the same process.',
    default: 'http://127.0.0.1:8080',
    parse: url(['http:', 'https:']),
  },
  trustedProxy: {
    env: 'PSS_TRUSTED_PROXY',
    description: 'Comma-separated proxy addresses/CIDRs whose X-Forwarded-For is believed when resolving the client address (IP allowlists, per-address limits). Empty: only the socket address counts.',
    default: '',
    parse: (raw: string) => (raw.trim() === '' ? [] : list(raw)),
  },
  rateLimitPerSecond: {
    env: 'PSS_RATE_LIMIT_PER_SECOND',
    description: 'Sustained request rate allowed per credential (API key or OAuth token) on /v1, per API instance. Excess requests get 429 with Retry-After.',
    default: '20',
    parse: int(1, 100_000),
  },
  rateLimitBurst: {
    env: 'PSS_RATE_LIMIT_BURST',
    description: 'Requests a credential may make at once before PSS_RATE_LIMIT_PER_SECOND applies (token bucket size), per API instance.',
    default: '100',
    parse: int(1, 1_000_000),
  },
  loginAttemptsPerMinute: {
    env: 'PSS_LOGIN_ATTEMPTS_PER_MINUTE',
    description: 'OAuth login form submissions allowed per client address per minute (burst of the same size), per API instance. The token endpoint shares the per-credential limits, keyed by client_id and by client address.',
    default: '10',
    parse: int(1, 10_000),
  },
  authFailuresPerMinute: {
    env: 'PSS_AUTH_FAILURES_PER_MINUTE',
    description: 'Refused credentials (bad, unknown, revoked or expired API keys and tokens; wrong OAuth client secrets, codes and refresh tokens) allowed per client address per minute, per API instance, after PSS_AUTH_FAILURES_BURST. An address over the limit gets 429 with Retry-After before its credential is looked up, even a good one.',
    default: '60',
    parse: int(1, 1_000_000),
  },
  authFailuresBurst: {
    env: 'PSS_AUTH_FAILURES_BURST',
    description: 'Refused credentials a client address may present at once before PSS_AUTH_FAILURES_PER_MINUTE applies (token bucket size), per API instance.',
    default: '30',
    parse: int(1, 1_000_000),
  },
  streamConnectionLeaseSeconds: {
    env: 'PSS_STREAM_CONNECTION_LEASE_SECONDS',
    description: 'WebSocket stream: how long a connection counts against its credential\'s limit of 10 (across all API instances) without its instance renewing it. Each instance renews its connections every third of this, so the connections of a crashed instance stop counting this long after it died.',
    default: '15',
    parse: int(3, 3600),
  },
  streamReplayRecords: {
    env: 'PSS_STREAM_REPLAY_RECORDS',
    description: 'WebSocket stream: recent security.events records each API instance keeps in memory, so a reconnecting client is resumed without reading Kafka. A client further behind is resumed from Kafka by offset.',
    default: '20000',
    parse: int(0, 10_000_000),
  },
  roles: {
    env: 'PSS_ROLES',
    description: 'Roles this instance runs: any of ingest, processors, api (`pss start --roles` overrides).',
    default: 'ingest,processors,api',
    parse: roles,
  },
  logLevel: {
    env: 'PSS_LOG_LEVEL',
    description: 'pino log level.',
    default: 'info',
    parse: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
  },
  shutdownTimeoutMs: {
    env: 'PSS_SHUTDOWN_TIMEOUT_MS',
    description: 'How long graceful shutdown waits for in-flight work before exiting.',
    default: '15000',
    parse: int(0, 600_000),
  },
  schemaRegistryUrl: {
    env: 'PSS_SCHEMA_REGISTRY_URL',
    description: 'Optional Confluent-compatible schema registry. When set, topics are written in the Confluent wire format.',
    default: '',
    parse: (raw: string) => (raw.trim() === '' ? '' : url(['http:', 'https:'])(raw)),
  },
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

type Settings = typeof SETTINGS;
export type Config = { [K in keyof Settings]: ReturnType<Settings[K]['parse']> };

/** Reads and validates every setting; throws a ConfigError naming the first bad one. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const raw = env[setting.env] ?? setting.default;
    if (raw === undefined) throw new ConfigError(setting.env, 'is required but not set');
    try {
      out[key] = setting.parse(raw);
    } catch (err) {
      throw new ConfigError(setting.env, (err as Error).message);
    }
  }
  return out as Config;
}
