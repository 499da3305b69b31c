import type OAuth2Server from '@node-oauth/oauth2-server';
import type { Logger } from '../../platform/log.ts';
import type { Pool } from '../../platform/postgres.ts';
import { SCOPES, type Scope } from '../../schemas/auth.ts';
import {
  consumeCode, consumeRefreshToken, findByAccessToken, findByRefreshToken, findClient, findCode, findOperatorById,
  insertCode, insertTokenPair, revokeFamily, type ClientRecord,
} from './oauth-store.ts';
import { PREFIXES, idOf, matches, mint } from './secrets.ts';

/**
 * The storage model behind @node-oauth/oauth2-server. The library runs the grant logic (code exchange,
 * PKCE verification, refresh rotation, RFC 6749 errors); this model decides what is stored and adds
 * the rules it cannot express:
 * - reuse of an authorization code, or of a refresh token that was already rotated, revokes every
 *   token of the family that code started (RFC 6749 4.1.2, OAuth 2.0 Security BCP 4.14);
 * - confidential clients must authenticate at the token endpoint; public clients have no secret;
 * - granted scopes are the requested ones the client may ask for and the operator holds.
 */

export interface Client extends OAuth2Server.Client {
  id: string;
  grants: string[];
  redirectUris: string[];
  scopes: Scope[];
  isPublic: boolean;
  name: string;
}

export interface Operator extends OAuth2Server.User {
  id: string;
  username: string;
  scopes: Scope[];
  /** Set once tokens exist: the id of the authorization code that started this token family. */
  familyId?: string;
}

export const LIFETIMES = {
  accessTokenSeconds: 3600,
  /** Idle lifetime: every refresh issues a new refresh token valid this long (spec "Credentials"). */
  refreshTokenSeconds: 30 * 24 * 3600,
  authorizationCodeSeconds: 60,
} as const;

export function toClient(c: ClientRecord): Client {
  return { id: c.clientId, name: c.name, grants: c.grantTypes, redirectUris: c.redirectUris, scopes: c.scopes, isPublic: c.secretHash === null };
}

/** Scopes an operator may grant this client: requested ∩ client ∩ operator, where `admin` on either side covers all. */
export function grantableScopes(requested: readonly string[], client: { scopes: readonly Scope[] }, operator: { scopes: readonly Scope[] }): Scope[] {
  const covers = (held: readonly Scope[], s: Scope) => held.includes(s) || held.includes('admin');
  return SCOPES.filter((s) => requested.includes(s) && covers(client.scopes, s) && covers(operator.scopes, s));
}

/**
 * `mode` 'token': the token endpoint, where a confidential client must present its secret.
 * `mode` 'authorize': the authorization endpoint, where only the client id is known.
 */
