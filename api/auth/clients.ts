import { randomBytes } from 'node:crypto';
import { AppError } from '../../platform/errors.ts';
import type { Pool } from '../../platform/postgres.ts';
import { GRANT_TYPES, type OAuthClient, type OAuthClientCreate } from '../../schemas/auth.ts';
import { insertClient, type ClientRecord } from './oauth-store.ts';
import { PREFIXES, sha256 } from './secrets.ts';

/** OAuth application registration (spec "OAuth application"; registration itself is not in the spec). */

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Why a redirect URI is unacceptable, or null. https, or http on a loopback host (RFC 8252 7.3); no fragment (RFC 6749 3.1.2). */
export function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.hash !== '' || uri.includes('#')) return 'must not contain a fragment';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return null;
  return 'must use https (http is allowed only for loopback hosts)';
}

export function clientView(c: ClientRecord): OAuthClient {
  return {
    client_id: c.clientId,
    name: c.name,
    redirect_uris: c.redirectUris,
    scopes: c.scopes,
    grant_types: c.grantTypes as OAuthClient['grant_types'],
    client_type: c.secretHash === null ? 'public' : 'confidential',
    created_at: c.createdAt.toISOString(),
  };
}

export async function registerClient(pool: Pool, input: OAuthClientCreate): Promise<OAuthClient & { client_secret?: string }> {
  const bad = input.redirect_uris
    .map((uri, i) => ({ uri, i, problem: redirectUriProblem(uri) }))
    .filter((r) => r.problem !== null);
  if (bad.length > 0) {
    throw new AppError(
      'validation_error',
      `redirect_uris are invalid: ${bad.map((b) => `${b.uri} ${b.problem}`).join('; ')}`,
      bad.map((b) => ({ location: 'body', path: `/redirect_uris/${b.i}`, message: b.problem })),
    );
  }
  const isPublic = input.client_type === 'public';
  const secret = isPublic ? undefined : `${PREFIXES.clientSecret}${randomBytes(32).toString('base64url')}`;
  const record = await insertClient(pool, {
    clientId: `cli_${randomBytes(8).toString('hex')}`,
    name: input.name,
    secretHash: secret === undefined ? null : sha256(secret),
    redirectUris: input.redirect_uris,
    scopes: input.scopes,
    grantTypes: input.grant_types ?? [...GRANT_TYPES],
  });
  return { ...clientView(record), ...(secret === undefined ? {} : { client_secret: secret }) };
}
