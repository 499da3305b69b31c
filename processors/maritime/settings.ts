// The maritime module's settings, owned here and assembled with every other module's in app/config.ts.
import { int, type Setting, type SettingsValues } from '../../platform/config.ts';

export const MARITIME_SETTINGS = {
  maritimeZoneWorkers: {
    env: 'PSS_MARITIME_ZONE_WORKERS',
    description: 'Zone processor: worker threads of a processors instance that each run a member of the maritime-zones consumer group (with its own Kafka client, Postgres pool, zone catalog and vessel directory), so evaluation and the Kafka client use more than one core (one thread reaches about 35,000-43,000 positions/s with the benchmark rule set, two workers 51,000-56,000/s on two cores). 0: one member in the main thread. At most the partition count of ais.positions (6).',
    default: '2',
    parse: int(0, 6),
  },
} as const satisfies Record<string, Setting<unknown>>;

export type MaritimeConfig = SettingsValues<typeof MARITIME_SETTINGS>;

declare module '../../platform/config.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merges the maritime settings into Config
  interface Config extends MaritimeConfig {}
}
