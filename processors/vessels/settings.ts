// The vessels module's settings (positions sink, static sink, analyst login), owned here and assembled
// with every other module's in app/config.ts.
import { int, type Setting, type SettingsValues } from '../../platform/config.ts';

/** Shorter passwords are refused: the analyst login is reachable wherever PostgreSQL is. */
const MIN_ANALYST_PASSWORD = 12;

export const VESSEL_SETTINGS = {
  positionRetentionDays: {
    env: 'PSS_POSITION_RETENTION_DAYS',
    description: 'Days of AIS positions kept in PostGIS (vessel_positions, analyst.positions and analyst.vessel_tracks), counted in whole UTC days of event time: day partitions older than this are dropped hourly by the processors, and older reports are not stored. Raise it to keep more (disk: roughly 150 bytes per position with its indexes).',
    default: '30',
    parse: int(1, 3_650),
  },
  positionPartitionsAhead: {
    env: 'PSS_POSITION_PARTITIONS_AHEAD',
    description: 'Day partitions of vessel_positions created ahead of today (UTC), so midnight never waits on DDL; a late or early report\'s day is created on demand.',
    default: '2',
    parse: int(1, 60),
  },
  positionSinkConsumers: {
    env: 'PSS_POSITION_SINK_CONSUMERS',
    description: 'Positions sink: consumers of ais.positions per processors instance (same group, each takes a share of the partitions), so one batch is decoded while another is written. At most the partition count (6).',
    default: '2',
    parse: int(1, 6),
  },
  analystPassword: {
    env: 'PSS_ANALYST_PASSWORD',
    description: `Password of the read-only PostgreSQL role pss_analyst (reads the analyst schema only); set at every start-up and by \`pss migrate\`, sent and stored as a SCRAM verifier. Empty: the role is left as it is (migration 0016 creates it without a login; the role is cluster-wide, so another deployment on the same PostgreSQL may have set one). At least ${MIN_ANALYST_PASSWORD} characters.`,
    default: '',
    parse: (raw: string): string | null => {
      if (raw === '') return null;
      if (raw.length < MIN_ANALYST_PASSWORD) throw new Error(`must be at least ${MIN_ANALYST_PASSWORD} characters`);
      return raw;
    },
  },
} as const satisfies Record<string, Setting<unknown>>;

export type VesselConfig = SettingsValues<typeof VESSEL_SETTINGS>;

declare module '../../platform/config.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- merges the vessel settings into Config
  interface Config extends VesselConfig {}
}
