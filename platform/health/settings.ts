// The health model's settings (docs/operations.md "Settings"), assembled with every module's in app/config.ts.
import { int, type Setting, type SettingsValues } from '../config.ts';

export const HEALTH_SETTINGS = {
  healthReportIntervalMs: {
    env: 'PSS_HEALTH_REPORT_INTERVAL_MS',
    description: 'How often each instance checks its components, writes its health report to Postgres and, in turn with the other instances, turns lasting changes into system_health_change events. 0: this instance reports nothing (GET /v1/system/health then answers from the others).',
    default: '5000',
    parse: int(0, 600_000),
  },
  healthReportTtlMs: {
    env: 'PSS_HEALTH_REPORT_TTL_MS',
    description: 'How long an instance\'s health report counts without being renewed: the report of an instance that crashed or lost Postgres stops counting after it (and is deleted). At least twice PSS_HEALTH_REPORT_INTERVAL_MS.',
    default: '30000',
    parse: int(500, 3_600_000),
  },
  healthDebounceMs: {
    env: 'PSS_HEALTH_DEBOUNCE_MS',
    description: 'How long a component\'s new status must hold, across instances, before it is a transition and one system_health_change event; a status that flaps back sooner says nothing.',
    default: '30000',
    parse: int(0, 3_600_000),
  },
  feedSilenceMs: {
    env: 'PSS_FEED_SILENCE_MS',
    description: 'An ingest feed (AIS source: a TCP or UDP source, an HTTP ingest credential) silent for longer than this is down (one system_health_change; the AIS-gap rule does not count its vessels as dark meanwhile). 0: learned per feed, ten times its mean interval between reports, within PSS_FEED_SILENCE_MIN_MS and PSS_FEED_SILENCE_MAX_MS.',
    default: '0',
    parse: int(0, 86_400_000),
  },
  feedSilenceMinMs: {
    env: 'PSS_FEED_SILENCE_MIN_MS',
    description: 'Floor of a learned feed silence limit (PSS_FEED_SILENCE_MS 0), and the limit while a feed\'s rate is not learned yet (its first 20 reports). Keep it below the zones\' ais_loss_seconds.',
    default: '60000',
    parse: int(100, 86_400_000),
  },
  gateLaneSilenceMs: {
    env: 'PSS_GATE_LANE_SILENCE_MS',
    description: 'A gate lane (gate and lane of its readings) silent for longer than this is down (one system_health_change). 0: lanes are not watched (their traffic follows the shifts, so no rate is learned).',
    default: '0',
    parse: int(0, 86_400_000),
  },
  feedSilenceMaxMs: {
    env: 'PSS_FEED_SILENCE_MAX_MS',
    description: 'Ceiling of a learned feed silence limit (PSS_FEED_SILENCE_MS 0).',
    default: '900000',
    parse: int(100, 86_400_000),
  },
} as const satisfies Record<string, Setting<unknown>>;

export type HealthConfig = SettingsValues<typeof HEALTH_SETTINGS>;

declare module '../config.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merges the health settings into Config
  interface Config extends HealthConfig {}
}
