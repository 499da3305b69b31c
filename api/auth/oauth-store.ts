import type { Pool } from '../../platform/postgres.ts';
import type { Scope } from '../../schemas/auth.ts';
import { PREFIXES, idOf, matches, sha256 } from './secrets.ts';

/** Postgres records of the OAuth server: clients, operators, codes and token families. */

export interface ClientRecord {
  clientId: string;
  name: string;
  secretHash: Buffer | null;
  redirectUris: string[];
  scopes: Scope[];
  grantTypes: string[];
  createdAt: Date;
}

export interface OperatorRecord {
  id: string;
  username: string;
  passwordHash: string;
  scopes: Scope[];
}

export interface CodeRecord {
  id: string;
  clientId: string;
  operatorId: string;
  redirectUri: string;
  scopes: Scope[];
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  expiresAt: Date;
  usedAt: Date | null;
}

export interface TokenRecord {
  accessId: string;
  refreshId: string;
  familyId: string;
  clientId: string;
  operatorId: string;
  username: string;
  scopes: Scope[];
  accessExpiresAt: Date;
  refreshExpiresAt: Date;
  refreshUsedAt: Date | null;
  revokedAt: Date | null;
}

interface ClientRow {
  client_id: string;
  name: string;
  secret_hash: Buffer | null;
  redirect_uris: string[];
  scopes: Scope[];
  grant_types: string[];
  created_at: Date;
}

const toClient = (r: ClientRow): ClientRecord => ({
  clientId: r.client_id,
  name: r.name,
  secretHash: r.secret_hash,
  redirectUris: r.redirect_uris,
  scopes: r.scopes,
  grantTypes: r.grant_types,
  createdAt: r.created_at,
});

