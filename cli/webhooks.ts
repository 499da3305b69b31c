// `pss webhooks reseal`: seals every webhook's signing secret again under PSS_WEBHOOK_SECRET_KEY, opening
// those the previous key sealed with PSS_WEBHOOK_SECRET_KEY_PREVIOUS (docs/events-and-delivery.md "Rotating
// the secret key"). Prints a JSON report; exit 0 when every secret is now under the current key, 1 when
// some open with neither key (listed), 2 on bad usage.
import { loadConfig } from '../app/config.ts';
import { resealSecrets } from '../delivery/webhooks/reseal.ts';
import { SecretBox } from '../delivery/webhooks/secret-box.ts';
import { createPool } from '../platform/postgres.ts';
import { usageLine } from './usage.ts';

export async function webhooksCommand(args: string[]): Promise<number> {
  if (args[0] !== 'reseal' || args.length > 1) {
    console.error(usageLine('webhooks'));
    return 2;
  }
  const config = loadConfig();
  const pool = createPool(config.databaseUrl, 2);
  try {
    const report = await resealSecrets(pool, new SecretBox(config.webhookSecretKey, config.webhookSecretKeyPrevious));
    console.log(JSON.stringify({ ok: report.unopenable.length === 0, resealed: report.resealed.length, already_current: report.current, resealed_ids: report.resealed, unopenable_ids: report.unopenable }, null, 2));
    return report.unopenable.length === 0 ? 0 : 1;
  } finally {
    await pool.end();
  }
}
