// The Postgres side of the gate command outbox (migration 0023): commands written in their cause's
// transaction, claimed a gate at a time by a sender (command-sender.ts), and their outcome recorded with
// the transaction's audit entries. A gate's commands go out in the order they were written: a sender
// claims a gate by locking its oldest unsent command (FOR UPDATE SKIP LOCKED), and only then the others,
// so two senders never hold one gate and a later command never overtakes an earlier one that is waiting
// for its retry (a hold sent after the override's open would keep the truck at the barrier).
import { counter } from '../../platform/metrics.ts';
import { deleteInBatches, type Pool, type PoolClient } from '../../platform/postgres.ts';
import type { GateCommand } from '../../schemas/gate-transaction.ts';
import type { AuditEntry } from './audit-chain.ts';
import { commandRetryDelayMs } from './command-schedule.ts';
import { appendAudit } from './store.ts';

/** NOTIFY after a commit that wrote commands: every instance's sender wakes (command-sender.ts). */
export const GATE_COMMANDS_CHANNEL = 'pss_gate_commands';
/** The actor of the command audit entries. */
export const COMMANDS_ACTOR = 'system:gate-commands';

const expired = counter('pss_gate_commands_expired_total', 'Sent gate commands deleted from the outbox by retention');

/**
 * Writes commands in the caller's transaction, in the given order; a command_id already written is left
 * alone (its cause was seen before). Returns how many were new. `firstAttemptInMs` keeps the senders away
 * for that long: the override's API makes the first attempt itself, with an operator waiting.
 */
export async function enqueueGateCommands(client: PoolClient, commands: readonly GateCommand[], firstAttemptInMs = 0): Promise<number> {
  if (commands.length === 0) return 0;
  const { rowCount } = await client.query(
    `INSERT INTO gate_command_outbox (command_id, gate_id, lane, origin, transaction_id, command, next_attempt_at)
     SELECT c->>'command_id', c->>'gate', c->>'lane', coalesce(c->>'origin', 'override'), c->>'transaction_id', c, now() + make_interval(secs => $2::double precision / 1000)
       FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t(c, n)
      ORDER BY n
     ON CONFLICT (command_id) DO NOTHING`,
    [JSON.stringify(commands), firstAttemptInMs],
  );
  const added = rowCount ?? 0;
  if (added > 0) await client.query('SELECT pg_notify($1, $2)', [GATE_COMMANDS_CHANNEL, '']);
  return added;
}

/** One command for the caller's transaction (the response loop's lock_gates); false when its id was already written. */
export async function enqueueGateCommand(client: PoolClient, command: GateCommand): Promise<boolean> {
  return (await enqueueGateCommands(client, [command])) === 1;
}

/** An unsent command, locked for the caller's transaction; `json` as stored, forwarded without parsing. */
export interface PendingCommand {
  commandId: string;
  gate: string;
  lane: string;
  action: string;
  origin: string;
  transactionId: string | null;
  /** Failed attempts so far. */
  attempts: number;
  json: string;
}

interface PendingRow {
  command_id: string;
  gate_id: string;
  lane: string;
  action: string;
  origin: string;
  transaction_id: string | null;
  attempts: number;
  command: string;
}

const pendingOf = (r: PendingRow): PendingCommand => ({
  commandId: r.command_id, gate: r.gate_id, lane: r.lane, action: r.action, origin: r.origin, transactionId: r.transaction_id, attempts: r.attempts, json: r.command,
});

/**
 * Claims up to `gates` gates whose oldest unsent command is due (its head is locked SKIP LOCKED, so gates
 * another sender holds are passed over), and returns their unsent commands in order, at most `limit`.
 */
export async function claimDueGates(client: PoolClient, gates: number, limit: number): Promise<PendingCommand[]> {
  const { rows: heads } = await client.query<{ gate_id: string }>(
    `SELECT o.gate_id FROM gate_command_outbox AS o
      WHERE o.command_id IN (SELECT DISTINCT ON (gate_id) command_id FROM gate_command_outbox WHERE sent_at IS NULL ORDER BY gate_id, seq)
        AND o.sent_at IS NULL AND o.next_attempt_at <= clock_timestamp()
      ORDER BY o.next_attempt_at
      LIMIT $1
        FOR UPDATE OF o SKIP LOCKED`,
    [gates],
  );
  return heads.length === 0 ? [] : lockUnsent(client, heads.map((h) => h.gate_id), limit);
}

/** The unsent commands of gates whose head the caller holds, in order (up to `upToSeq` when given). */
async function lockUnsent(client: PoolClient, gates: string[], limit: number, upToSeq?: string): Promise<PendingCommand[]> {
  const { rows } = await client.query<PendingRow>(
    `SELECT command_id, gate_id, lane, command->>'action' AS action, origin, transaction_id, attempts, command::text AS command
       FROM gate_command_outbox
      WHERE gate_id = ANY($1::text[]) AND sent_at IS NULL AND ($3::bigint IS NULL OR seq <= $3::bigint)
      ORDER BY seq
      LIMIT $2
        FOR UPDATE`,
    [gates, limit, upToSeq ?? null],
  );
  return rows.map(pendingOf);
}

