// Every module's settings in one table: what `pss config` prints and what the service loads at start-up.
import { STREAM_SETTINGS } from '../delivery/stream/settings.ts';
import { CONSOLE_SETTINGS } from '../api/console/settings.ts';
import { WEBHOOK_SETTINGS } from '../delivery/webhooks/settings.ts';
import { EVENT_SETTINGS } from '../events/settings.ts';
import { INGEST_SETTINGS } from '../ingest/settings.ts';
import { GATE_SETTINGS } from '../processors/gate/settings.ts';
import { MARITIME_SETTINGS } from '../processors/maritime/settings.ts';
import { VESSEL_SETTINGS } from '../processors/vessels/settings.ts';
import { DRONE_SETTINGS } from '../drones/settings.ts';
import { HEALTH_SETTINGS } from '../platform/health/settings.ts';
import { PLATFORM_SETTINGS, loadSettings, type Config, type SettingsValues } from '../platform/config.ts';
import { KAFKA_CLUSTER_SETTINGS } from '../platform/kafka-settings.ts';

export const SETTINGS = { ...PLATFORM_SETTINGS, ...KAFKA_CLUSTER_SETTINGS, ...EVENT_SETTINGS, ...STREAM_SETTINGS, ...INGEST_SETTINGS, ...GATE_SETTINGS, ...MARITIME_SETTINGS, ...WEBHOOK_SETTINGS, ...VESSEL_SETTINGS, ...HEALTH_SETTINGS, ...DRONE_SETTINGS, ...CONSOLE_SETTINGS };

// Config is assembled by declaration merging; this fails to compile when a module's merged settings are not in SETTINGS.
type Loaded = SettingsValues<typeof SETTINGS>;
const _everySettingLoaded: (config: Loaded) => Config = (config) => config;
void _everySettingLoaded;

/** Reads and validates every setting; throws a ConfigError naming the first bad one. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadSettings(SETTINGS, env);
}
