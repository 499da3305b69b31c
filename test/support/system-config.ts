// The system configuration is one document per database, and every file of a run shares the database: a
// test changes what it needs on top of what is stored (other files' zones may name their gates and parties,
// which a PUT may not drop) and puts the previous document back when it is done.
import type { SystemConfig } from '../../schemas/system-config.ts';
import { call } from './service.ts';

export interface ChangedSystemConfig {
  /** The document now in force. */
  config: SystemConfig;
  /**
   * Puts the previous document back (after the test removed whatever of its own names its gates or
   * parties), through `at` when the service was restarted on another address since.
   */
  restore(at?: string): Promise<void>;
}

/** PUT /v1/system/config with `change(current)`; `api` is the service's base URL up to /v1, `key` has system:read and system:write. */
export async function changeSystemConfig(api: string, key: string, change: (current: SystemConfig) => SystemConfig): Promise<ChangedSystemConfig> {
  const got = await call(`${api}/system/config`, key);
  if (got.status !== 200) throw new Error(`GET /v1/system/config answered ${got.status}: ${got.text}`);
  const previous = got.json.data as SystemConfig;
  const config = change(previous);
  const put = await call(`${api}/system/config`, key, { method: 'PUT', json: config });
  if (put.status !== 200) throw new Error(`PUT /v1/system/config answered ${put.status}: ${put.text}`);
  return {
    config,
    restore: async (at = api) => {
      const back = await call(`${at}/system/config`, key, { method: 'PUT', json: previous });
      if (back.status !== 200) throw new Error(`putting the previous system configuration back answered ${back.status}: ${back.text}`);
    },
  };
}
