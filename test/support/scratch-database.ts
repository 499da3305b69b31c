// A database of a test's own, beside the run's shared one, for tests that change what every test would
// see (dropping partitions) or need exact rows (the analyst queries). Migrated; dropped by `drop`.
import pg from 'pg';
import { migrate } from '../../platform/postgres.ts';
import { testConfig, testLog } from './stack.ts';

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function scratchDatabase(label: string): Promise<ScratchDatabase> {
  const shared = new URL(testConfig().databaseUrl);
  const name = `${shared.pathname.slice(1)}_${label}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: shared.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  await admin.end();
  const url = new URL(shared);
  url.pathname = `/${name}`;
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  await db.query('CREATE EXTENSION IF NOT EXISTS postgis');
  await db.end();
  await migrate(url.toString(), testLog);
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: shared.toString() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
      await client.end();
    },
  };
}
