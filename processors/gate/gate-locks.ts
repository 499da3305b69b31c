// Whole-gate lock state and its release (issue 34; migration 0032). A lock (the response loop's lock_gate,
// response/executors/lock-gate.ts) and a release (an operator, through the API or `pss gates release`)
// each take the gate's gate_locks row lock before writing their command to the command outbox, in one
// transaction with the row's change. So the gate's commands reach gate.commands in the order the changes
// committed, and the lane ends in the state the row shows: a release that commits after a lock lifts it;
// a lock that commits after a release locks the gate again. docs/gate.md "Locks and their release".
import { AppError } from '../../platform/errors.ts';
import { inTransaction, type Pool, type PoolClient } from '../../platform/postgres.ts';
import type { GateCommand } from '../../schemas/gate-transaction.ts';
import type { GateLockState } from '../../schemas/gate-lock.ts';
import { enqueueGateCommands } from './command-outbox.ts';
import { gateReleaseCommand } from './commands.ts';

/**
 * Records whole-gate locks in the caller's transaction, before their commands are written (the row lock
 * orders them against a release). Call with the lock commands themselves (gateLockCommand).
 */
export async function recordGateLocks(client: PoolClient, locks: readonly GateCommand[]): Promise<void> {
  if (locks.length === 0) return;
  // One statement for the batch; a gate named twice in one batch keeps its last lock (rows sorted by gate so
  // concurrent batches take their row locks in the same order and cannot deadlock).
  const rows = [...new Map(locks.map((c) => [c.gate, c])).values()].sort((a, b) => (a.gate < b.gate ? -1 : a.gate > b.gate ? 1 : 0));
  await client.query(
    `INSERT INTO gate_locks (gate_id, locked, lock_command_id, action_id, reason, locked_at)
     SELECT c->>'gate', true, c->>'command_id', c->'cause'->>'action_id', c->>'reason', (c->>'issued_at')::timestamptz
       FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t(c, n) ORDER BY n
     ON CONFLICT (gate_id) DO UPDATE SET locked = true, lock_command_id = excluded.lock_command_id, action_id = excluded.action_id,
       reason = excluded.reason, locked_at = excluded.locked_at, released_at = NULL, released_by = NULL, release_reason = NULL,
       release_command_id = NULL, release_credential = NULL`,
    [JSON.stringify(rows)],
  );
}

interface LockRow {
  gate_id: string;
  locked: boolean;
  lock_command_id: string;
  action_id: string | null;
  incident_id: string | null;
  reason: string;
  locked_at: Date;
  released_at: Date | null;
  released_by: string | null;
  release_reason: string | null;
  release_command_id: string | null;
}

const stateOf = (r: LockRow): GateLockState => ({
  gate_id: r.gate_id, locked: r.locked, locked_at: r.locked_at.toISOString(), lock_reason: r.reason, lock_command_id: r.lock_command_id,
  action_id: r.action_id, incident_id: r.incident_id,
  released_at: r.released_at?.toISOString() ?? null, released_by: r.released_by, release_reason: r.release_reason, release_command_id: r.release_command_id,
});

const SELECT_LOCKS = `SELECT l.gate_id, l.locked, l.lock_command_id, l.action_id, a.incident_id, l.reason, l.locked_at, l.released_at, l.released_by, l.release_reason, l.release_command_id
  FROM gate_locks AS l LEFT JOIN response_actions AS a ON a.id = l.action_id`;

/** Every gate ever locked: locked ones first, then by gate. A gate never locked has no entry. */
export async function listGateLocks(pool: Pool): Promise<GateLockState[]> {
  const { rows } = await pool.query<LockRow>(`${SELECT_LOCKS} ORDER BY l.locked DESC, l.gate_id`);
  return rows.map(stateOf);
}

export interface ReleaseRequest {
  gate: string;
  reason: string;
  /** Who released it (the operator's username, or the key's name). */
  releasedBy: string;
  credentialId: string;
}

/**
 * Releases the gate's whole-gate lock: 404 when the gate was never locked, 409 when it is not locked now
 * (released already: a second release, or one racing with another, finds it released). Writes the release
 * command (id derived from the lock's command: one per lock) and its audit row in one transaction, and
 * wakes the senders (NOTIFY). Returns the command for the caller's first attempt; `firstAttemptInMs` keeps
 * the senders away meanwhile (as for an override).
 */
export async function releaseGateLock(pool: Pool, request: ReleaseRequest, firstAttemptInMs = 0, now = new Date()): Promise<{ result: GateLockState; command: GateCommand }> {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query<LockRow>(`${SELECT_LOCKS} WHERE l.gate_id = $1 FOR UPDATE OF l`, [request.gate]);
    const row = rows[0];
    if (row === undefined) throw new AppError('not_found', `Gate ${request.gate} has no lock`);
    if (!row.locked) {
      throw new AppError('resource_conflict', `Gate ${request.gate} is not locked: released ${row.released_at?.toISOString() ?? ''} by ${row.released_by ?? ''}`, { gate_id: request.gate, locked: false });
    }
    const command = gateReleaseCommand({
      gate: request.gate, lockCommandId: row.lock_command_id, reason: request.reason, issuedAt: now.toISOString(), issuedBy: request.releasedBy, actionId: row.action_id, incidentId: row.incident_id,
    });
    await client.query(
      `UPDATE gate_locks SET locked = false, released_at = $2, released_by = $3, release_reason = $4, release_command_id = $5, release_credential = $6 WHERE gate_id = $1`,
      [request.gate, now, request.releasedBy, request.reason, command.command_id, request.credentialId],
    );
    await client.query(
      `INSERT INTO gate_lock_releases (command_id, gate_id, lock_command_id, action_id, incident_id, released_at, released_by, reason, credential_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [command.command_id, request.gate, row.lock_command_id, row.action_id, row.incident_id, now, request.releasedBy, request.reason, request.credentialId],
    );
    await enqueueGateCommands(client, [command], firstAttemptInMs);
    const result = stateOf({ ...row, locked: false, released_at: now, released_by: request.releasedBy, release_reason: request.reason, release_command_id: command.command_id });
    return { result, command };
  });
}