export async function insertClient(pool: Pool, c: Omit<ClientRecord, 'createdAt'>): Promise<ClientRecord> {
  const { rows } = await pool.query<ClientRow>(
    `INSERT INTO oauth_clients (client_id, name, secret_hash, redirect_uris, scopes, grant_types)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
    [c.clientId, c.name, c.secretHash, c.redirectUris, c.scopes, c.grantTypes],
  );
  return toClient(rows[0]!);
}

export async function findClient(pool: Pool, clientId: string): Promise<ClientRecord | null> {
  const { rows } = await pool.query<ClientRow>('SELECT * FROM oauth_clients WHERE client_id = $1 AND revoked_at IS NULL', [clientId]);
  return rows[0] ? toClient(rows[0]) : null;
}

export async function listClients(pool: Pool, page: number, perPage: number): Promise<{ items: ClientRecord[]; total: number }> {
  const { rows } = await pool.query<ClientRow & { total: string }>(
    `SELECT *, count(*) OVER () AS total FROM oauth_clients WHERE revoked_at IS NULL
     ORDER BY created_at DESC, client_id LIMIT $1 OFFSET $2`,
    [perPage, (page - 1) * perPage],
  );
  const total = rows[0] ? Number(rows[0].total) : Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM oauth_clients WHERE revoked_at IS NULL')).rows[0]?.n ?? 0);
  return { items: rows.map(toClient), total };
}

/** Revokes a client and every token issued to it. False when no such client exists. */
export async function revokeClient(pool: Pool, clientId: string): Promise<boolean> {
  const { rowCount } = await pool.query('UPDATE oauth_clients SET revoked_at = coalesce(revoked_at, now()) WHERE client_id = $1', [clientId]);
  await pool.query('UPDATE oauth_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE client_id = $1', [clientId]);
  return (rowCount ?? 0) > 0;
}

export async function insertOperator(pool: Pool, o: OperatorRecord): Promise<void> {
  await pool.query('INSERT INTO operators (id, username, password_hash, scopes) VALUES ($1, $2, $3, $4)', [o.id, o.username, o.passwordHash, o.scopes]);
}

export async function findOperator(pool: Pool, username: string): Promise<OperatorRecord | null> {
  const { rows } = await pool.query<{ id: string; username: string; password_hash: string; scopes: Scope[] }>(
    'SELECT id, username, password_hash, scopes FROM operators WHERE username = $1 AND disabled_at IS NULL',
    [username],
  );
  const r = rows[0];
  return r ? { id: r.id, username: r.username, passwordHash: r.password_hash, scopes: r.scopes } : null;
}

export async function findOperatorById(pool: Pool, id: string): Promise<OperatorRecord | null> {
  const { rows } = await pool.query<{ id: string; username: string; password_hash: string; scopes: Scope[] }>(
    'SELECT id, username, password_hash, scopes FROM operators WHERE id = $1 AND disabled_at IS NULL',
    [id],
  );
  const r = rows[0];
  return r ? { id: r.id, username: r.username, passwordHash: r.password_hash, scopes: r.scopes } : null;
}

export async function insertCode(pool: Pool, id: string, codeValue: string, c: Omit<CodeRecord, 'id' | 'usedAt'>): Promise<void> {
  await pool.query(
    `INSERT INTO oauth_codes (id, code_hash, client_id, operator_id, redirect_uri, scopes, code_challenge, code_challenge_method, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [id, sha256(codeValue), c.clientId, c.operatorId, c.redirectUri, c.scopes, c.codeChallenge, c.codeChallengeMethod, c.expiresAt],
  );
}

/** The code a presented value names, checked against its hash; null when unknown or forged. */
export async function findCode(pool: Pool, value: string): Promise<CodeRecord | null> {
  const id = idOf(value, PREFIXES.code);
  if (id === null) return null;
  const { rows } = await pool.query<{
    id: string; code_hash: Buffer; client_id: string; operator_id: string; redirect_uri: string; scopes: Scope[];
    code_challenge: string | null; code_challenge_method: string | null; expires_at: Date; used_at: Date | null;
  }>('SELECT * FROM oauth_codes WHERE id = $1', [id]);
  const r = rows[0];
  if (!r || !matches(value, r.code_hash)) return null;
  return {
    id: r.id, clientId: r.client_id, operatorId: r.operator_id, redirectUri: r.redirect_uri, scopes: r.scopes,
    codeChallenge: r.code_challenge, codeChallengeMethod: r.code_challenge_method, expiresAt: r.expires_at, usedAt: r.used_at,
  };
}

/** Marks a code used; false when it was already used (two exchanges racing: only one wins). */
export async function consumeCode(pool: Pool, id: string): Promise<boolean> {
  const { rowCount } = await pool.query('UPDATE oauth_codes SET used_at = now() WHERE id = $1 AND used_at IS NULL', [id]);
  return (rowCount ?? 0) > 0;
}

export interface NewTokenPair {
  accessValue: string;
  accessExpiresAt: Date;
  refreshValue: string;
  refreshExpiresAt: Date;
  familyId: string;
  clientId: string;
  operatorId: string;
  scopes: Scope[];
}

export async function insertTokenPair(pool: Pool, t: NewTokenPair): Promise<void> {
  await pool.query(
    `INSERT INTO oauth_tokens (access_id, access_hash, access_expires_at, refresh_id, refresh_hash, refresh_expires_at, family_id, client_id, operator_id, scopes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      idOf(t.accessValue, PREFIXES.access), sha256(t.accessValue), t.accessExpiresAt,
      idOf(t.refreshValue, PREFIXES.refresh), sha256(t.refreshValue), t.refreshExpiresAt,
      t.familyId, t.clientId, t.operatorId, t.scopes,
    ],
  );
}

// A disabled operator's tokens stop working at once: they are simply not found.
const TOKEN_SELECT = `SELECT t.*, o.username FROM oauth_tokens t JOIN operators o ON o.id = t.operator_id AND o.disabled_at IS NULL`;

interface TokenRow {
  access_id: string; access_hash: Buffer; refresh_id: string; refresh_hash: Buffer; family_id: string; client_id: string;
  operator_id: string; username: string; scopes: Scope[]; access_expires_at: Date; refresh_expires_at: Date;
  refresh_used_at: Date | null; revoked_at: Date | null;
}

const toToken = (r: TokenRow): TokenRecord => ({
  accessId: r.access_id, refreshId: r.refresh_id, familyId: r.family_id, clientId: r.client_id, operatorId: r.operator_id,
  username: r.username, scopes: r.scopes, accessExpiresAt: r.access_expires_at, refreshExpiresAt: r.refresh_expires_at,
  refreshUsedAt: r.refresh_used_at, revokedAt: r.revoked_at,
});

/** The pair whose access token is `value` (hash checked in constant time); null when unknown or forged. */
export async function findByAccessToken(pool: Pool, value: string): Promise<TokenRecord | null> {
  const id = idOf(value, PREFIXES.access);
  if (id === null) return null;
  const { rows } = await pool.query<TokenRow>(`${TOKEN_SELECT} WHERE t.access_id = $1`, [id]);
  const r = rows[0];
  return r && matches(value, r.access_hash) ? toToken(r) : null;
}

export async function findByRefreshToken(pool: Pool, value: string): Promise<TokenRecord | null> {
  const id = idOf(value, PREFIXES.refresh);
  if (id === null) return null;
  const { rows } = await pool.query<TokenRow>(`${TOKEN_SELECT} WHERE t.refresh_id = $1`, [id]);
  const r = rows[0];
  return r && matches(value, r.refresh_hash) ? toToken(r) : null;
}

/** Marks a refresh token rotated; false when it already was (two refreshes racing: only one wins). */
export async function consumeRefreshToken(pool: Pool, refreshId: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    'UPDATE oauth_tokens SET refresh_used_at = now() WHERE refresh_id = $1 AND refresh_used_at IS NULL AND revoked_at IS NULL',
    [refreshId],
  );
  return (rowCount ?? 0) > 0;
}

/** Revokes every access and refresh token descending from one authorization code. Returns how many pairs. */
export async function revokeFamily(pool: Pool, familyId: string): Promise<number> {
  const { rowCount } = await pool.query('UPDATE oauth_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL', [familyId]);
  return rowCount ?? 0;
}

/** A shared random secret by name, created by whichever instance asks first. */
export async function sharedSecret(pool: Pool, name: string, fresh: Buffer): Promise<Buffer> {
  await pool.query('INSERT INTO auth_secrets (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, fresh]);
  const { rows } = await pool.query<{ secret: Buffer }>('SELECT secret FROM auth_secrets WHERE name = $1', [name]);
  return rows[0]!.secret;
}
