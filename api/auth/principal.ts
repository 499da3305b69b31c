import type { Scope } from '../../schemas/auth.ts';

/** Who is calling: the credential behind a /v1 request, after authentication. */
export interface Principal {
  kind: 'api_key' | 'oauth' | 'anonymous';
  /** The key id or the OAuth access-token id; rate limits and logs use it (never the secret). */
  credentialId: string;
  /** API key: the key id. OAuth: the application's client_id. */
  clientId: string;
  /** API key: the key's name. OAuth: the operator's username. */
  subject: string;
  scopes: Scope[];
  expiresAt: Date | null;
}

export const ANONYMOUS: Principal = { kind: 'anonymous', credentialId: 'anonymous', clientId: '', subject: 'anonymous', scopes: [], expiresAt: null };

/** `admin` grants everything (spec "Scopes"). */
export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes.includes('admin') || principal.scopes.includes(scope);
}

/** A route's scopes are alternatives: any one of them suffices. No scopes: any valid credential. */
export function allows(principal: Principal, required: readonly Scope[]): boolean {
  return required.length === 0 || required.some((s) => hasScope(principal, s));
}
