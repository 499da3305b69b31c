import type { Pool, PoolClient } from '../../platform/postgres.ts';
import { inTransaction } from '../../platform/postgres.ts';
import type { Scope } from '../../schemas/auth.ts';
import { OPERATOR_ACTIONS, type OperatorView } from '../../schemas/auth.ts';

/**
 * Operator administration (issue 34, item 6), shared by `pss users …` and /v1/auth/operators. Every
 * change is one transaction that writes the account, revokes what must stop working, and keeps an
 * operator_changes row saying who changed what (as system_config_changes does for the configuration).
 *
 * What revokes the operator's tokens, and why:
 * - disable: the account must stop at once; the token lookup also joins on disabled_at, but revoking
 *   makes it final, so enabling the account again does not bring old tokens back;
 * - reset password: a reset is what an admin does when a password may be known to someone else, so
 *   every session opened with it ends;
 * - a scope change: tokens carry the scopes granted at sign-in and a refresh keeps them, so without
 *   revoking, a removed scope would live on for the refresh token's 30 idle days.
 * Unused authorization codes are spent as well (they live 60 s, but could otherwise be exchanged).
 */

export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

/** Who made a change: the credential and whom it stands for (`cli` for the command line). */
export interface ChangeAuthor {
  credentialId: string;
  principal: string;
  kind: 'api_key' | 'oauth' | 'cli';
}

export interface OperatorChangeRecord {
  id: number;
  operator_id: string;
  changed_at: string;
  action: OperatorAction;
  changed_by: { credential_id: string; principal: string; auth_kind: ChangeAuthor['kind'] };
  before: Record<string, unknown>;
  after: Record<string, unknown>;
}

interface OperatorRow {
  id: string;
  username: string;
  scopes: Scope[];
  created_at: Date;
  disabled_at: Date | null;
}

const COLUMNS = 'id, username, scopes, created_at, disabled_at';

const toView = (r: OperatorRow): OperatorView => ({
  id: r.id,
  username: r.username,
  scopes: r.scopes,
  created_at: r.created_at.toISOString(),
  disabled_at: r.disabled_at?.toISOString() ?? null,
});

/** Every operator, disabled ones too (an admin enables them from the same list), by username. */
export async function listOperators(pool: Pool, page: number, perPage: number): Promise<{ items: OperatorView[]; total: number }> {
  const { rows } = await pool.query<OperatorRow>(`SELECT ${COLUMNS} FROM operators ORDER BY username LIMIT $1 OFFSET $2`, [perPage, (page - 1) * perPage]);
  const { rows: count } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM operators');
  return { items: rows.map(toView), total: Number(count[0]?.n ?? 0) };
}

/** The operator with this id, or with this username when `by` is 'username' (the command line names people). */
export async function readOperator(db: Pool | PoolClient, key: string, by: 'id' | 'username' = 'id'): Promise<OperatorView | null> {
  const { rows } = await db.query<OperatorRow>(`SELECT ${COLUMNS} FROM operators WHERE CASE WHEN $2 THEN id ELSE username END = $1`, [key, by === 'id']);
  return rows[0] ? toView(rows[0]) : null;
}

async function lockOperator(client: PoolClient, id: string): Promise<OperatorRow | null> {
  const { rows } = await client.query<OperatorRow>(`SELECT ${COLUMNS} FROM operators WHERE id = $1 FOR UPDATE`, [id]);
  return rows[0] ?? null;
}

async function revokeSessions(client: PoolClient, operatorId: string): Promise<void> {
  await client.query('UPDATE oauth_tokens SET revoked_at = now() WHERE operator_id = $1 AND revoked_at IS NULL', [operatorId]);
  await client.query('UPDATE oauth_codes SET used_at = now() WHERE operator_id = $1 AND used_at IS NULL', [operatorId]);
}

export async function recordChange(
  db: Pool | PoolClient, operatorId: string, action: OperatorAction, by: ChangeAuthor, before: Record<string, unknown>, after: Record<string, unknown>,
): Promise<void> {
  await db.query(
    'INSERT INTO operator_changes (operator_id, action, credential_id, principal, auth_kind, before, after) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [operatorId, action, by.credentialId, by.principal, by.kind, before, after],
  );
}

export interface OperatorUpdate {
  scopes?: Scope[];
  disabled?: boolean;
}

/**
 * Applies a scope change and/or disable/enable. Returns the operator as now stored, or null when no such
 * operator exists. A field equal to what is stored changes nothing and records nothing.
 */
export async function updateOperator(pool: Pool, id: string, update: OperatorUpdate, by: ChangeAuthor): Promise<OperatorView | null> {
  return inTransaction(pool, async (client) => {
    const current = await lockOperator(client, id);
    if (!current) return null;
    let revoke = false;
    if (update.scopes !== undefined && !sameSet(update.scopes, current.scopes)) {
      await client.query('UPDATE operators SET scopes = $2 WHERE id = $1', [id, update.scopes]);
      await recordChange(client, id, 'scopes', by, { scopes: current.scopes }, { scopes: update.scopes });
      revoke = true;
    }
    if (update.disabled !== undefined && update.disabled !== (current.disabled_at !== null)) {
      await client.query('UPDATE operators SET disabled_at = CASE WHEN $2 THEN now() END WHERE id = $1', [id, update.disabled]);
      await recordChange(client, id, update.disabled ? 'disable' : 'enable', by, { disabled: !update.disabled }, { disabled: update.disabled });
      revoke ||= update.disabled;
    }
    if (revoke) await revokeSessions(client, id);
    const { rows } = await client.query<OperatorRow>(`SELECT ${COLUMNS} FROM operators WHERE id = $1`, [id]);
    return toView(rows[0]!);
  });
}

/** Sets a new password (already hashed by the caller) and ends every session of the operator. False: no such operator. */
export async function resetPassword(pool: Pool, id: string, passwordHash: string, by: ChangeAuthor): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    if (!(await lockOperator(client, id))) return false;
    await client.query('UPDATE operators SET password_hash = $2 WHERE id = $1', [id, passwordHash]);
    await recordChange(client, id, 'reset_password', by, { password: 'previous' }, { password: 'reset' });
    await revokeSessions(client, id);
    return true;
  });
}

/** An operator's audited changes, newest first. */
export async function listChanges(pool: Pool, operatorId: string, page: number, perPage: number): Promise<{ items: OperatorChangeRecord[]; total: number }> {
  const { rows } = await pool.query<{ id: string; operator_id: string; changed_at: Date; action: OperatorAction; credential_id: string; principal: string; auth_kind: ChangeAuthor['kind']; before: Record<string, unknown>; after: Record<string, unknown> }>(
    `SELECT id, operator_id, changed_at, action, credential_id, principal, auth_kind, before, after FROM operator_changes
     WHERE operator_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`,
    [operatorId, perPage, (page - 1) * perPage],
  );
  const { rows: count } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM operator_changes WHERE operator_id = $1', [operatorId]);
  return {
    items: rows.map((r) => ({
      id: Number(r.id), operator_id: r.operator_id, changed_at: r.changed_at.toISOString(), action: r.action,
      changed_by: { credential_id: r.credential_id, principal: r.principal, auth_kind: r.auth_kind }, before: r.before, after: r.after,
    })),
    total: Number(count[0]?.n ?? 0),
  };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s) => b.includes(s));
}
