// Issue 23 "Done means", the AIS x gate fusion through the running response loop: a vessel goes silent in
// a zone with an AIS-loss rule (ais_gap), then a truck brings a container booked on that vessel
// (appointment with vessel_mmsi, POST /v1/gate/appointments) to a gate with a broken seal (POST
// /v1/ingest/gate): the seal_violation joins the vessel's incident. GET /v1/incidents?mmsi= shows one
// incident holding both, and its detail carries the actions, notifications and escalations the loop ran.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { FEATURES } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { checkDigit } from '../../ingest/gate/iso6346.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import { listActions } from '../../response/action-log.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { DEFAULT_SYSTEM_CONFIG } from '../../schemas/system-config.ts';
import { reading } from '../support/gate-readings.ts';
import { call } from '../support/service.ts';
import { changeSystemConfig, type ChangedSystemConfig } from '../support/system-config.ts';
import { testConfig, testKafka, testLog, unique } from '../support/stack.ts';
import { track } from '../support/tracks.ts';
import { eventually } from '../support/webhook-receiver.ts';

const tag = unique('fusion');
const START = new Date(Date.now() - 15 * 60_000);
const DARK = 219_500_000 + Math.floor(Math.random() * 90_000) * 10;
const CHATTY = DARK + 1;
const ZONE = { name: `Outer anchorage ${tag}`, type: 'monitoring', alert_level: 'low', geometry: { type: 'Circle', center: [18.600, 57.500], radius_meters: 3000 } };
const ten = `FUSU${String(Math.floor(Math.random() * 1_000_000)).padStart(6, '0')}`;
const CONTAINER = `${ten}${checkDigit(ten)}`;
const APPOINTMENT = `apt-${tag}`;
const PLATE = `FU ${tag.slice(-6)}`;
const FINAL = ['done', 'muted', 'waiting_fleet'];

