// Issue 23, part E: which command carries out each automated decision, override and gate lock, that its
// id is derived from its cause, and that every command (and every command of the first version) is valid
// against the topic's schema; the retry schedule.
import { Ajv } from 'ajv';
import formats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { findingsOf } from '../../../../ingest/gate/readings.ts';
import { commandRetryDelayMs, COMMAND_RETRY_DELAYS_MS } from '../../../../processors/gate/command-schedule.ts';
import { decisionAction, decisionCommand, gateLockCommand, gateReleaseCommand, overrideCommand } from '../../../../processors/gate/commands.ts';
import { DEFAULT_THRESHOLDS } from '../../../../processors/gate/decision.ts';
import { DEFAULT_RISK_RULES } from '../../../../processors/gate/risk.ts';
import { buildTransaction } from '../../../../processors/gate/transaction.ts';
import { gateCommandSchema } from '../../../../schemas/gate-transaction.ts';
import type { GateReading } from '../../../../schemas/gate-reading.ts';
import { reading } from '../../../support/gate-readings.ts';

const ajv = new Ajv({ strict: false });
formats.default(ajv);
const valid = ajv.compile({ ...gateCommandSchema, $id: undefined });

const APPOINTMENT = { appointment_id: 'apt-551', plate: 'AB123CD', carrier: 'Nordic Haulage', container_id: 'CSQU3054383', iso_type: '22G1', seal_number: 'SL-778812', weight_declared_kg: 18_200 };
const OPTIONS = { thresholds: DEFAULT_THRESHOLDS, risk: DEFAULT_RISK_RULES, appointments: { site: 'required' as const, byGate: {} } };
const base = reading().container!;

function transaction(id: string, overrides: Partial<GateReading>, booked = true) {
  const r = reading({ reading_id: id, inspection: { damage_regions: [], images: [] }, ...overrides });
  const record = { ...r, source: 'test', received_at: '2025-03-01T08:30:00.000Z', findings: findingsOf(r) };
  return buildTransaction(record, { appointment: booked ? APPOINTMENT : undefined, required: true }, OPTIONS, Date.parse('2025-03-01T08:30:00.200Z'));
}

describe('commands for automated decisions', () => {
  it('opens for an approved truck and keeps the barrier down for every other status', () => {
    expect(decisionAction('approved')).toBe('open');
    expect(decisionAction('flagged')).toBe('hold');
    expect(decisionAction('held')).toBe('hold');
    expect(decisionAction('rejected')).toBe('hold');
  });

  it('carries out each decision on its lane, with the status, the rule and an id derived from the transaction', () => {
    const cases = [
      { tx: transaction('rd-clean', {}), status: 'approved', action: 'open' },
      { tx: transaction('rd-seal', { container: { ...base, seal: { ...base.seal!, status: 'broken' } } }), status: 'held', action: 'hold' },
      { tx: transaction('rd-unbooked', {}, false), status: 'flagged', action: 'hold' },
      { tx: transaction('rd-bad', { container: { ...base, id: 'MSCU1234565', seal: { ...base.seal!, status: 'tampered' } } }), status: 'rejected', action: 'hold' },
    ];
    for (const { tx, status, action } of cases) {
      expect(tx.status).toBe(status);
      const command = decisionCommand(tx, 'system:gate-processor');
      expect(command).toEqual({
        command_id: `cmd_${tx.id}_decision`, gate: 'gate-north', lane: 'lane-2', action, transaction_id: tx.id, issued_at: tx.createdAt,
        issued_by: 'system:gate-processor', reason: tx.verdict.rule, origin: 'decision', transaction_status: status,
      });
      expect(valid(command), JSON.stringify(valid.errors)).toBe(true);
    }
    // The same reading decided again (a replay) names the same command; another reading another one.
    expect(decisionCommand(transaction('rd-clean', {}), 'x').command_id).toBe(decisionCommand(cases[0]!.tx, 'y').command_id);
    expect(new Set(cases.map((c) => decisionCommand(c.tx, 'x').command_id)).size).toBe(cases.length);
  });
});

