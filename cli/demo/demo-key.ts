// The demo's API key (issue 33 item 8): one at a time, living no longer than the demo. Each run revokes
// every earlier demo key still valid (a demo killed without a chance to clean up leaves its key behind
// until the next run), makes its own for a day (the shortest lifetime a key can have), and revokes it when
// it stops. `pss keys list` shows a demo key that is still valid: its created_by is `pss demo`.
import { createApiKey, revokeApiKey } from '../../api/auth/api-keys.ts';
import type { Config } from '../../platform/config.ts';
import type { Pool } from '../../platform/postgres.ts';
import type { ApiKeyCreated } from '../../schemas/auth.ts';

export const DEMO_KEY_CREATOR = 'pss demo';

export async function issueDemoKey(pool: Pool, environment: Config['environment']): Promise<{ key: ApiKeyCreated; revokedEarlier: string[] }> {
  const { rows } = await pool.query<{ id: string }>(
    'UPDATE api_keys SET revoked_at = now() WHERE created_by = $1 AND revoked_at IS NULL AND expires_at > now() RETURNING id',
    [DEMO_KEY_CREATOR],
  );
  const key = await createApiKey(pool, environment, { name: 'demo', scopes: ['admin'], expires_in_days: 1 }, DEMO_KEY_CREATOR);
  return { key, revokedEarlier: rows.map((r) => r.id) };
}

export async function revokeDemoKey(pool: Pool, id: string): Promise<void> {
  await revokeApiKey(pool, id);
}
