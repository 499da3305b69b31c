import type { Pool } from '../../platform/postgres.ts';
import { OAUTH_CLIENT_ID_PATTERN, SCOPES, type Scope } from '../../schemas/auth.ts';
import { AUTHORIZE_FIELDS, type AuthorizeParams } from './consent-page.ts';
import { toClient, type Client } from './oauth-model.ts';
import { findClient } from './oauth-store.ts';

/**
 * Checks an authorization request (RFC 6749 4.1.1, RFC 7636) before any page is shown. An unknown
 * client or a redirect_uri that is not registered byte for byte is answered with a page and never
 * redirected (RFC 6749 4.1.2.1: no open redirector); every later problem is redirected to the
 * client with `error` and the unchanged `state`.
 */

export type Preflight =
  | { kind: 'ok'; client: Client; redirectUri: string; scopes: Scope[]; params: AuthorizeParams }
  | { kind: 'redirect'; location: string }
  | { kind: 'page'; status: number; title: string; message: string };

const CLIENT_ID = new RegExp(OAUTH_CLIENT_ID_PATTERN);

export async function authorizePreflight(pool: Pool, input: Record<string, unknown>): Promise<Preflight> {
  const params: AuthorizeParams = {};
  const repeated: string[] = [];
  for (const field of AUTHORIZE_FIELDS) {
    const value = input[field];
    if (typeof value === 'string') params[field] = value;
    else if (value !== undefined) repeated.push(field);
  }
  // Only an id of the issued shape is looked up: junk (a NUL, say) never reaches the database.
  const record = params.client_id && CLIENT_ID.test(params.client_id) ? await findClient(pool, params.client_id) : null;
  if (!record || repeated.includes('client_id')) return page('Unknown application', 'The client_id does not name a registered application.');
  const client = toClient(record);
  if (!params.redirect_uri || repeated.includes('redirect_uri') || !client.redirectUris.includes(params.redirect_uri)) {
    return page('Invalid redirect URI', 'The redirect_uri is missing or is not registered for this application.');
  }
  const fail = (error: string, description: string): Preflight => redirectWithError(params.redirect_uri as string, error, description, params.state);
  if (repeated.length > 0) return fail('invalid_request', `Parameters given more than once: ${repeated.join(', ')}`);
  if (params.response_type !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported');
  if (!client.grants.includes('authorization_code')) return fail('unauthorized_client', 'This application may not use the authorization code grant');
  if (!params.state) return fail('invalid_request', 'Missing parameter: state');
  if (params.code_challenge_method !== undefined && params.code_challenge_method !== 'S256') {
    return fail('invalid_request', 'code_challenge_method must be S256');
  }
  if (params.code_challenge === undefined && params.code_challenge_method !== undefined) return fail('invalid_request', 'Missing parameter: code_challenge');
  if (params.code_challenge !== undefined && !/^[A-Za-z0-9._~-]{43,128}$/.test(params.code_challenge)) return fail('invalid_request', 'Invalid parameter: code_challenge');
  if (client.isPublic && params.code_challenge === undefined) return fail('invalid_request', 'PKCE (code_challenge with S256) is required for public clients');
  const requested = params.scope === undefined ? [...client.scopes] : params.scope.split(' ').filter(Boolean);
  const unknown = requested.filter((s) => !(SCOPES as string[]).includes(s));
  if (unknown.length > 0) return fail('invalid_scope', `Unknown scopes: ${unknown.join(', ')}`);
  const scopes = SCOPES.filter((s) => requested.includes(s) && (client.scopes.includes(s) || client.scopes.includes('admin')));
  if (scopes.length === 0) return fail('invalid_scope', 'None of the requested scopes is allowed for this application');
  return { kind: 'ok', client, redirectUri: params.redirect_uri, scopes, params: { ...params, scope: scopes.join(' ') } };
}

function page(title: string, message: string): Preflight {
  return { kind: 'page', status: 400, title, message };
}

export function redirectWithError(redirectUri: string, error: string, description: string, state: string | undefined): Extract<Preflight, { kind: 'redirect' }> {
  const url = new URL(redirectUri);
  url.searchParams.set('error', error);
  url.searchParams.set('error_description', description);
  if (state !== undefined) url.searchParams.set('state', state);
  return { kind: 'redirect', location: url.toString() };
}