/**
 * For a caller that must send one command now (the override's API): waits up to `waitMs` for its gate's
 * head, then locks the gate's unsent commands up to and including it. 'sent' when it was sent meanwhile
 * (by a sender that held the gate), 'unknown' when there is no such command.
 */
export async function claimThrough(client: PoolClient, commandId: string, waitMs: number): Promise<PendingCommand[] | 'sent' | 'unknown'> {
  await client.query(`SELECT set_config('lock_timeout', $1, true)`, [`${Math.max(1, Math.round(waitMs))}ms`]);
  const mine = async () => (await client.query<{ gate_id: string; seq: string; sent: boolean }>('SELECT gate_id, seq::text, sent_at IS NOT NULL AS sent FROM gate_command_outbox WHERE command_id = $1', [commandId])).rows[0];
  const before = await mine();
  if (before === undefined) return 'unknown';
  if (before.sent) return 'sent';
  await client.query('SELECT command_id FROM gate_command_outbox WHERE gate_id = $1 AND sent_at IS NULL ORDER BY seq LIMIT 1 FOR UPDATE', [before.gate_id]);
  const claimed = await lockUnsent(client, [before.gate_id], 10_000, before.seq);
  // The wait bound was for the claim only: recording the outcome (the audit chain's lock) may wait as usual.
  await client.query('SET LOCAL lock_timeout = DEFAULT');
  if (claimed.some((c) => c.commandId === commandId)) return claimed;
  return (await mine())?.sent ? 'sent' : 'unknown';
}

const auditOf = (c: PendingCommand & { transactionId: string }, action: string, at: string, extra: Record<string, unknown>): AuditEntry => ({
  transactionId: c.transactionId, action, at, actor: COMMANDS_ACTOR,
  details: { command_id: c.commandId, gate_action: c.action, gate: c.gate, lane: c.lane, ...extra },
});

const ofTransaction = (c: PendingCommand): c is PendingCommand & { transactionId: string } => c.transactionId !== null;

/**
 * Kafka acknowledged these: marked sent, an override's `gate_action_executed` set, and the transaction's
 * audit trail told `gate_command_acknowledged` where someone waits to know (an override) or where a failure
 * was recorded before. An automated decision's command acknowledged at its first attempt adds no entry:
 * it would double the chain's writes per reading; its sent_at stays here for 7 days.
 */
export async function recordSent(client: PoolClient, sent: readonly PendingCommand[], at: Date): Promise<void> {
  await client.query('UPDATE gate_command_outbox SET sent_at = clock_timestamp(), attempts = attempts + 1 WHERE command_id = ANY($1::text[])', [sent.map((c) => c.commandId)]);
  const overridden = sent.filter((c) => c.origin === 'override' && c.transactionId !== null).map((c) => c.transactionId);
  if (overridden.length > 0) {
    await client.query(`UPDATE gate_transactions SET override = override || '{"gate_action_executed": true}'::jsonb WHERE id = ANY($1::text[]) AND override IS NOT NULL`, [overridden]);
  }
  const told = sent.filter(ofTransaction).filter((c) => c.origin === 'override' || c.attempts > 0);
  await appendAudit(client, told.map((c) => auditOf(c, 'gate_command_acknowledged', at.toISOString(), { attempt: c.attempts + 1 })));
}

/**
 * Kafka did not acknowledge these: each is due again after its retry delay (command-schedule.ts), and a
 * transaction's first failure is audited as `gate_command_failed` (later ones are counted on the row, not
 * audited: the trail says once that the lane was not told, then when it was).
 */
export async function recordFailed(client: PoolClient, failed: readonly PendingCommand[], error: string, at: Date): Promise<void> {
  await client.query(
    `UPDATE gate_command_outbox AS o SET attempts = o.attempts + 1, last_error = $3, next_attempt_at = clock_timestamp() + make_interval(secs => f.delay_ms / 1000)
       FROM unnest($1::text[], $2::double precision[]) AS f(command_id, delay_ms)
      WHERE o.command_id = f.command_id`,
    [failed.map((c) => c.commandId), failed.map((c) => commandRetryDelayMs(c.attempts + 1)), error.slice(0, 2_000)],
  );
  const first = failed.filter(ofTransaction).filter((c) => c.attempts === 0);
  await appendAudit(client, first.map((c) => auditOf(c, 'gate_command_failed', at.toISOString(), { attempt: 1, error: error.slice(0, 500), retried: true })));
}

/** Seconds since the oldest unsent command was written; 0 when none waits. */
export async function oldestUnsentSeconds(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ age: number | null }>('SELECT extract(epoch FROM now() - min(created_at))::float8 AS age FROM gate_command_outbox WHERE sent_at IS NULL');
  return Math.max(0, rows[0]?.age ?? 0);
}

/** Deletes commands sent more than `days` days ago, a batch at a time; returns how many. */
export function expireSentCommands(pool: Pool, days: number, batchSize = 5_000): Promise<number> {
  return deleteInBatches(
    pool,
    `DELETE FROM gate_command_outbox WHERE command_id IN (
       SELECT command_id FROM gate_command_outbox WHERE sent_at < now() - make_interval(days => $1) LIMIT $2)`,
    [days],
    batchSize,
    expired,
  );
}
