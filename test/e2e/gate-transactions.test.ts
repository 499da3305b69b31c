// Issue 11 "Done means": appointments (POST /v1/gate/appointments) and readings produced to Kafka become
// transactions with the expected decisions, risk factors and events; the list's filters, sorts and
// pagination against the stored rows; detail-only fields; every override rule with the race and the admin
// override of a rejected transaction; the gate command on its topic; the audit trail refusing UPDATE and
// DELETE, and `pss audit verify` finding a row a superuser changed.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { authFeature, gateFeature, ingestFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { checkDigit } from '../../ingest/gate/iso6346.ts';
import { findingsOf } from '../../ingest/gate/readings.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import type { GateAppointment } from '../../schemas/gate-appointment.ts';
import type { GateReading, GateReadingRecord } from '../../schemas/gate-reading.ts';
import type { GateCommand } from '../../schemas/gate-transaction.ts';
import { valueOf } from '../support/codec.ts';
import { reading } from '../support/gate-readings.ts';
import { call, expectErrorBody } from '../support/service.ts';
import { consumeUntil, testConfig, testKafka, testLog } from '../support/stack.ts';

const PSS = fileURLToPath(new URL('../../bin/pss.js', import.meta.url));
const RUN = Math.random().toString(36).slice(2, 8);
const GATE = `gate-e2e-${RUN}`;
const OTHER_GATE = `gate-e2e-${RUN}-b`;

/** A valid ISO 6346 id: TSTU + 6 digits + its check digit. */
const containerId = (n: number) => {
  const ten = `TSTU${String(n).padStart(6, '0')}`;
  return `${ten}${checkDigit(ten)}`;
};
const wrongDigit = (id: string) => `${id.slice(0, 10)}${(Number(id[10]) + 1) % 10}`;

interface Case {
  name: string;
  status: string;
  decision: string;
  events: string[];
  appointment: boolean;
  reading: (r: GateReading) => GateReading;
  gate?: string;
}

const noDamage = { damage_regions: [], images: [{ type: 'front' as const, url: 'https://cams.example/front/1.jpg', captured_at: '2025-03-01T08:29:57Z' }] };
const seal = (r: GateReading, status: string) => ({ ...r.container!, seal: { ...r.container!.seal!, status } });

const CASES: Case[] = [
  { name: 'clean', status: 'approved', decision: 'auto_approved', events: ['gate_transaction_created'], appointment: true, reading: (r) => r },
  { name: 'clean2', status: 'approved', decision: 'auto_approved', events: ['gate_transaction_created'], appointment: true, reading: (r) => r, gate: OTHER_GATE },
  { name: 'broken-seal', status: 'held', decision: 'manual_review', events: ['gate_transaction_created', 'seal_violation', 'manual_review'], appointment: true, reading: (r) => ({ ...r, container: seal(r, 'broken') }) },
  { name: 'ocr-mismatch', status: 'held', decision: 'manual_review', events: ['gate_transaction_created', 'ocr_mismatch', 'manual_review'], appointment: true, reading: (r) => ({ ...r, container: { ...r.container!, id: containerId(900_000 + r.reading_id.length) } }) },
  { name: 'damage', status: 'held', decision: 'manual_review', events: ['gate_transaction_created', 'damage_detected', 'manual_review'], appointment: true, reading: (r) => ({ ...r, inspection: { ...noDamage, damage_regions: [{ type: 'hole', area: 'roof', severity: 'high', confidence: 0.9 }] } }) },
  { name: 'check-digit', status: 'flagged', decision: 'manual_review', events: ['gate_transaction_created', 'ocr_mismatch'], appointment: true, reading: (r) => ({ ...r, container: { ...r.container!, id: wrongDigit(r.container!.id!) } }) },
  { name: 'no-appointment', status: 'flagged', decision: 'manual_review', events: ['gate_transaction_created'], appointment: false, reading: (r) => r },
  { name: 'rejected', status: 'rejected', decision: 'auto_rejected', events: ['gate_transaction_created', 'ocr_mismatch', 'seal_violation', 'auto_rejected'], appointment: true, reading: (r) => ({ ...r, container: { ...seal(r, 'tampered'), id: containerId(800_000) } }) },
  { name: 'rejected2', status: 'rejected', decision: 'auto_rejected', events: ['gate_transaction_created', 'ocr_mismatch', 'seal_violation', 'auto_rejected'], appointment: true, reading: (r) => ({ ...r, container: { ...seal(r, 'broken'), id: containerId(800_001) } }) },
  { name: 'held2', status: 'held', decision: 'manual_review', events: ['gate_transaction_created', 'seal_violation', 'manual_review'], appointment: true, reading: (r) => ({ ...r, container: seal(r, 'missing') }) },
  { name: 'held3', status: 'held', decision: 'manual_review', events: ['gate_transaction_created', 'seal_violation', 'manual_review'], appointment: true, reading: (r) => ({ ...r, container: seal(r, 'broken') }) },
  { name: 'flagged2', status: 'flagged', decision: 'manual_review', events: ['gate_transaction_created'], appointment: false, reading: (r) => r },
];

