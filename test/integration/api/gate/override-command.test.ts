// An override whose gate command Kafka does not acknowledge: the override stands (it is committed), the
// answer says gate_action_executed false, and the audit trail records gate_command_failed. The API instance
// reaches the broker through a proxy that stays cut, so it can never deliver the command itself; the
// command stays in the outbox and another instance's processors role delivers it (issue 23).
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { authFeature, gateFeature } from '../../../../app/features.ts';
import { startService } from '../../../../app/service.ts';
import { findingsOf } from '../../../../ingest/gate/readings.ts';
import { topicSpecs } from '../../../../platform/topics.ts';
import { processReadings } from '../../../../processors/gate/gate-processor.ts';
import { DEFAULT_THRESHOLDS } from '../../../../processors/gate/decision.ts';
import { DEFAULT_RISK_RULES } from '../../../../processors/gate/risk.ts';
import { reading } from '../../../support/gate-readings.ts';
import { startKafkaProxy, type KafkaProxy } from '../../../support/kafka-proxy.ts';
import { call, startTestService, type TestService } from '../../../support/service.ts';
import { valueOf } from '../../../support/codec.ts';
import { consumeUntil, testConfig, testLog, unique, withAdmin } from '../../../support/stack.ts';

/** Each audit entry's action, with the command it is about. */
const trail = (detail: { audit_trail: { action: string; details?: { command_id?: string } }[] }) =>
  detail.audit_trail.map((a) => (a.details?.command_id === undefined ? a.action : `${a.action} ${a.details.command_id}`));

describe('override when the gate command is not acknowledged', () => {
  const prefix = `${unique('gatecmd')}.`;
  let svc: TestService;
  let proxy: KafkaProxy;
  let txId: string;

  beforeAll(async () => {
    proxy = await startKafkaProxy(inject('kafkaBrokers').split(',')[0] as string);
    svc = await startTestService({ PSS_TOPIC_PREFIX: prefix, PSS_KAFKA_BROKERS: proxy.address, PSS_GATE_COMMAND_ACK_TIMEOUT_MS: '500' }, [authFeature, gateFeature]);
    // The API instance loses the broker: nothing it sends can be acknowledged.
    proxy.cut();
  });
  afterAll(async () => {
    proxy?.restore();
    await svc?.stop();
    await proxy?.close();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name))).catch(() => undefined);
  });

  it('answers gate_action_executed false and records gate_command_failed', async () => {
    // No appointment is stored, and bookings are required: flagged for review.
    const r = reading({ reading_id: `${prefix}flagged`, gate: `${prefix}gate`, inspection: { damage_regions: [] } });
    const [tx] = await processReadings({ pool: svc.context.pool, relay: svc.context.relay }, [{ ...r, source: 'test', received_at: new Date().toISOString(), findings: findingsOf(r) }], { risk: DEFAULT_RISK_RULES, thresholds: DEFAULT_THRESHOLDS, appointments: { site: 'required', byGate: {} } }, undefined);
    expect(tx?.status).toBe('flagged');
    txId = tx!.id;
    const writer = (await svc.key(['transactions:write', 'transactions:read'])).key;
    const res = await call(`${svc.url}/v1/transactions/${tx!.id}/override`, writer, { method: 'POST', json: { decision: 'approved', reason: 'Seal replaced in our presence', operator_id: 'op-3' } });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({ status: 'overridden', gate_action: 'open', gate_action_executed: false });
    const detail = (await call(`${svc.url}/v1/transactions/${tx!.id}`, writer)).json.data;
    expect(detail.status).toBe('overridden');
    // The decision's hold (no processors instance ran to send it) went out ahead of the override's open, in
    // the same attempt: both failed.
    expect(trail(detail)).toEqual(['system_decision', 'override', `gate_command_failed cmd_${tx!.id}_decision`, `gate_command_failed cmd_${tx!.id}_override`]);
  });

  it('is delivered by another instance\'s processors role, and the audit trail says so', async () => {
    const commandId = `cmd_${txId}_override`;
    // Another instance, reaching the broker: its command sender retries what is due.
    const processors = await startService(testConfig({ PSS_TOPIC_PREFIX: prefix }), ['processors'], testLog, [gateFeature]);
    let commands: unknown[];
    try {
      commands = (await consumeUntil(svc.context.topics.gateCommands, (rs) => rs.some((r) => (valueOf(r) as { command_id: string }).command_id === commandId), { timeoutMs: 30_000 })).map((r) => valueOf(r));
    } finally {
      await processors.stop();
    }
    expect(commands).toContainEqual(expect.objectContaining({ command_id: commandId, transaction_id: txId, action: 'open', origin: 'override', issued_by: 'op-3' }));
    const reader = (await svc.key(['transactions:read'])).key;
    const detail = (await call(`${svc.url}/v1/transactions/${txId}`, reader)).json.data;
    expect(trail(detail).slice(4)).toEqual([`gate_command_acknowledged cmd_${txId}_decision`, `gate_command_acknowledged cmd_${txId}_override`]);
    const stored = await svc.context.pool.query<{ executed: boolean }>(`SELECT (override->>'gate_action_executed')::boolean AS executed FROM gate_transactions WHERE id = $1`, [txId]);
    expect(stored.rows[0]?.executed).toBe(true);
  });
});
