// Sign-in: the service's own OAuth 2.0 authorization code flow with PKCE (S256), the console being a public
// client registered by set-up (docs/console.md "Sign-in"). Tokens live in sessionStorage (one tab, gone when
// it closes); the access token is refreshed a minute before it expires, and a refused refresh signs out.
import type { ConsoleConfig } from './config.ts';

export interface Session {
  accessToken: string;
  refreshToken: string;
  /** ms since the epoch */
  expiresAt: number;
  scopes: string[];
}

const SESSION = 'pss.console.session';
const PENDING = 'pss.console.pending';
export const REQUESTED_SCOPES = [
  'events:read', 'events:write', 'maritime:read', 'maritime:write', 'transactions:read', 'transactions:write',
  'drones:read', 'drones:write', 'system:read',
  // Granted only to operators who hold it: administrators, for the Operators tab (docs/console.md "Operators").
  'admin',
];

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function random(n: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(n)));
}

/** Sends the browser to the service's sign-in page. */
export async function signIn(config: ConsoleConfig): Promise<void> {
  const verifier = random(32);
  const state = random(16);
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state }));
  const q = new URLSearchParams({
    response_type: 'code', client_id: config.client_id, redirect_uri: config.redirect_uri, scope: REQUESTED_SCOPES.join(' '),
    state, code_challenge: challenge, code_challenge_method: 'S256',
  });
  location.assign(`${config.auth_url}/oauth/authorize?${q}`);
}

export class AuthError extends Error {}

/** Back from the sign-in page: exchanges the code. Undefined when the URL holds no answer. */
export async function completeSignIn(config: ConsoleConfig): Promise<Session | undefined> {
  const params = new URLSearchParams(location.search);
  if (!params.has('code') && !params.has('error')) return undefined;
  history.replaceState(null, '', location.pathname);
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as { verifier: string; state: string } | null;
  sessionStorage.removeItem(PENDING);
  if (params.has('error')) throw new AuthError(params.get('error') === 'access_denied' ? 'Sign-in was cancelled.' : `Sign-in failed: ${params.get('error_description') ?? params.get('error')}`);
  if (!pending || pending.state !== params.get('state')) throw new AuthError('Sign-in failed: the answer does not belong to this tab; sign in again.');
  return store(await token(config, { grant_type: 'authorization_code', code: params.get('code') as string, redirect_uri: config.redirect_uri, code_verifier: pending.verifier }), []);
}

export function storedSession(): Session | undefined {
  const s = JSON.parse(sessionStorage.getItem(SESSION) ?? 'null') as Session | null;
  return s && s.expiresAt > Date.now() ? s : undefined;
}

export function signOut(): void {
  sessionStorage.removeItem(SESSION);
}

export async function refresh(config: ConsoleConfig, session: Session): Promise<Session> {
  return store(await token(config, { grant_type: 'refresh_token', refresh_token: session.refreshToken }), session.scopes);
}

interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope?: string;
}

async function token(config: ConsoleConfig, fields: Record<string, string>): Promise<TokenAnswer> {
  const res = await fetch(`${config.auth_url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, client_id: config.client_id }),
  });
  const body = (await res.json().catch(() => ({}))) as Partial<TokenAnswer> & { error?: string; error_description?: string };
  if (!res.ok || !body.access_token) throw new AuthError(`Your session ended (${body.error_description ?? body.error ?? `HTTP ${res.status}`}); sign in again.`);
  return body as TokenAnswer;
}

function store(answer: TokenAnswer, previousScopes: string[]): Session {
  const session: Session = {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token,
    expiresAt: Date.now() + answer.expires_in * 1000,
    scopes: answer.scope ? answer.scope.split(' ') : previousScopes,
  };
  sessionStorage.setItem(SESSION, JSON.stringify(session));
  return session;
}