describe('gate transactions end to end', () => {
  let service: RunningService;
  let reader: string;
  let writer: string;
  let admin: string;
  let ingester: string;
  const producer = new KafkaProducer(testKafka());
  const config = testConfig();
  const ids = new Map<string, string>();
  const appointments = new Map<string, GateAppointment>();
  const readings = new Map<string, GateReading>();

  beforeAll(async () => {
    service = await startService(config, ['api', 'processors'], testLog, [authFeature, ingestFeature, gateFeature]);
    const { pool, config: c } = service.context;
    const key = async (scopes: Parameters<typeof createApiKey>[2]['scopes']) => (await createApiKey(pool, c.environment, { name: `gate-${scopes.join('+')}`, scopes }, 'test')).key;
    reader = await key(['transactions:read']);
    writer = await key(['transactions:write', 'transactions:read']);
    admin = await key(['admin']);
    ingester = await key(['ingest:write']);

    CASES.forEach((c, i) => {
      const id = containerId(100_000 + i);
      const plate = `E2E ${RUN}-${i}`;
      const base = reading({
        reading_id: `rd-${RUN}-${c.name}`, gate: c.gate ?? GATE, lane: `lane-${i % 3}`, captured_at: new Date().toISOString(),
        vehicle: { ...reading().vehicle, plate, appointment_id: `apt-${RUN}-${c.name}` },
        container: { ...reading().container!, id },
        inspection: noDamage,
      });
      readings.set(c.name, c.reading(base));
      if (c.appointment) appointments.set(c.name, { appointment_id: `apt-${RUN}-${c.name}`, plate, carrier: 'Nordic Haulage', container_id: id, iso_type: '22G1', seal_number: 'SL-778812', weight_declared_kg: 18_200 });
    });
  });
  afterAll(async () => {
    await producer.close();
    await service?.stop();
  });

  const url = (path: string) => `${service.url}/v1${path}`;
  const txOf = (name: string) => ids.get(name) as string;

  it('takes appointments over HTTP (validated, idempotent) into the processor\'s store', async () => {
    const bad = await call(url('/gate/appointments'), ingester, { method: 'POST', json: { appointments: [{ appointment_id: 'x', plate: 'P' }] } });
    expectErrorBody(bad, 422, 'validation_error');
    expectErrorBody(await call(url('/gate/appointments'), reader, { method: 'POST', json: { appointments: [...appointments.values()] } }), 403, 'forbidden');
    const body = { appointments: [...appointments.values()] };
    for (let i = 0; i < 2; i++) {
      const res = await call(url('/gate/appointments'), ingester, { method: 'POST', json: body });
      expect(res.status, JSON.stringify(res.json)).toBe(202);
      expect(res.json.data.accepted_count).toBe(appointments.size);
    }
    const wanted = [...appointments.values()].map((a) => a.appointment_id);
    await until(async () => Number((await service.context.pool.query('SELECT count(*) FROM gate_appointments WHERE appointment_id = ANY($1)', [wanted])).rows[0].count) === wanted.length);
  });

  it('turns readings on gate.readings into transactions with the expected decisions, once per reading_id', async () => {
    const now = new Date().toISOString();
    const records = [...readings.values()].map((r) => {
      const value: GateReadingRecord = { ...r, source: 'e2e', received_at: now, findings: findingsOf(r) };
      return { topic: service.context.topics.gateReadings, key: r.gate, value: JSON.stringify(value) };
    });
    // The first reading twice: a retried ingest must not make a second transaction.
    await producer.send([...records, records[0]!]);
    const readingIds = [...readings.values()].map((r) => r.reading_id);
    await until(async () => Number((await service.context.pool.query('SELECT count(*) FROM gate_transactions WHERE reading_id = ANY($1)', [readingIds])).rows[0].count) === readingIds.length);
    const { rows } = await service.context.pool.query<{ id: string; reading_id: string }>('SELECT id, reading_id FROM gate_transactions WHERE reading_id = ANY($1)', [readingIds]);
    for (const r of rows) ids.set(r.reading_id.replace(`rd-${RUN}-`, ''), r.id);

    for (const c of CASES) {
      const res = await call(url(`/transactions/${txOf(c.name)}`), reader);
      expect(res.status).toBe(200);
      const tx = res.json.data;
      expect({ name: c.name, status: tx.status, decision: tx.decision }).toEqual({ name: c.name, status: c.status, decision: c.decision });
      expect(tx.risk_factors.length).toBeGreaterThan(5);
      expect(tx.audit_trail).toHaveLength(1);
      expect(tx.audit_trail[0]).toMatchObject({ action: 'system_decision', actor: 'system:gate-processor', details: { status: c.status, decision: c.decision } });
      expect(tx.audit_trail[0].rule).toContain('risk_score');
      expect(tx.processing_time_ms).toBeGreaterThanOrEqual(0);
      expect(tx.completed_at === null).toBe(c.status === 'flagged' || c.status === 'held');
    }
    const broken = (await call(url(`/transactions/${txOf('broken-seal')}`), reader)).json.data;
    expect(broken.risk_factors).toContainEqual({ factor: 'seal', score: 100, weight: 0.6 });
    expect(broken.inspection).toMatchObject({ seal_verified: false, ocr_match: true });
    expect(broken.inspection.anomalies).toContainEqual(expect.objectContaining({ type: 'seal_broken', severity: 'high' }));
    const mismatch = (await call(url(`/transactions/${txOf('ocr-mismatch')}`), reader)).json.data;
    expect(mismatch.inspection.ocr_match).toBe(false);
    expect(mismatch.risk_factors).toContainEqual({ factor: 'container_appointment_mismatch', score: 100, weight: 0.4 });
    const digit = (await call(url(`/transactions/${txOf('check-digit')}`), reader)).json.data;
    expect(digit.risk_factors).toContainEqual({ factor: 'container_check_digit', score: 100, weight: 0.35 });
    const none = (await call(url(`/transactions/${txOf('no-appointment')}`), reader)).json.data;
    expect(none.inspection.anomalies).toContainEqual(expect.objectContaining({ type: 'appointment_missing' }));
  });

  it('publishes the spec\'s events with their severities, once each', async () => {
    const txIds = new Set(ids.values());
    const expected = CASES.reduce((n, c) => n + c.events.length, 0);
    const mine = (records: { value: Buffer; topic: string }[]) => records.map((r) => valueOf(r) as SecurityEvent).filter((e) => txIds.has(e.metadata.transaction_id as string));
    const seen = mine(await consumeUntil(service.context.topics.securityEvents, (rs) => mine(rs).length >= expected, { quietMs: 1_000 }));
    expect(seen).toHaveLength(expected);
    for (const c of CASES) {
      const of = seen.filter((e) => e.metadata.transaction_id === txOf(c.name));
      expect({ name: c.name, types: of.map((e) => e.type).sort() }).toEqual({ name: c.name, types: [...c.events].sort() });
    }
    const severity = Object.fromEntries(seen.map((e) => [e.type, e.severity]));
    expect(severity).toMatchObject({ gate_transaction_created: 'low', ocr_mismatch: 'medium', seal_violation: 'high', damage_detected: 'medium', manual_review: 'medium', auto_rejected: 'high' });
    const sealEvent = seen.find((e) => e.type === 'seal_violation' && e.metadata.transaction_id === txOf('broken-seal'))!;
    expect(sealEvent).toMatchObject({ category: 'gate', source_module: 'gate', metadata: { gate: GATE, violation: 'broken', container_id: readings.get('broken-seal')!.container!.id, vehicle_plate: readings.get('broken-seal')!.vehicle!.plate, confidence: 0.9 } });
    expect(seen.find((e) => e.type === 'auto_rejected')!.category).toBe('decision');
  });

  it('lists with every filter, sort and pagination rule of the spec, list fields only', async () => {
    const list = async (q: string) => {
      const res = await call(url(`/transactions?gate=${GATE}&${q}`), reader);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      return res.json as { data: Record<string, any>[]; meta: Record<string, unknown>; pagination: Record<string, unknown> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    };
    const mine = CASES.filter((c) => (c.gate ?? GATE) === GATE);
    const all = await list('per_page=200');
    expect(all.data).toHaveLength(mine.length);
    expect(Object.keys(all.meta).sort()).toEqual(['request_id', 'timestamp']);
    expect(all.pagination).toEqual({ page: 1, per_page: 200, total_items: mine.length, total_pages: 1, has_next: false, has_previous: false });
    // Default sort: created_at desc.
    const created = all.data.map((t) => t.created_at as string);
    expect(created).toEqual([...created].sort().reverse());
    for (const item of all.data) {
      // The spec's list fields, and the reading's lane (our addition).
      expect(Object.keys(item).sort()).toEqual(['completed_at', 'container', 'created_at', 'decision', 'gate', 'id', 'inspection', 'lane', 'operator', 'processing_time_ms', 'risk_score', 'status', 'vehicle']);
      expect(item.lane).toBe(readings.get(mine.find((c) => txOf(c.name) === item.id)!.name)!.lane);
      expect(item.vehicle).not.toHaveProperty('driver_id');
      expect(item.vehicle).not.toHaveProperty('appointment_id');
      expect(item.vehicle).not.toHaveProperty('plate_image_url');
      expect(item.container).not.toHaveProperty('weight_declared_kg');
      expect(item.container).not.toHaveProperty('ocr_image_url');
      expect(item.container.seal).not.toHaveProperty('seal_image_url');
      expect(Object.keys(item.inspection).sort()).toEqual(['anomalies', 'damage_detected', 'ocr_match', 'seal_verified']);
    }

    for (const status of ['approved', 'flagged', 'held', 'rejected']) {
      const got = await list(`status=${status}&per_page=200`);
      expect(got.data.map((t) => t.id).sort()).toEqual(mine.filter((c) => c.status === status).map((c) => txOf(c.name)).sort());
    }
    for (const decision of ['auto_approved', 'manual_review', 'auto_rejected']) {
      const got = await list(`decision=${decision}`);
      expect(got.pagination.total_items).toBe(mine.filter((c) => c.decision === decision).length);
      expect(got.data.every((t) => t.decision === decision)).toBe(true);
    }
    // Gate: the other gate's transaction is not in this gate's list, and has its own.
    expect(all.data.map((t) => t.id)).not.toContain(txOf('clean2'));
    const other = (await call(url(`/transactions?gate=${OTHER_GATE}`), reader)).json;
    expect(other.data.map((t: { id: string }) => t.id)).toEqual([txOf('clean2')]);

    // container_id: exact, prefix, case and dashes ignored.
    const cid = readings.get('damage')!.container!.id!;
    expect((await list(`container_id=${cid}`)).data.map((t) => t.id)).toEqual([txOf('damage')]);
    expect((await list(`container_id=${cid.slice(0, 4).toLowerCase()}-${cid.slice(4, 8)}`)).pagination.total_items).toBe(all.data.filter((t) => (t.container.id as string).startsWith(cid.slice(0, 8))).length);
    expect((await list(`container_id=TSTU1`)).data.every((t) => (t.container.id as string).startsWith('TSTU1'))).toBe(true);
    // vehicle_plate: exact, ignoring case and spaces.
    const plate = readings.get('held2')!.vehicle!.plate!;
    expect((await list(`vehicle_plate=${encodeURIComponent(plate.toLowerCase().replace(' ', ''))}`)).data.map((t) => t.id)).toEqual([txOf('held2')]);
    expect((await list(`vehicle_plate=${encodeURIComponent(plate.slice(0, -1))}`)).data).toEqual([]);
    // search (our addition): the beginning of the container id or of the plate, either one.
    expect((await list(`search=${cid.slice(0, 4).toLowerCase()}-${cid.slice(4, 8)}`)).pagination.total_items).toBe(all.data.filter((t) => (t.container.id as string).startsWith(cid.slice(0, 8))).length);
    expect((await list(`search=${encodeURIComponent(`e2e-${RUN}`)}`)).pagination.total_items).toBe(mine.length);
    expect((await list(`search=${encodeURIComponent(plate.toLowerCase())}`)).data.map((t) => t.id)).toEqual([txOf('held2')]);
    expect((await list('search=QQQQ9')).data).toEqual([]);

    // Sorts.
    const byRisk = (await list('sort=risk_score&per_page=200')).data.map((t) => t.risk_score as number);
    expect(byRisk).toEqual([...byRisk].sort((a, b) => b - a));
    expect(byRisk[0]).toBeGreaterThanOrEqual(70);
    const byRiskAsc = (await list('sort=risk_score&order=asc&per_page=200')).data.map((t) => t.risk_score as number);
    expect(byRiskAsc).toEqual([...byRisk].reverse());
    const byGate = (await call(url(`/transactions?sort=gate&order=asc&per_page=200&container_id=TSTU`), reader)).json.data.map((t: { gate: string }) => t.gate);
    expect(byGate).toEqual([...byGate].sort());
    // review (our addition): flagged and held first, each part by risk score.
    const review = (await list('sort=review&per_page=200')).data.map((t) => ({ waiting: ['flagged', 'held'].includes(t.status as string), risk: t.risk_score as number }));
    const waitingCount = mine.filter((c) => c.status === 'flagged' || c.status === 'held').length;
    expect(review.map((t) => t.waiting)).toEqual(review.map((_, i) => i < waitingCount));
    for (const part of [review.slice(0, waitingCount), review.slice(waitingCount)]) expect(part.map((t) => t.risk)).toEqual(part.map((t) => t.risk).sort((a, b) => b - a));
    // ... and its pages, of 5, are that order cut in pieces (each branch cut at the page's end), the total counted.
    const reviewIds = (await list('sort=review&per_page=200')).data.map((t) => t.id);
    const reviewPages = await Promise.all([1, 2, 3].map((n) => list(`sort=review&per_page=5&page=${n}`)));
    expect(reviewPages.flatMap((r) => r.data.map((t) => t.id))).toEqual(reviewIds.slice(0, 15));
    expect(reviewPages[2]!.pagination).toMatchObject({ page: 3, total_items: mine.length });
    const reviewAsc = (await list('sort=review&order=asc&per_page=200')).data.map((t) => ({ waiting: ['flagged', 'held'].includes(t.status as string), risk: t.risk_score as number }));
    expect(reviewAsc.map((t) => t.waiting)).toEqual(reviewAsc.map((_, i) => i < waitingCount));
    expect(reviewAsc.slice(0, waitingCount).map((t) => t.risk)).toEqual(review.slice(0, waitingCount).map((t) => t.risk).reverse());
    const createdAsc = (await list('order=asc&per_page=200')).data.map((t) => t.created_at as string);
    expect(createdAsc).toEqual([...createdAsc].sort());

    // Pagination: pages of 5 cover the whole list once.
    const p1 = await list('per_page=5&page=1&sort=risk_score');
    const p2 = await list('per_page=5&page=2&sort=risk_score');
    const p3 = await list('per_page=5&page=3&sort=risk_score');
    expect(p1.pagination).toEqual({ page: 1, per_page: 5, total_items: mine.length, total_pages: Math.ceil(mine.length / 5), has_next: true, has_previous: false });
    expect(p2.pagination).toMatchObject({ page: 2, has_next: mine.length > 10, has_previous: true });
    const paged = [...p1.data, ...p2.data, ...p3.data].map((t) => t.id);
    expect(new Set(paged).size).toBe(mine.length);
    expect((await list('per_page=5&page=99')).data).toEqual([]);

    // The window: default last 24 hours; an explicit window before these transactions has none.
    expect((await list('end_date=2020-01-01')).pagination.total_items).toBe(0);
    expect((await list(`start_date=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`)).pagination.total_items).toBe(mine.length);
    expect((await list('start_date=2020-01-01&end_date=2020-01-02')).data).toEqual([]);

    // Bad filters: 422 with the spec's error body.
    expectErrorBody(await call(url('/transactions?per_page=201'), reader), 422, 'validation_error');
    expectErrorBody(await call(url('/transactions?status=pending'), reader), 422, 'validation_error');
    expectErrorBody(await call(url('/transactions?sort=plate'), reader), 422, 'validation_error');
    expectErrorBody(await call(url('/transactions?search=%20-.'), reader), 422, 'validation_error');
    expectErrorBody(await call(url('/transactions?start_date=yesterday'), reader), 422, 'validation_error');
    expectErrorBody(await call(url('/transactions?start_date=2026-01-02&end_date=2026-01-01'), reader), 422, 'validation_error');
    expectErrorBody(await call(url('/transactions'), ingester), 403, 'forbidden');
    expectErrorBody(await call(url('/transactions/gtx_nope'), reader), 404, 'not_found');
  });

  it('shows the detail-only fields in the detail view', async () => {
    const tx = (await call(url(`/transactions/${txOf('damage')}`), reader)).json.data;
    expect(tx.vehicle).toMatchObject({ driver_id: 'drv-88', appointment_id: `apt-${RUN}-damage`, plate_image_url: 'https://cams.example/plate/1.jpg' });
    expect(tx.container).toMatchObject({ ocr_image_url: 'https://cams.example/ocr/1.jpg', weight_declared_kg: 18_200, weight_estimated_kg: 18_950, seal: { seal_image_url: 'https://cams.example/seal/1.jpg' } });
    expect(tx.inspection.damage_regions).toEqual([{ type: 'hole', area: 'roof', severity: 'high', confidence: 0.9 }]);
    expect(tx.inspection.images).toHaveLength(1);
    expect(tx.inspection.anomalies[0]).toHaveProperty('confidence');
    expect(tx.inspection.damage_detected).toBe(true);
  });

  it('overrides by every rule of the spec', async () => {
    const override = (id: string, key: string, body: Record<string, unknown>) => call(url(`/transactions/${id}/override`), key, { method: 'POST', json: body });
    const ok = { decision: 'approved', reason: 'Seal checked by hand, paperwork fine', operator_id: 'op-17' };

    expectErrorBody(await override(txOf('flagged2'), reader, ok), 403, 'forbidden');
    expectErrorBody(await override(txOf('flagged2'), writer, { ...ok, reason: 'too short' }), 422, 'validation_error');
    expectErrorBody(await override(txOf('flagged2'), writer, { ...ok, decision: 'auto_approved' }), 422, 'validation_error');
    expectErrorBody(await override(txOf('flagged2'), writer, { decision: 'approved', reason: ok.reason }), 422, 'validation_error');
    expectErrorBody(await override(txOf('flagged2'), writer, { ...ok, gate_action: 'explode' }), 422, 'validation_error');
    expectErrorBody(await override('gtx_nope', writer, ok), 404, 'not_found');

    // Flagged, default gate action for approved: open.
    const flagged = await override(txOf('flagged2'), writer, { ...ok, notes: 'driver had the appointment on paper' });
    expect(flagged.status, JSON.stringify(flagged.json)).toBe(200);
    expect(flagged.json.data).toMatchObject({ id: txOf('flagged2'), status: 'overridden', previous_decision: 'manual_review', new_decision: 'approved', overridden_by: 'op-17', reason: ok.reason, gate_action: 'open', gate_action_executed: true });
    // Held, rejected with the default action hold.
    const held = await override(txOf('held2'), writer, { ...ok, decision: 'rejected' });
    expect(held.json.data).toMatchObject({ previous_decision: 'manual_review', new_decision: 'rejected', gate_action: 'hold', gate_action_executed: true });

    // Any other status: resource_conflict naming the transaction and its status; a rejected one without
    // admin: forbidden, as any missing finer scope (issue 33), naming them too.
    for (const [name, status, code] of [['clean', 'approved', 'resource_conflict'], ['flagged2', 'overridden', 'resource_conflict'], ['rejected', 'rejected', 'forbidden']] as const) {
      const res = await override(txOf(name), writer, ok);
      expectErrorBody(res, code === 'forbidden' ? 403 : 409, code);
      expect(res.json.error.message).toContain(txOf(name));
      expect(res.json.error.message).toContain(status);
    }
    // A rejected transaction: admin only, here locking the gate.
    const adminOverride = await override(txOf('rejected'), admin, { ...ok, gate_action: 'lock' });
    expect(adminOverride.json.data).toMatchObject({ previous_decision: 'auto_rejected', new_decision: 'approved', gate_action: 'lock', gate_action_executed: true });

    // The detail view: overridden, the operator, the decision, and the audit trail with the override.
    const tx = (await call(url(`/transactions/${txOf('flagged2')}`), reader)).json.data;
    expect(tx).toMatchObject({ status: 'overridden', decision: 'approved', operator: 'op-17' });
    expect(tx.completed_at).not.toBeNull();
    expect(tx.audit_trail.map((a: { action: string }) => a.action)).toEqual(['system_decision', 'override', 'gate_command_acknowledged']);
    expect(tx.audit_trail[1]).toMatchObject({ actor: 'op-17', details: { reason: ok.reason, previous_status: 'flagged', notes: 'driver had the appointment on paper' } });
    expect((await call(url(`/transactions?gate=${GATE}&status=overridden`), reader)).json.pagination.total_items).toBe(3);

    // The commands on gate.commands, keyed by gate.
    const overridden = [txOf('flagged2'), txOf('held2'), txOf('rejected')];
    // (Their automated decisions' commands are there too: test/e2e/gate-commands.test.ts.)
    const ofOverrides = <R extends { topic: string; value: Buffer }>(rs: R[]) => rs.filter((r) => { const c = valueOf(r) as GateCommand; return c.origin === 'override' && overridden.includes(c.transaction_id ?? ''); });
    const commands = ofOverrides(await consumeUntil(service.context.topics.gateCommands, (rs) => ofOverrides(rs).length >= 3));
    expect(commands.map((r) => r.key)).toEqual([GATE, GATE, GATE]);
    expect(commands.map((r) => valueOf(r))).toEqual(expect.arrayContaining([
      expect.objectContaining({ transaction_id: txOf('flagged2'), action: 'open', issued_by: 'op-17', lane: readings.get('flagged2')!.lane }),
      expect.objectContaining({ transaction_id: txOf('held2'), action: 'hold' }),
      expect.objectContaining({ transaction_id: txOf('rejected'), action: 'lock' }),
    ]));

    // gate_override for each, gate_locked for the lock.
    const mine = (rs: { value: Buffer; topic: string }[]) => rs.map((r) => valueOf(r) as SecurityEvent).filter((e) => overridden.includes(e.metadata.transaction_id as string) && ['gate_override', 'gate_locked'].includes(e.type));
    const events = mine(await consumeUntil(service.context.topics.securityEvents, (rs) => mine(rs).length >= 4));
    expect(events.map((e) => `${e.type}:${e.severity}:${e.metadata.transaction_id}`).sort()).toEqual([
      `gate_locked:high:${txOf('rejected')}`, `gate_override:medium:${txOf('flagged2')}`, `gate_override:medium:${txOf('held2')}`, `gate_override:medium:${txOf('rejected')}`,
    ].sort());
  });

  it('lets exactly one of two racing overrides win', async () => {
    for (const name of ['held3', 'rejected2']) {
      const body = (decision: string) => ({ decision, reason: 'Racing operators on the same truck', operator_id: `op-${decision}` });
      const answers = await Promise.all([
        call(url(`/transactions/${txOf(name)}/override`), admin, { method: 'POST', json: body('approved') }),
        call(url(`/transactions/${txOf(name)}/override`), admin, { method: 'POST', json: body('rejected') }),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      const winner = answers.find((a) => a.status === 200)!.json.data;
      const tx = (await call(url(`/transactions/${txOf(name)}`), reader)).json.data;
      expect(tx.decision).toBe(winner.new_decision);
      expect(tx.audit_trail.filter((a: { action: string }) => a.action === 'override')).toHaveLength(1);
    }
  });

  it('refuses UPDATE and DELETE on audit rows, and pss audit verify finds a row a superuser changed', async () => {
    const { pool } = service.context;
    const id = txOf('clean');
    await expect(pool.query(`UPDATE gate_audit SET actor = 'mallory' WHERE transaction_id = $1`, [id])).rejects.toThrow(/append-only/);
    await expect(pool.query('DELETE FROM gate_audit WHERE transaction_id = $1', [id])).rejects.toThrow(/append-only/);
    await expect(pool.query('TRUNCATE gate_audit')).rejects.toThrow(/append-only/);

    const env = { ...process.env, PSS_DATABASE_URL: config.databaseUrl, PSS_LOG_LEVEL: 'warn' };
    const verify = () => spawnSync(process.execPath, [PSS, 'audit', 'verify'], { env, encoding: 'utf8', timeout: 60_000 });
    const clean = verify();
    expect(clean.status, clean.stderr).toBe(0);
    expect(JSON.parse(clean.stdout)).toMatchObject({ ok: true, breaks: [] });

    // A superuser switches the trigger off, changes a row, and switches it back on.
    const { rows } = await pool.query<{ seq: string; actor: string }>('SELECT seq, actor FROM gate_audit WHERE transaction_id = $1', [id]);
    const seq = rows[0]!.seq;
    const tamper = async (actor: string) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('ALTER TABLE gate_audit DISABLE TRIGGER gate_audit_append_only');
        await client.query('UPDATE gate_audit SET actor = $2 WHERE seq = $1', [seq, actor]);
        await client.query('ALTER TABLE gate_audit ENABLE TRIGGER gate_audit_append_only');
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    };
    await tamper('system:someone-else');
    try {
      const broken = verify();
      expect(broken.status).toBe(1);
      expect(JSON.parse(broken.stdout)).toMatchObject({ ok: false, breaks: [{ seq: Number(seq), transaction_id: id, problem: expect.stringContaining('changed') }] });
    } finally {
      // Put it back so the chain is whole for whoever verifies after this test.
      await tamper(rows[0]!.actor);
    }
    expect(verify().status).toBe(0);
  });
});

async function until(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}
