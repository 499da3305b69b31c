import type { Config } from '../../platform/config.ts';
import { AppError } from '../../platform/errors.ts';
import type { Pool } from '../../platform/postgres.ts';
import { AUTH_LIMITS, type ApiKey, type ApiKeyCreate, type ApiKeyCreated, type Scope } from '../../schemas/auth.ts';
import { formatCidr, parseCidr } from '../http/client-ip.ts';
import { PREFIXES, idOf, mint } from './secrets.ts';

/**
 * API keys (spec "API key", "Credentials"): the secret is shown once at creation and stored only as
 * sha256; a revoked or expired key is refused on the very next request because every request reads
 * the key's row (no cache).
 */

export interface StoredKey {
  id: string;
  name: string;
  keyHash: Buffer;
  scopes: Scope[];
  ipAllowlist: string[];
  expiresAt: Date;
  revokedAt: Date | null;
}


export function keyPrefix(environment: Config['environment']): string {
  return PREFIXES[environment];
}

/** Validates and normalizes allowlist entries; every bad entry is reported. */
export function normalizeAllowlist(entries: string[]): string[] {
  const bad = entries.filter((e) => parseCidr(e) === null);
  if (bad.length > 0) {
    throw new AppError(
      'validation_error',
      `ip_allowlist entries are not IPv4/IPv6 addresses or CIDR ranges: ${bad.join(', ')}`,
      bad.map((e) => ({ location: 'body', path: `/ip_allowlist/${entries.indexOf(e)}`, message: 'is not an IP address or CIDR range' })),
    );
  }
  return entries.map((e) => formatCidr(parseCidr(e)!));
}

export async function createApiKey(pool: Pool, environment: Config['environment'], input: ApiKeyCreate, createdBy: string): Promise<ApiKeyCreated> {
  const allowlist = normalizeAllowlist(input.ip_allowlist ?? []);
  const secret = mint(keyPrefix(environment));
  const id = `key_${secret.id}`;
  const days = input.expires_in_days ?? AUTH_LIMITS.defaultKeyLifetimeDays;
  const { rows } = await pool.query<{ created_at: Date; expires_at: Date }>(
    `INSERT INTO api_keys (id, name, key_hash, scopes, ip_allowlist, expires_at, created_by)
     VALUES ($1, $2, $3, $4, $5, now() + make_interval(days => $6), $7)
     RETURNING created_at, expires_at`,
    [id, input.name, secret.hash, input.scopes, allowlist, days, createdBy],
  );
  const row = rows[0]!;
  return {
    id,
    name: input.name,
    key: secret.value,
    scopes: input.scopes,
    ip_allowlist: allowlist,
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
  };
}

/** The key a presented value names, if the value has this deployment's prefix; not yet checked. */
export async function findApiKey(pool: Pool, environment: Config['environment'], value: string): Promise<StoredKey | null> {
  const hex = idOf(value, keyPrefix(environment));
  if (hex === null) return null;
  const { rows } = await pool.query<{ id: string; name: string; key_hash: Buffer; scopes: Scope[]; ip_allowlist: string[]; expires_at: Date; revoked_at: Date | null }>(
    'SELECT id, name, key_hash, scopes, ip_allowlist, expires_at, revoked_at FROM api_keys WHERE id = $1',
    [`key_${hex}`],
  );
  const r = rows[0];
  return r ? { id: r.id, name: r.name, keyHash: r.key_hash, scopes: r.scopes, ipAllowlist: r.ip_allowlist, expiresAt: r.expires_at, revokedAt: r.revoked_at } : null;
}

/** Keys that are not revoked (expired ones included, so admins see what to clean up), newest first. */
export async function listApiKeys(pool: Pool, page: number, perPage: number): Promise<{ items: ApiKey[]; total: number }> {
  const { rows } = await pool.query<{ id: string; name: string; scopes: Scope[]; ip_allowlist: string[]; expires_at: Date; created_at: Date; total: string }>(
    `SELECT id, name, scopes, ip_allowlist, expires_at, created_at, count(*) OVER () AS total
     FROM api_keys WHERE revoked_at IS NULL ORDER BY created_at DESC, id LIMIT $1 OFFSET $2`,
    [perPage, (page - 1) * perPage],
  );
  const total = rows[0] ? Number(rows[0].total) : await countKeys(pool);
  return {
    total,
    items: rows.map((r) => ({ id: r.id, name: r.name, scopes: r.scopes, ip_allowlist: r.ip_allowlist, expires_at: r.expires_at.toISOString(), created_at: r.created_at.toISOString() })),
  };
}

async function countKeys(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL');
  return Number(rows[0]?.n ?? 0);
}

/** Revokes a key; revoking an already revoked key is a no-op. False when no such key exists. */
export async function revokeApiKey(pool: Pool, id: string): Promise<boolean> {
  const { rowCount } = await pool.query('UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

export function isExpired(expiresAt: Date, now = Date.now()): boolean {
  return expiresAt.getTime() <= now;
}