describe('override and lock commands', () => {
  it('carries out an override with the operator, the reason and its fixed id', () => {
    const result = { id: 'gtx_1', status: 'overridden' as const, previous_decision: 'manual_review', new_decision: 'approved' as const, overridden_by: 'op-17', overridden_at: '2025-03-01T08:31:00.000Z', reason: 'Seal checked by hand', gate_action: 'open' as const, gate_action_executed: false };
    const command = overrideCommand(result, { gate: 'G1', lane: 'L2' });
    expect(command).toEqual({ command_id: 'cmd_gtx_1_override', gate: 'G1', lane: 'L2', action: 'open', transaction_id: 'gtx_1', issued_at: result.overridden_at, issued_by: 'op-17', reason: 'Seal checked by hand', origin: 'override', transaction_status: 'overridden' });
    expect(valid(command)).toBe(true);
  });

  it('locks every lane of a gate, naming its cause, with one id per action and gate', () => {
    const lock = { gate: 'G1', actionId: 'act_1', reason: 'Vessel in Holmen naval base', issuedAt: '2025-03-01T08:31:00.000Z', issuedBy: 'system:response', incidentId: 'inc_1', eventId: 'evt_1' };
    const command = gateLockCommand(lock);
    expect(command).toMatchObject({ gate: 'G1', lane: '*', action: 'lock', origin: 'response', reason: lock.reason, cause: { action_id: 'act_1', incident_id: 'inc_1', event_id: 'evt_1' } });
    expect(command).not.toHaveProperty('transaction_id');
    expect(valid(command), JSON.stringify(valid.errors)).toBe(true);
    expect(gateLockCommand({ ...lock, issuedAt: '2026-01-01T00:00:00Z' }).command_id).toBe(command.command_id);
    expect(gateLockCommand({ ...lock, gate: 'G2' }).command_id).not.toBe(command.command_id);
    expect(gateLockCommand({ ...lock, actionId: 'act_2' }).command_id).not.toBe(command.command_id);
    expect(valid(gateLockCommand({ gate: 'G1', actionId: 'a', reason: 'r', issuedAt: lock.issuedAt, issuedBy: 'op' }))).toBe(true);
  });

  it('releases a whole-gate lock once per lock: its id is derived from the lock command, the lock named in its cause', () => {
    const lock = gateLockCommand({ gate: 'G1', actionId: 'act_1', reason: 'zone_entry evt_1', issuedAt: '2026-11-28T14:00:00.000Z', issuedBy: 'system:response', incidentId: 'inc_1' });
    const release = gateReleaseCommand({ gate: 'G1', lockCommandId: lock.command_id, reason: 'Threat cleared by the duty officer', issuedAt: '2026-11-28T14:10:00.000Z', issuedBy: 'op-7', actionId: 'act_1', incidentId: 'inc_1' });
    expect(release).toMatchObject({ gate: 'G1', lane: '*', action: 'release', origin: 'release', issued_by: 'op-7', cause: { lock_command_id: lock.command_id, action_id: 'act_1', incident_id: 'inc_1' } });
    expect(release.command_id).toMatch(/^cmd_release_[0-9a-f]{32}$/);
    expect(gateReleaseCommand({ gate: 'G1', lockCommandId: lock.command_id, reason: 'another reason, retried', issuedAt: '2026-11-28T14:11:00.000Z', issuedBy: 'op-8' }).command_id).toBe(release.command_id);
    expect(gateReleaseCommand({ gate: 'G1', lockCommandId: 'cmd_lock_other', reason: 'r', issuedAt: '2026-11-28T14:11:00.000Z', issuedBy: 'op-8' }).command_id).not.toBe(release.command_id);
    expect(valid(release), JSON.stringify(valid.errors)).toBe(true);
  });

  it('still accepts a command of the first version, and refuses a lane command without its transaction', () => {
    const first = { command_id: 'cmd_gtx_1_override', gate: 'G1', lane: 'L2', action: 'hold', transaction_id: 'gtx_1', issued_at: '2025-03-01T08:31:00Z', issued_by: 'op-1', reason: 'r' };
    expect(valid(first)).toBe(true);
    const { transaction_id: _t, ...laneWithout } = first;
    expect(valid(laneWithout)).toBe(false);
    expect(valid({ ...first, action: 'explode' })).toBe(false);
  });
});

describe('the retry schedule', () => {
  it('waits 1, 2, 5, 10 and 30 s after the first failures, then a minute after every later one', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 100].map(commandRetryDelayMs)).toEqual([1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 60_000, 60_000]);
    expect(commandRetryDelayMs(0)).toBe(COMMAND_RETRY_DELAYS_MS[0]);
  });
});
