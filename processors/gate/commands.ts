// The commands the gate sends its lane controllers (gate.commands), built from their causes (pure). Each
// command_id is derived from its cause, so the cause seen again (a replayed reading, a retried response
// action) names the same command and the outbox (command-outbox.ts) keeps one. docs/gate.md "Gate commands".
import { createHash } from 'node:crypto';
import { ALL_LANES, type GateAction, type GateCommand, type OverrideResult, type TransactionStatus } from '../../schemas/gate-transaction.ts';
import type { NewTransaction } from './transaction.ts';

/**
 * The barrier for an automated decision: an approved truck passes; every other truck stays at the barrier
 * (held or flagged: until an officer's override opens it or turns it away; rejected: it does not enter).
 * Never `lock`: a lock closes every lane and is asked for by an operator or a response action.
 */
export function decisionAction(status: NewTransaction['status']): GateAction {
  return status === 'approved' ? 'open' : 'hold';
}

/** The command that carries out an automated decision (one per transaction). */
export function decisionCommand(tx: NewTransaction, issuedBy: string): GateCommand {
  return {
    command_id: `cmd_${tx.id}_decision`, gate: tx.gate, lane: tx.lane, action: decisionAction(tx.status), transaction_id: tx.id,
    issued_at: tx.createdAt, issued_by: issuedBy, reason: tx.verdict.rule, origin: 'decision', transaction_status: tx.status,
  };
}

/** The command that carries out an override; a transaction is overridden at most once, so its id is fixed. */
export function overrideCommand(result: OverrideResult, where: { gate: string; lane: string }): GateCommand {
  return {
    command_id: `cmd_${result.id}_override`, gate: where.gate, lane: where.lane, action: result.gate_action, transaction_id: result.id,
    issued_at: result.overridden_at, issued_by: result.overridden_by, reason: result.reason, origin: 'override', transaction_status: 'overridden' satisfies TransactionStatus,
  };
}

/** A lock of a whole gate by a response action (lock_gates): one command per gate. */
export interface GateLock {
  gate: string;
  /** The response action's id: derived from its cause, so a replayed action names the same command. */
  actionId: string;
  reason: string;
  issuedAt: string;
  issuedBy: string;
  incidentId?: string;
  eventId?: string;
}

export function gateLockCommand(lock: GateLock): GateCommand {
  return {
    command_id: `cmd_lock_${createHash('sha256').update(`${lock.actionId}:${lock.gate}`).digest('hex').slice(0, 32)}`,
    gate: lock.gate, lane: ALL_LANES, action: 'lock', issued_at: lock.issuedAt, issued_by: lock.issuedBy, reason: lock.reason, origin: 'response',
    cause: { action_id: lock.actionId, ...(lock.incidentId === undefined ? {} : { incident_id: lock.incidentId }), ...(lock.eventId === undefined ? {} : { event_id: lock.eventId }) },
  };
}

/** An operator's release of a gate's whole-gate lock (issue 34): at most one per lock, so its id is derived from the lock's command. */
export interface GateRelease {
  gate: string;
  lockCommandId: string;
  reason: string;
  issuedAt: string;
  issuedBy: string;
  actionId?: string | null;
  incidentId?: string | null;
}

export function gateReleaseCommand(release: GateRelease): GateCommand {
  return {
    command_id: `cmd_release_${createHash('sha256').update(release.lockCommandId).digest('hex').slice(0, 32)}`,
    gate: release.gate, lane: ALL_LANES, action: 'release', issued_at: release.issuedAt, issued_by: release.issuedBy, reason: release.reason, origin: 'release',
    cause: {
      lock_command_id: release.lockCommandId,
      ...(release.actionId == null ? {} : { action_id: release.actionId }), ...(release.incidentId == null ? {} : { incident_id: release.incidentId }),
    },
  };
}