export function oauthModel(pool: Pool, log: Logger, mode: 'authorize' | 'token') {
  return {
    async getClient(clientId: string, clientSecret: string | null | undefined): Promise<Client | null> {
      const record = await findClient(pool, clientId);
      if (!record) return null;
      if (mode === 'token') {
        if (record.secretHash === null ? Boolean(clientSecret) : !clientSecret || !matches(clientSecret, record.secretHash)) return null;
      }
      return toClient(record);
    },

    async validateScope(user: Operator, client: Client, scope?: string[]): Promise<Scope[] | false> {
      const operator = await findOperatorById(pool, user.id);
      if (!operator) return false;
      const granted = grantableScopes(scope ?? client.scopes, client, operator);
      return granted.length > 0 ? granted : false;
    },

    async generateAuthorizationCode(): Promise<string> {
      return mint(PREFIXES.code).value;
    },

    async saveAuthorizationCode(
      code: Pick<OAuth2Server.AuthorizationCode, 'authorizationCode' | 'expiresAt' | 'redirectUri' | 'scope' | 'codeChallenge' | 'codeChallengeMethod'>,
      client: Client,
      user: Operator,
    ): Promise<OAuth2Server.AuthorizationCode> {
      await insertCode(pool, idOf(code.authorizationCode, PREFIXES.code)!, code.authorizationCode, {
        clientId: client.id,
        operatorId: user.id,
        redirectUri: code.redirectUri,
        scopes: (code.scope ?? []) as Scope[],
        codeChallenge: code.codeChallenge ?? null,
        codeChallengeMethod: code.codeChallengeMethod ?? null,
        expiresAt: code.expiresAt,
      });
      return { ...code, client, user };
    },

    async getAuthorizationCode(value: string): Promise<(OAuth2Server.AuthorizationCode & { id: string }) | null> {
      const code = await findCode(pool, value);
      if (!code) return null;
      if (code.usedAt !== null) {
        const revoked = await revokeFamily(pool, code.id);
        log.warn({ code_id: code.id, client_id: code.clientId, revoked_pairs: revoked }, 'authorization code reused; its tokens are revoked');
        return null;
      }
      const operator = await findOperatorById(pool, code.operatorId);
      if (!operator) return null;
      const user: Operator = { id: operator.id, username: operator.username, scopes: operator.scopes, familyId: code.id };
      return {
        id: code.id,
        authorizationCode: value,
        expiresAt: code.expiresAt,
        redirectUri: code.redirectUri,
        scope: code.scopes,
        client: { id: code.clientId, grants: [] },
        user,
        ...(code.codeChallenge ? { codeChallenge: code.codeChallenge, codeChallengeMethod: code.codeChallengeMethod ?? 'S256' } : {}),
      };
    },

    async revokeAuthorizationCode(code: OAuth2Server.AuthorizationCode & { id?: string }): Promise<boolean> {
      return code.id !== undefined && consumeCode(pool, code.id);
    },

    async generateAccessToken(): Promise<string> {
      return mint(PREFIXES.access).value;
    },

    async generateRefreshToken(): Promise<string> {
      return mint(PREFIXES.refresh).value;
    },

    async saveToken(token: OAuth2Server.Token, client: Client, user: Operator): Promise<OAuth2Server.Token> {
      if (!user.familyId || !token.refreshToken || !token.refreshTokenExpiresAt || !token.accessTokenExpiresAt) {
        throw new Error('saveToken: a token pair needs a family, a refresh token and expiry times');
      }
      await insertTokenPair(pool, {
        accessValue: token.accessToken,
        accessExpiresAt: token.accessTokenExpiresAt,
        refreshValue: token.refreshToken,
        refreshExpiresAt: token.refreshTokenExpiresAt,
        familyId: user.familyId,
        clientId: client.id,
        operatorId: user.id,
        scopes: (token.scope ?? []) as Scope[],
      });
      return { ...token, client, user };
    },

    async getRefreshToken(value: string): Promise<(OAuth2Server.RefreshToken & { refreshId: string }) | null> {
      const pair = await findByRefreshToken(pool, value);
      if (!pair || pair.revokedAt !== null) return null;
      if (pair.refreshUsedAt !== null) {
        const revoked = await revokeFamily(pool, pair.familyId);
        log.warn({ family_id: pair.familyId, client_id: pair.clientId, revoked_pairs: revoked }, 'rotated refresh token reused; its family is revoked');
        return null;
      }
      return {
        refreshId: pair.refreshId,
        refreshToken: value,
        refreshTokenExpiresAt: pair.refreshExpiresAt,
        scope: pair.scopes,
        client: { id: pair.clientId, grants: [] },
        user: { id: pair.operatorId, username: pair.username, scopes: pair.scopes, familyId: pair.familyId } satisfies Operator,
      };
    },

    /** Refresh rotation: the presented refresh token is spent; a second use is reuse (see getRefreshToken). */
    async revokeToken(token: OAuth2Server.RefreshToken & { refreshId?: string }): Promise<boolean> {
      return token.refreshId !== undefined && consumeRefreshToken(pool, token.refreshId);
    },

    /** Not used for /v1 (api/auth/authenticate.ts does that) but part of the library's model contract. */
    async getAccessToken(value: string): Promise<OAuth2Server.Token | null> {
      const pair = await findByAccessToken(pool, value);
      if (!pair || pair.revokedAt !== null) return null;
      return {
        accessToken: value,
        accessTokenExpiresAt: pair.accessExpiresAt,
        scope: pair.scopes,
        client: { id: pair.clientId, grants: [] },
        user: { id: pair.operatorId },
      };
    },
  };
}
