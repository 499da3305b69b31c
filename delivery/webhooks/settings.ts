// The webhooks module's settings, owned here and assembled with every other module's in app/config.ts.
import { bool, int, type Setting, type SettingsValues } from '../../platform/config.ts';

/** A 32-byte AES-256 key, as 64 hex digits or base64; "" means none (refused in production). */
const secretKey = (raw: string): string => {
  const v = raw.trim();
  if (v === '') return '';
  const bytes = /^[0-9a-f]{64}$/i.test(v) ? Buffer.from(v, 'hex') : Buffer.from(v, 'base64');
  if (bytes.length !== 32) throw new Error('must be 32 bytes, as 64 hex digits or base64 (e.g. `openssl rand -base64 32`)');
  return bytes.toString('base64');
};

export const WEBHOOK_SETTINGS = {
  webhookSecretKey: {
    env: 'PSS_WEBHOOK_SECRET_KEY',
    description: 'Webhooks: the AES-256-GCM key (32 bytes, hex or base64) that encrypts signing secrets at rest. Required in production; elsewhere an empty value uses a fixed development key and logs a warning.',
    default: '',
    parse: secretKey,
  },
  webhookSecretKeyPrevious: {
    env: 'PSS_WEBHOOK_SECRET_KEY_PREVIOUS',
    description: 'Webhooks: while rotating PSS_WEBHOOK_SECRET_KEY, the old key (same form): secrets it sealed still open, and `pss webhooks reseal` seals them again under the new key. Empty when not rotating.',
    default: '',
    parse: secretKey,
  },
  webhookAllowLoopback: {
    env: 'PSS_WEBHOOK_ALLOW_LOOPBACK',
    description: 'Webhooks: development only. Allows webhook URLs on loopback addresses (127.0.0.0/8, ::1, localhost), also over plain HTTP. Every other private, link-local, metadata or reserved address is refused regardless. Refused in production.',
    default: 'false',
    parse: bool,
  },
  webhookTimeoutMs: {
    env: 'PSS_WEBHOOK_TIMEOUT_MS',
    description: 'Webhooks: the longest a delivery attempt may take (connect, send, answer), after which it counts as a connection timeout.',
    default: '10000',
    parse: int(100, 60_000),
  },
  webhookConcurrency: {
    env: 'PSS_WEBHOOK_CONCURRENCY',
    description: 'Webhooks: delivery attempts in flight at once on one instance, over all endpoints.',
    default: '512',
    parse: int(1, 10_000),
  },
  webhookEndpointConcurrency: {
    env: 'PSS_WEBHOOK_ENDPOINT_CONCURRENCY',
    description: 'Webhooks: delivery attempts in flight at once to one webhook, per instance, so a slow endpoint holds at most this many of the instance\'s slots.',
    default: '16',
    parse: int(1, 1_000),
  },
  webhookPollMs: {
    env: 'PSS_WEBHOOK_POLL_MS',
    description: 'Webhooks: how often a dispatcher looks for due attempts when nothing woke it (deliveries recorded by any instance wake every dispatcher at once through NOTIFY; this covers retries coming due and a lost listening connection).',
    default: '200',
    parse: int(10, 60_000),
  },
  webhookHistoryRetentionDays: {
    env: 'PSS_WEBHOOK_HISTORY_RETENTION_DAYS',
    description: 'Webhooks: days a finished delivery (delivered, failed or cancelled) is kept with its attempts after its last change; older ones are deleted hourly, in batches, by every api instance. Pending deliveries are never deleted. 0 keeps the history forever; a range replay reaches back at most this far.',
    default: '30',
    parse: int(0, 36_500),
  },
  webhookReplayPerSecond: {
    env: 'PSS_WEBHOOK_REPLAY_PER_SECOND',
    description: 'Webhooks: the pace of a range replay, in deliveries per second to the one webhook.',
    default: '10',
    parse: int(1, 1_000),
  },
} as const satisfies Record<string, Setting<unknown>>;

export type WebhookConfig = SettingsValues<typeof WEBHOOK_SETTINGS>;

declare module '../../platform/config.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merges the webhook settings into Config
  interface Config extends WebhookConfig {}
}
