// Issue 33, item 12: overriding a rejected transaction without the admin scope answers 403 forbidden, as
// every route answers a missing finer scope (docs/api.md "Errors"), not 409: the transaction's state does
// not stand in the way, the caller's scopes do (an admin's identical request succeeds). A status past
// overriding stays 409 for everyone. Through the real service, Kafka and PostGIS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, gateFeature } from '../../../../app/features.ts';
import { findingsOf } from '../../../../ingest/gate/readings.ts';
import { topicSpecs } from '../../../../platform/topics.ts';
import { DEFAULT_THRESHOLDS } from '../../../../processors/gate/decision.ts';
import { processReadings } from '../../../../processors/gate/gate-processor.ts';
import { DEFAULT_RISK_RULES } from '../../../../processors/gate/risk.ts';
import { reading } from '../../../support/gate-readings.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';
import { unique, withAdmin } from '../../../support/stack.ts';

describe('override of a rejected transaction', () => {
  const prefix = `${unique('gatescope')}.`;
  let svc: TestService;
  let rejected: string;

  beforeAll(async () => {
    svc = await startTestService({ PSS_TOPIC_PREFIX: prefix }, [authFeature, gateFeature]);
    // A broken seal on an appointment that is not stored, bookings required: rejected (seal 60 + the fixture's dent).
    const r = reading({ reading_id: `${prefix}rejected`, gate: `${prefix}gate`, container: { ...reading().container!, seal: { number: 'SL-1', status: 'broken' } } });
    const [tx] = await processReadings({ pool: svc.context.pool, relay: svc.context.relay }, [{ ...r, source: 'test', received_at: new Date().toISOString(), findings: findingsOf(r) }], { risk: DEFAULT_RISK_RULES, thresholds: DEFAULT_THRESHOLDS, appointments: { site: 'required', byGate: {} } }, undefined);
    expect(tx?.status).toBe('rejected');
    rejected = tx!.id;
  });
  afterAll(async () => {
    await svc?.stop();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name))).catch(() => undefined);
  });

  const override = (key: string) => call(`${svc.url}/v1/transactions/${rejected}/override`, key, { method: 'POST', json: { decision: 'approved', reason: 'Seal replaced in our presence', operator_id: 'op-9' } });

  it('is 403 forbidden without admin, naming the transaction, its status and the scope; nothing changes', async () => {
    const writer = (await svc.key(['transactions:write', 'transactions:read'])).key;
    const res = await override(writer);
    expectErrorBody(res, 403, 'forbidden');
    expect(res.json.error.message).toBe(`Transaction ${rejected} is rejected: overriding a rejected transaction requires the admin scope`);
    expect(res.json.error.details).toEqual({ transaction_id: rejected, status: 'rejected' });
    const detail = (await call(`${svc.url}/v1/transactions/${rejected}`, writer)).json.data;
    expect(detail).toMatchObject({ status: 'rejected', operator: null });
    expect(detail.audit_trail.map((a: { action: string }) => a.action)).not.toContain('override');
  });

  it('is documented so in the OpenAPI document: 403 for the missing admin, 409 for a status past overriding', async () => {
    const doc = (await call(`${svc.url}/v1/openapi.json`, undefined)).json;
    const responses = doc.paths['/v1/transactions/{transaction_id}/override'].post.responses;
    expect(responses['403'].description).toContain('rejected and the credential lacks admin');
    expect(responses['409'].description).toContain('already overridden');
  });

  it('goes through with admin; then, overridden, it is 409 for everyone, admin included', async () => {
    const admin = (await svc.key(['admin'])).key;
    const done = await override(admin);
    expect(done.status, done.text).toBe(200);
    expect(done.json.data).toMatchObject({ id: rejected, status: 'overridden', previous_decision: 'auto_rejected', new_decision: 'approved' });
    const again = await override(admin);
    expectErrorBody(again, 409, 'resource_conflict');
    expect(again.json.error.message).toBe(`Transaction ${rejected} is overridden: only flagged or held transactions can be overridden`);
    expectErrorBody(await override((await svc.key(['transactions:write'])).key), 409, 'resource_conflict');
  });
});
