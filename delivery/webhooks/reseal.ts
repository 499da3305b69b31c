// Sealing every webhook's signing secret again under the current PSS_WEBHOOK_SECRET_KEY, the middle step of
// a key rotation (docs/events-and-delivery.md "Rotating the secret key"). A row is rewritten only if its
// sealed value is still the one read, so a secret replaced through the API meanwhile (sealed under the
// current key already) is left as it is. Running it again changes nothing.
import type { Pool } from '../../platform/postgres.ts';
import type { SecretBox } from './secret-box.ts';

export interface ResealReport {
  /** Webhooks whose secret was sealed under the previous key and now is under the current one. */
  resealed: string[];
  /** Webhooks already under the current key. */
  current: number;
  /** Webhooks whose secret neither key opens: they cannot sign until their secret is set again (PUT). */
  unopenable: string[];
}

export async function resealSecrets(pool: Pool, box: SecretBox): Promise<ResealReport> {
  const report: ResealReport = { resealed: [], current: 0, unopenable: [] };
  const { rows } = await pool.query<{ id: string; secret_sealed: string }>('SELECT id, secret_sealed FROM webhooks ORDER BY id');
  for (const { id, secret_sealed: sealed } of rows) {
    let opened: { secret: string; current: boolean };
    try {
      opened = box.openWith(id, sealed);
    } catch {
      report.unopenable.push(id);
      continue;
    }
    if (opened.current) {
      report.current++;
      continue;
    }
    const { rowCount } = await pool.query('UPDATE webhooks SET secret_sealed = $3 WHERE id = $1 AND secret_sealed = $2', [id, sealed, box.seal(id, opened.secret)]);
    if (rowCount === 1) report.resealed.push(id);
    else report.current++; // replaced or deleted meanwhile; a replacement is sealed under the current key
  }
  return report;
}