describe('AIS x gate fusion through the response loop', () => {
  let service: RunningService;
  let key: string;
  let system: ChangedSystemConfig | undefined;
  const producer = new KafkaProducer(testKafka());
  const url = (path: string) => `${service.url}/v1${path}`;

  beforeAll(async () => {
    service = await startService(testConfig({ PSS_TOPIC_PREFIX: `${tag}.`, PSS_RATE_LIMIT_BURST: '10000' }), ['api', 'processors'], testLog, FEATURES);
    key = (await createApiKey(service.context.pool, service.context.config.environment, { name: 'fusion', scopes: ['maritime:write', 'ingest:write', 'events:read', 'system:read', 'system:write'] }, 'test')).key;
    // The shipped level table and incident windows, whatever another file left in the shared database.
    system = await changeSystemConfig(url(''), key, (current) => ({ ...current, alert_levels: DEFAULT_SYSTEM_CONFIG.alert_levels, incidents: DEFAULT_SYSTEM_CONFIG.incidents }));
    const zone = await call(url('/maritime/zones'), key, { method: 'POST', json: ZONE });
    expect(zone.status, zone.text).toBe(201);
    const rules = await call(url(`/maritime/zones/${zone.json.data.id}/rules`), key, { method: 'PUT', json: { ais_rules: { alert_on: [{ ais_loss_seconds: 60 }], alert_level: 'high' } } });
    expect(rules.status, rules.text).toBe(200);
    await new Promise((r) => setTimeout(r, 2_000)); // the processor reloads the zone's rules on NOTIFY
  });
  afterAll(async () => {
    await system?.restore();
    await producer.close();
    await service?.stop();
  });

  /** The one incident of the vessel with its detail, once it holds an event of each of `types`. */
  async function incidentHolding(types: string[]): Promise<{ list: Record<string, unknown>[]; detail: Record<string, any> }> { // eslint-disable-line @typescript-eslint/no-explicit-any
    let found = { list: [] as Record<string, unknown>[], detail: {} as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    await eventually(async () => {
      const list = (await call(url(`/incidents?mmsi=${DARK}`), key)).json.data as { id: string }[];
      const detail = list.length === 1 ? (await call(url(`/incidents/${list[0]!.id}`), key)).json.data : {};
      found = { list, detail };
      return types.every((t) => (detail.events ?? []).some((e: SecurityEvent) => e.type === t));
    }, 60_000);
    return found;
  }

  it('an ais_gap of a vessel and a seal violation on a container booked on it land in one incident, with its response', async () => {
    // The silent vessel and one that keeps reporting, on one partition (the same key), so event time moves on for both.
    const chatty = track(CHATTY, START, [{ minute: 0, lon: 18.590, lat: 57.505 }, { minute: 10, lon: 18.595, lat: 57.505 }], 30, 3);
    const records = [...track(DARK, START, [{ minute: 0, lon: 18.600, lat: 57.505 }, { minute: 2, lon: 18.601, lat: 57.505 }], 30, 3), ...chatty.slice(0, -1)];
    const send = (positions: typeof records) => producer.send(positions.map((p) => ({ topic: service.context.topics.aisPositions, key: String(DARK), value: JSON.stringify(p) })));
    await send(records);
    // Housekeeping runs at most every 10 s of wall clock (with a batch, or on an idle tick): one more report after that.
    await new Promise((r) => setTimeout(r, 11_000));
    await send(chatty.slice(-1));
    const ais = await incidentHolding(['ais_gap']);
    expect(ais.list).toHaveLength(1);
    const gap = (ais.detail.events as SecurityEvent[]).find((e) => e.type === 'ais_gap')!;
    expect(gap).toMatchObject({ severity: 'high', metadata: { mmsi: DARK } });

    // The container booked on that vessel arrives at a gate with a broken seal.
    const booked = await call(url('/gate/appointments'), key, { method: 'POST', json: { appointments: [{ appointment_id: APPOINTMENT, plate: PLATE, carrier: 'Nordic Haulage', container_id: CONTAINER, iso_type: '22G1', seal_number: 'SL-778812', weight_declared_kg: 18_200, vessel_mmsi: DARK }] } });
    expect(booked.status, booked.text).toBe(202);
    await eventually(async () => (await service.context.pool.query('SELECT 1 FROM gate_appointments WHERE appointment_id = $1', [APPOINTMENT])).rowCount === 1, 30_000);
    const base = reading();
    const broken = reading({
      reading_id: `rd-${tag}`, gate: `gate-${tag}`, captured_at: new Date().toISOString(),
      vehicle: { ...base.vehicle, plate: PLATE, appointment_id: APPOINTMENT },
      container: { ...base.container!, id: CONTAINER, seal: { ...base.container!.seal!, status: 'broken' } },
      inspection: { damage_regions: [], images: base.inspection!.images },
    });
    const ingested = await call(url('/ingest/gate'), key, { method: 'POST', json: broken });
    expect(ingested.status, ingested.text).toBeLessThan(300);

    const { list, detail } = await incidentHolding(['ais_gap', 'seal_violation']);
    // One incident for the vessel, holding the AIS event and the gate's: the vessel is the key, and the seal
    // violation names the booking that links its container to the vessel.
    expect(list).toHaveLength(1);
    expect(detail).toMatchObject({ key: `vessel:${DARK}`, mmsi: DARK, status: 'open' });
    expect(detail.reason).toContain(`vessel MMSI ${DARK}`);
    const seal = (detail.events as SecurityEvent[]).find((e) => e.type === 'seal_violation')!;
    expect(seal).toMatchObject({ incident_id: detail.id, category: 'gate', metadata: { container_id: CONTAINER, vessel_mmsi: DARK, appointment_id: APPOINTMENT } });
    expect((detail.events as SecurityEvent[]).find((e) => e.type === 'ais_gap')!.id).toBe(gap.id);
    expect(detail.timeline.filter((c: { action: string }) => c.action === 'event_attached').map((c: { event_id: string }) => c.event_id)).toContain(seal.id);
    // No second incident on the container's own key.
    expect((await call(url(`/incidents?container=${CONTAINER}`), key)).json.data.map((i: { id: string }) => i.id)).toEqual([detail.id]);

    // The detail's response: every action of the incident as the log holds it, once the loop finished them,
    // both high events escalated and notified.
    const actionsFinished = async () => {
      const actions = await listActions(service.context.pool, { incidentId: detail.id });
      return [gap.id, seal.id].every((id) => actions.some((a) => a.event_id === id)) && actions.every((a) => FINAL.includes(a.status));
    };
    await eventually(actionsFinished, 30_000);
    const final = (await call(url(`/incidents/${detail.id}`), key)).json.data;
    const logged = await listActions(service.context.pool, { incidentId: detail.id });
    expect(final.actions.map((a: { id: string; status: string }) => [a.id, a.status]).sort()).toEqual(logged.map((a) => [a.id, a.status]).sort());
    for (const id of [gap.id, seal.id]) {
      expect(final.escalations.filter((e: { event_id: string }) => e.event_id === id).map((e: { source: string; status: string }) => [e.source, e.status]), id).toEqual([['level', 'done']]);
      expect(final.notifications.filter((n: { event_id: string }) => n.event_id === id).map((n: { channel: string }) => n.channel).sort(), id).toEqual(['audio_alarm', 'push']);
    }
    const escalated = final.escalations.find((e: { event_id: string }) => e.event_id === seal.id);
    const stored = await service.context.pool.query<{ type: string; cause: string }>(`SELECT type, body->'metadata'->>'cause_event_id' AS cause FROM security_events WHERE id = $1`, [escalated.escalation_event_id]);
    expect(stored.rows).toEqual([{ type: 'incident_escalated', cause: seal.id }]);
  }, 120_000);
});
