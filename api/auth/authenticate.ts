import type { Request } from 'express';
import type { ServiceContext } from '../../platform/context.ts';
import { AppError } from '../../platform/errors.ts';
import { counter } from '../../platform/metrics.ts';
import { clientAddressResolver, cidrList, contains, parseCidr } from '../http/client-ip.ts';
import { findApiKey, isExpired } from './api-keys.ts';
import { failureThrottle } from './failure-throttle.ts';
import { findByAccessToken } from './oauth-store.ts';
import type { Principal } from './principal.ts';
import { PREFIXES, matches } from './secrets.ts';

/**
 * Turns `Authorization: Bearer <credential>` into a Principal (spec "Authentication" 2). The credential
 * is an API key (svc_live_/svc_test_/svc_dev_ for this deployment's environment) or an OAuth access
 * token (svc_oauth_). Missing, unknown, revoked and expired credentials are all 401 with the same
 * message, so a caller learns nothing about which keys exist; a valid key used from an address outside
 * its allowlist is 403. Every request reads the credential's row: revocation is effective at once.
 * An address whose credentials keep being refused gets 429 for any credential it has not been vouched
 * for, before the lookup, and for any refused one; valid credentials are still served (failure-throttle.ts).
 */

export type Authenticator = (req: Request) => Promise<Principal>;

/**
 * The same check for callers that are not an express request (the WebSocket stream takes the key as
 * the `token` query parameter or in its first message). Throws AppError unauthorized / forbidden.
 */
export type CredentialVerifier = (credential: string | null, socketAddress: string | undefined, forwardedFor: string | undefined) => Promise<Principal>;

const failures = counter('pss_auth_failures_total', 'Requests refused by authentication, by reason', ['reason']);

const INVALID = 'Missing, invalid, revoked or expired credential';

export function createAuthenticator(ctx: ServiceContext): Authenticator {
  const verify = createCredentialVerifier(ctx);
  return (req) => verify(bearer(req.header('authorization')), req.socket.remoteAddress, req.header('x-forwarded-for'));
}

export function createCredentialVerifier(ctx: ServiceContext): CredentialVerifier {
  const clientAddress = clientAddressResolver(ctx.config.trustedProxy);
  const throttle = failureThrottle(ctx);
  return async (credential, socketAddress, forwardedFor) => {
    if (credential === null || credential === '') return refuse('missing');
    const address = clientAddress(socketAddress, forwardedFor);
    const admission = throttle.admit(address, [credential]);
    if (!admission.lookup) throw throttled(admission.retryAfterSeconds);
    try {
      const principal = await (credential.startsWith(PREFIXES.access) ? oauthPrincipal(ctx, credential) : apiKeyPrincipal(ctx, credential, address));
      throttle.vouch([credential]);
      return principal;
    } catch (err) {
      if (!(err instanceof AppError && (err.code === 'unauthorized' || err.code === 'forbidden'))) throw err;
      const retryAfter = throttle.refused(address, [credential]);
      // Over the limit, every refusal looks like the 429 of a credential not looked up.
      throw admission.throttled ? throttled(retryAfter) : err;
    }
  };
}

function throttled(retryAfterSeconds: number): AppError {
  failures.inc({ reason: 'throttled' });
  return new AppError('rate_limited', `Too many refused credentials from this address; retry after ${retryAfterSeconds} s`, { retry_after_seconds: retryAfterSeconds });
}

function bearer(header: string | undefined): string | null {
  const m = /^Bearer +(\S+) *$/i.exec(header ?? '');
  return m ? (m[1] as string) : null;
}

function refuse(reason: string): never {
  failures.inc({ reason });
  throw new AppError('unauthorized', INVALID);
}

async function apiKeyPrincipal(ctx: ServiceContext, value: string, address: string): Promise<Principal> {
  const key = await findApiKey(ctx.pool, ctx.config.environment, value);
  if (!key || !matches(value, key.keyHash)) return refuse('unknown');
  if (key.revokedAt !== null) return refuse('revoked');
  if (isExpired(key.expiresAt)) return refuse('expired');
  if (key.ipAllowlist.length > 0 && !contains(cidrList(key.ipAllowlist.map((c) => parseCidr(c)!)), address)) {
    failures.inc({ reason: 'ip_not_allowed' });
    throw new AppError('forbidden', 'The client address is not in this API key\'s IP allowlist');
  }
  return { kind: 'api_key', credentialId: key.id, clientId: key.id, subject: key.name, scopes: key.scopes, expiresAt: key.expiresAt };
}

async function oauthPrincipal(ctx: ServiceContext, value: string): Promise<Principal> {
  const token = await findByAccessToken(ctx.pool, value);
  if (!token) return refuse('unknown');
  if (token.revokedAt !== null) return refuse('revoked');
  if (isExpired(token.accessExpiresAt)) return refuse('expired');
  return {
    kind: 'oauth',
    credentialId: `tok_${token.accessId}`,
    clientId: token.clientId,
    subject: token.username,
    scopes: token.scopes,
    expiresAt: token.accessExpiresAt,
  };
}
