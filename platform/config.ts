// Settings: one typed, documented entry each, read from PSS_* environment variables and validated at
// start-up. This file holds the mechanism and the plumbing's own settings; app/config.ts assembles every
// module's table, and docs/configuration.md's table is generated from it (`pss config`).

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

export const str = (raw: string): string => {
  if (raw.trim() === '') throw new Error('must not be empty');
  return raw;
};
export const int = (min: number, max: number) => (raw: string): number => {
  if (!/^-?\d+$/.test(raw.trim())) throw new Error(`must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new Error(`must be between ${min} and ${max}, got ${n}`);
  return n;
};
export const oneOf = <T extends string>(...values: T[]) => (raw: string): T => {
  if (!(values as string[]).includes(raw)) throw new Error(`must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
};
export const url = (protocols: string[]) => (raw: string): string => {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new Error(`must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) throw new Error(`must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  return raw.replace(/\/$/, '');
};
export const list = (raw: string): string[] => {
  const items = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new Error('must list at least one item');
  return items;
};
export const hostPorts = (raw: string): string[] => {
  const items = list(raw);
  for (const item of items) {
    if (!/^[\w.-]+:\d{1,5}$/.test(item)) throw new Error(`"${item}" is not host:port`);
  }
  return items;
};
export const bool = (raw: string): boolean => {
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new Error(`must be true or false, got "${raw}"`);
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

/** The settings of the plumbing every role shares; each module that has its own declares them beside it (ingest/settings.ts). */
export const PLATFORM_SETTINGS = {
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
    description: 'Refused credentials (bad, unknown, revoked or expired API keys and tokens; wrong OAuth client secrets, codes and refresh tokens) allowed per client address per minute, per API instance, after PSS_AUTH_FAILURES_BURST. An address over the limit gets 429 with Retry-After for any refused credential, and before the look-up for one not accepted on this instance before (but one per 60/this seconds); valid credentials it was vouched for are still served.',
    default: '60',
    parse: int(1, 1_000_000),
  },
  authFailuresBurst: {
    env: 'PSS_AUTH_FAILURES_BURST',
    description: 'Refused credentials a client address may present at once before PSS_AUTH_FAILURES_PER_MINUTE applies (token bucket size), per API instance.',
    default: '30',
    parse: int(1, 1_000_000),
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
  consumerLagSampleMs: {
    env: 'PSS_CONSUMER_LAG_SAMPLE_MS',
    description: "How often an instance reads the committed and end offsets of its consumer groups (/metrics pss_consumer_group_*; each group's lag status judges the last 5 readings, and a stall of 5 minutes is down: platform/kafka/lag-status.ts).",
    default: '10000',
    parse: int(100, 600_000),
  },
  schemaRegistryUrl: {
    env: 'PSS_SCHEMA_REGISTRY_URL',
    description: 'Optional Confluent-compatible schema registry. When set, topics are written in the Confluent wire format.',
    default: '',
    parse: (raw: string) => (raw.trim() === '' ? '' : url(['http:', 'https:'])(raw)),
  },
  positionFormat: {
    env: 'PSS_POSITION_FORMAT',
    description: "How ais.positions values are written: `binary`, a compact versioned frame (platform/codec/position-binary.ts, about half the bytes, decoded twice as fast as the JSON), or `json`, plain JSON text for readers outside the service that expect it. Either is read whatever this says, so instances can switch with old values on the topic. With PSS_SCHEMA_REGISTRY_URL set positions are always the registry's JSON wire format.",
    default: 'binary',
    parse: oneOf('binary', 'json'),
  },
} as const satisfies Record<string, Setting<unknown>>;

/** The parsed values of a table of settings. */
export type SettingsValues<T extends Record<string, Setting<unknown>>> = { [K in keyof T]: ReturnType<T[K]['parse']> };

/**
 * Every setting of the service, as the roles see them. Modules add theirs by declaration merging (see
 * ingest/settings.ts), and app/config.ts loads them all, so this layer knows no module's settings.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the interface exists to be merged into
export interface Config extends SettingsValues<typeof PLATFORM_SETTINGS> {}

/** Reads and validates a table of settings; throws a ConfigError naming the first bad one. */
export function loadSettings<T extends Record<string, Setting<unknown>>>(table: T, env: NodeJS.ProcessEnv): SettingsValues<T> {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(table) as [string, Setting<unknown>][]) {
    const raw = env[setting.env] ?? setting.default;
    if (raw === undefined) throw new ConfigError(setting.env, 'is required but not set');
    try {
      out[key] = setting.parse(raw);
    } catch (err) {
      throw new ConfigError(setting.env, (err as Error).message);
    }
  }
  return out as SettingsValues<T>;
}
