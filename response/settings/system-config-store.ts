// The system configuration in Postgres (sql/migrations/0021_system_config.sql): one document, replaced
// whole, every change kept with who made it. Readers that need it on every event hold a
// SystemConfigCache (system-config-cache.ts); a one-off reader (a validation) calls readSystemConfig.
import type { Pool, PoolClient } from '../../platform/postgres.ts';
import { DEFAULT_SYSTEM_CONFIG, type SystemConfig } from '../../schemas/system-config.ts';

/** The stored document, its revision (0: never changed, the shipped defaults) and when it was stored. */
export interface StoredSystemConfig {
  config: SystemConfig;
  revision: number;
  updatedAt: Date | null;
}

/** The configuration in force: the stored document, or DEFAULT_SYSTEM_CONFIG when none was ever stored. */
export async function readSystemConfig(db: Pool | PoolClient): Promise<SystemConfig> {
  return (await readStoredSystemConfig(db)).config;
}

export async function readStoredSystemConfig(db: Pool | PoolClient): Promise<StoredSystemConfig> {
  const { rows } = await db.query<{ document: SystemConfig; revision: number; updated_at: Date }>(
    `SELECT document, revision, updated_at FROM system_config WHERE key = 'system'`,
  );
  const row = rows[0];
  return row === undefined ? { config: DEFAULT_SYSTEM_CONFIG, revision: 0, updatedAt: null } : { config: row.document, revision: row.revision, updatedAt: row.updated_at };
}
