// POST /v1/transactions/{id}/override (spec rules 1-4): who may override what (pure), and the override
// itself. The transaction's row is locked (SELECT ... FOR UPDATE) for the check and the change, so of
// two overrides racing on one transaction exactly one finds it flagged, held or rejected; the other
// finds it overridden and gets resource_conflict. The change, its audit entry and its events commit
// together; then the gate command goes to gate.commands, and gate_action_executed says whether Kafka
// acknowledged it in time (a second audit entry records the outcome).
import { storeEvents } from '../../events/store.ts';
import { AppError } from '../../platform/errors.ts';
import type { ServiceContext } from '../../platform/context.ts';
import { inTransaction } from '../../platform/postgres.ts';
import type { GateAction, GateCommand, OverrideBody, OverrideDecision, OverrideResult } from '../../schemas/gate-transaction.ts';
import { overrideEvents } from './gate-events.ts';
import { appendAudit } from './store.ts';

/** The action matching a decision: an approved truck passes, a rejected one is held at the barrier (not locked: locking is for a threat, and is asked for explicitly). */
export function defaultGateAction(decision: OverrideDecision): GateAction {
  return decision === 'approved' ? 'open' : 'hold';
}

/** undefined when the override may go ahead; else the conflict message (spec: names the transaction and its status). */
export function overrideRefusal(id: string, status: string, isAdmin: boolean): string | undefined {
  if (status === 'flagged' || status === 'held') return undefined;
  if (status === 'rejected') return isAdmin ? undefined : `Transaction ${id} is rejected: only a caller with the admin scope can override a rejected transaction`;
  return `Transaction ${id} is ${status}: only flagged or held transactions can be overridden`;
}

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
    if (refusal !== undefined) throw new AppError('resource_conflict', refusal, { transaction_id: id, status: row.status });
    const result: OverrideResult = {
      id, status: 'overridden', previous_decision: row.decision, new_decision: body.decision, overridden_by: body.operator_id,
      overridden_at: overriddenAt, reason: body.reason, gate_action: gateAction, gate_action_executed: false,
    };
    const override = { ...result, previous_status: row.status, ...(body.notes === undefined ? {} : { notes: body.notes }), credential_id: caller.credentialId };
    await client.query(
      `UPDATE gate_transactions SET status = 'overridden', decision = $2, operator = $3, completed_at = $4, override = $5 WHERE id = $1`,
      [id, body.decision, body.operator_id, overriddenAt, JSON.stringify(override)],
    );
    await appendAudit(client, [{
      transactionId: id, action: 'override', at: overriddenAt, actor: body.operator_id,
      details: { previous_status: row.status, previous_decision: row.decision, new_decision: body.decision, reason: body.reason, gate_action: gateAction, credential_id: caller.credentialId, ...(body.notes === undefined ? {} : { notes: body.notes }) },
      rule: row.status === 'rejected' ? 'override of a rejected transaction (admin scope)' : `override of a ${row.status} transaction (transactions:write)`,
    }]);
    const events = await storeEvents(client, overrideEvents(result, { gate: row.gate, lane: row.lane, ...(body.notes === undefined ? {} : { notes: body.notes }) }));
    return { result, gate: row.gate, lane: row.lane, events: events.length };
  });
  if (outcome.events > 0) ctx.relay.wake();

  const command: GateCommand = {
    command_id: `cmd_${id}_override`, gate: outcome.gate, lane: outcome.lane, action: gateAction, transaction_id: id,
    issued_at: overriddenAt, issued_by: body.operator_id, reason: body.reason,
  };
  const executed = await sendCommand(ctx, command);
  await inTransaction(ctx.pool, async (client) => {
    await client.query(`UPDATE gate_transactions SET override = override || jsonb_build_object('gate_action_executed', $2::boolean) WHERE id = $1`, [id, executed]);
    await appendAudit(client, [{
      transactionId: id, action: executed ? 'gate_command_acknowledged' : 'gate_command_failed', at: new Date().toISOString(), actor: 'system:gate-commands',
      details: { command_id: command.command_id, gate_action: gateAction, gate: command.gate, lane: command.lane },
    }]);
  });
  return { ...outcome.result, gate_action_executed: executed };
}

/** True once Kafka acknowledged the command within the configured time. */
async function sendCommand(ctx: Pick<ServiceContext, 'producer' | 'topics' | 'codec' | 'config' | 'log'>, command: GateCommand): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ctx.config.gateCommandAckTimeoutMs)));
  const sent = ctx.producer
    .send([{ topic: ctx.topics.gateCommands, key: command.gate, value: ctx.codec.encode('gateCommands', command) }])
    .then(() => true as const)
    .catch((err: unknown) => {
      ctx.log.error({ err, command_id: command.command_id }, 'gate command not acknowledged by Kafka');
      return false as const;
    });
  try {
    return await Promise.race([sent, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
