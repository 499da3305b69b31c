// An override whose gate command Kafka does not acknowledge: the override stands (it is committed), the
// answer says gate_action_executed false, and the audit trail records gate_command_failed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, gateFeature } from '../../../../app/features.ts';
import { findingsOf } from '../../../../ingest/gate/readings.ts';
import { topicSpecs } from '../../../../platform/topics.ts';
import { processReadings } from '../../../../processors/gate/gate-processor.ts';
import { DEFAULT_THRESHOLDS } from '../../../../processors/gate/decision.ts';
import { DEFAULT_RISK_RULES } from '../../../../processors/gate/risk.ts';
import { reading } from '../../../support/gate-readings.ts';
import { call, startTestService, type TestService } from '../../../support/service.ts';
import { unique, withAdmin } from '../../../support/stack.ts';

describe('override when the gate command is not acknowledged', () => {
  const prefix = `${unique('gatecmd')}.`;
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({ PSS_TOPIC_PREFIX: prefix, PSS_GATE_COMMAND_ACK_TIMEOUT_MS: '500' }, [authFeature, gateFeature]);
    // The lane controllers' topic is gone: nothing can acknowledge the command.
    await withAdmin((a) => a.deleteTopics([`${prefix}gate.commands`]));
  });
  afterAll(async () => {
    await svc?.stop();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name))).catch(() => undefined);
  });

  it('answers gate_action_executed false and records gate_command_failed', async () => {
    // No appointment is stored, and bookings are required: flagged for review.
    const r = reading({ reading_id: `${prefix}flagged`, gate: `${prefix}gate`, inspection: { damage_regions: [] } });
    const [tx] = await processReadings({ pool: svc.context.pool, relay: svc.context.relay }, [{ ...r, source: 'test', received_at: new Date().toISOString(), findings: findingsOf(r) }], { risk: DEFAULT_RISK_RULES, thresholds: DEFAULT_THRESHOLDS, appointments: { site: 'required', byGate: {} } }, undefined);
    expect(tx?.status).toBe('flagged');
    const writer = (await svc.key(['transactions:write', 'transactions:read'])).key;
    const res = await call(`${svc.url}/v1/transactions/${tx!.id}/override`, writer, { method: 'POST', json: { decision: 'approved', reason: 'Seal replaced in our presence', operator_id: 'op-3' } });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({ status: 'overridden', gate_action: 'open', gate_action_executed: false });
    const detail = (await call(`${svc.url}/v1/transactions/${tx!.id}`, writer)).json.data;
    expect(detail.status).toBe('overridden');
    expect(detail.audit_trail.map((a: { action: string }) => a.action)).toEqual(['system_decision', 'override', 'gate_command_failed']);
  });
});
