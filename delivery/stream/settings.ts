// The live stream's settings, owned here and assembled with every other module's in app/config.ts.
import { int, type Setting, type SettingsValues } from '../../platform/config.ts';

export const STREAM_SETTINGS = {
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
  streamDedupeRecords: {
    env: 'PSS_STREAM_DEDUPE_RECORDS',
    description: 'WebSocket stream: how many records back on a partition of security.events a record looks for an earlier record of the same event id and revision; one found there is a copy (a relay that crashed after publishing published it again) and is not sent. Each API instance reads this many records per partition at start-up and keeps their ids.',
    default: '10000',
    parse: int(0, 1_000_000),
  },
  streamPositionWarmupRecords: {
    env: 'PSS_POSITION_STREAM_WARMUP_RECORDS',
    description: 'Position stream: records per partition of ais.positions each API instance reads from before the end at start-up, so its first subscribers see the vessels already under way (their newest positions arrive in the snapshot).',
    default: '5000',
    parse: int(0, 10_000_000),
  },
  streamPositionMaxAgeMinutes: {
    env: 'PSS_POSITION_STREAM_MAX_AGE_MINUTES',
    description: 'Position stream: a vessel not heard from for this long is forgotten by the API instance (no longer in snapshots); its last position stays in the vessel API.',
    default: '30',
    parse: int(1, 7 * 24 * 60),
  },
} as const satisfies Record<string, Setting<unknown>>;

export type StreamConfig = SettingsValues<typeof STREAM_SETTINGS>;

declare module '../../platform/config.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merges the stream settings into Config
  interface Config extends StreamConfig {}
}
