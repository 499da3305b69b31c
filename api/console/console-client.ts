// The console is an OAuth application of the service (docs/console.md "Sign-in"): a public client (PKCE
// S256, no secret) registered by set-up, with the redirect URI of this deployment's /console/. Its id is
// derived from the public URL, so every instance (and every restart) agrees on it without coordination.
import { createHash } from 'node:crypto';
import type { Config } from '../../platform/config.ts';
import { connectClient } from '../../platform/postgres.ts';
import { SCOPES } from '../../schemas/auth.ts';
import { redirectUriProblem } from '../auth/clients.ts';

export const CONSOLE_CLIENT_NAME = 'Operator console';

/**
 * Every scope but ingest:write: an operator is granted those of them they hold (docs/api.md "OAuth 2.0").
 * `admin` is among them so that an administrator's console shows the Operators tab (issue 34 item 6); only an
 * operator who holds admin is granted it, and the consent page names it.
 */
export const CONSOLE_SCOPES: string[] = SCOPES.filter((s) => s !== 'ingest:write');

export function consoleRedirectUri(config: Pick<Config, 'publicUrl'>): string {
  return `${config.publicUrl.replace(/\/$/, '')}/console/`;
}

export function consoleClientId(config: Pick<Config, 'publicUrl'>): string {
  return `cli_${createHash('sha256').update(`console:${consoleRedirectUri(config)}`).digest('hex').slice(0, 16)}`;
}

/**
 * Registers the console's client, or brings its redirect URI and scopes up to date (a revoked one stays
 * revoked: an admin who removed the console keeps it removed). Skipped when the public URL is plain http on a
 * host other than loopback, which no redirect URI may use.
 */
export async function registerConsoleClient(config: Config): Promise<string | undefined> {
  const redirectUri = consoleRedirectUri(config);
  if (redirectUriProblem(redirectUri) !== null) return undefined;
  const clientId = consoleClientId(config);
  const client = await connectClient(config.databaseUrl);
  try {
    await client.query(
      `INSERT INTO oauth_clients (client_id, name, secret_hash, redirect_uris, scopes, grant_types)
       VALUES ($1, $2, NULL, $3, $4, ARRAY['authorization_code', 'refresh_token'])
       ON CONFLICT (client_id) DO UPDATE SET redirect_uris = EXCLUDED.redirect_uris, scopes = EXCLUDED.scopes`,
      [clientId, CONSOLE_CLIENT_NAME, [redirectUri], CONSOLE_SCOPES],
    );
  } finally {
    await client.end();
  }
  return clientId;
}
