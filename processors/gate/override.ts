// POST /v1/transactions/{id}/override (spec rules 1-4): who may override what (pure), and the override
// itself. The transaction's row is locked (SELECT ... FOR UPDATE) for the check and the change, so of
// two overrides racing on one transaction exactly one finds it flagged, held or rejected; the other
// finds it overridden and gets resource_conflict. The change, its audit entry and its events commit
// together with the gate command, written to the command outbox (command-outbox.ts). After the commit this
// call makes the command's first attempt itself, and gate_action_executed says whether Kafka acknowledged
// it in time (the audit records gate_command_acknowledged or gate_command_failed); a command not
// acknowledged is retried by the processors' senders until it is (command-sender.ts).
import { storeEvents } from '../../events/store.ts';
import { AppError } from '../../platform/errors.ts';
import type { ServiceContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/postgres.ts';
import type { GateAction, OverrideBody, OverrideDecision, OverrideResult } from '../../schemas/gate-transaction.ts';
import { enqueueGateCommands } from './command-outbox.ts';
import { commandSenderDeps, deliverCommandNow } from './command-sender.ts';
import { overrideCommand } from './commands.ts';
import { overrideEvents } from './gate-events.ts';
import { appendAudit } from './store.ts';

/** The action matching a decision: an approved truck passes, a rejected one is held at the barrier (not locked: locking is for a threat, and is asked for explicitly). */
export function defaultGateAction(decision: OverrideDecision): GateAction {
  return decision === 'approved' ? 'open' : 'hold';
}

/** Why an override may not go ahead; its message names the transaction and its status (spec). */
export interface OverrideRefusal {
  /**
   * forbidden (403) when only the caller's scopes stand in the way: a rejected transaction, which a caller
   * with admin may override. The same request with another credential would succeed, so it is not a
   * conflict with the transaction's state (409, which resubmitting cannot resolve for this caller either):
   * it is the answer of every route to a missing finer scope (requireScope, docs/api.md "Errors").
   * resource_conflict (409) when no caller may: the status is past overriding.
   */
  code: 'forbidden' | 'resource_conflict';
  message: string;
}

/** undefined when the override may go ahead; else the refusal. */
export function overrideRefusal(id: string, status: string, isAdmin: boolean): OverrideRefusal | undefined {
  if (status === 'flagged' || status === 'held') return undefined;
  if (status === 'rejected') return isAdmin ? undefined : { code: 'forbidden', message: `Transaction ${id} is rejected: overriding a rejected transaction requires the admin scope` };
  return { code: 'resource_conflict', message: `Transaction ${id} is ${status}: only flagged or held transactions can be overridden` };
}

/** How long after the override's own attempt should have ended the senders may try its command. */
const FIRST_ATTEMPT_MARGIN_MS = 1_000;

export interface OverrideCaller {
  isAdmin: boolean;
  /** The credential that made the request (audit). */
  credentialId: string;
}

export async function overrideTransaction(ctx: Pick<ServiceContext, 'pool' | 'relay' | 'producer' | 'topics' | 'codec' | 'config' | 'log'>, id: string, body: OverrideBody, caller: OverrideCaller): Promise<OverrideResult> {
  const gateAction = body.gate_action ?? defaultGateAction(body.decision);
  const overriddenAt = new Date().toISOString();
  const outcome = await inTransaction(ctx.pool, async (client) => {
    const { rows } = await client.query<{ status: string; decision: string; gate: string; lane: string }>('SELECT status, decision, gate, lane FROM gate_transactions WHERE id = $1 FOR UPDATE', [id]);
    const row = rows[0];
    if (!row) throw new AppError('not_found', `Transaction ${id} does not exist`);
    const refusal = overrideRefusal(id, row.status, caller.isAdmin);
    if (refusal !== undefined) throw new AppError(refusal.code, refusal.message, { transaction_id: id, status: row.status });
    const result: OverrideResult = {
      id, status: 'overridden', previous_decision: row.decision, new_decision: body.decision, overridden_by: body.operator_id,
      overridden_at: overriddenAt, reason: body.reason, gate_action: gateAction, gate_action_executed: false,
    };
    const override = { ...result, previous_status: row.status, ...(body.notes === undefined ? {} : { notes: body.notes }), credential_id: caller.credentialId };
    await client.query(
      `UPDATE gate_transactions SET status = 'overridden', decision = $2, operator = $3, completed_at = $4, override = $5 WHERE id = $1`,
      [id, body.decision, body.operator_id, overriddenAt, JSON.stringify(override)],
    );
    // The senders leave it to this call's own attempt below, unless this instance dies before making it.
    const command = overrideCommand(result, { gate: row.gate, lane: row.lane });
    await enqueueGateCommands(client, [command], ctx.config.gateCommandAckTimeoutMs + FIRST_ATTEMPT_MARGIN_MS);
    await appendAudit(client, [{
      transactionId: id, action: 'override', at: overriddenAt, actor: body.operator_id,
      details: { previous_status: row.status, previous_decision: row.decision, new_decision: body.decision, reason: body.reason, gate_action: gateAction, credential_id: caller.credentialId, ...(body.notes === undefined ? {} : { notes: body.notes }) },
      rule: row.status === 'rejected' ? 'override of a rejected transaction (admin scope)' : `override of a ${row.status} transaction (transactions:write)`,
    }]);
    const events = await storeEvents(client, overrideEvents(result, { gate: row.gate, lane: row.lane, ...(body.notes === undefined ? {} : { notes: body.notes }) }));
    return { result, command, events: events.length };
  });
  if (outcome.events > 0) ctx.relay.wake();
  const executed = await deliverCommandNow(commandSenderDeps(ctx), outcome.command.command_id);
  return { ...outcome.result, gate_action_executed: executed };
}
