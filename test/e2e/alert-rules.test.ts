import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { authFeature, maritimeFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import { loadAlertRules } from '../../processors/maritime/rules-config/rule-store.ts';
import { matchAlertRule } from '../../processors/maritime/rules/alert-rule-match.ts';
import type { VesselPosition } from '../../schemas/ais.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import { valueOf } from '../support/codec.ts';
import { call } from '../support/service.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique } from '../support/stack.ts';
import { track } from '../support/tracks.ts';

// Issue 23, part A "Done means": alert rules written through the API, positions through the real broker;
// the zone_entry carries the on_entry level, the on_dwell point raises its dwell_threshold, the zone_exit
// the on_exit level; a rule changed through the API applies on the running processor without a restart.
const T0 = new Date('2026-11-24T08:00:00Z');
const INTRUDER = 219023101;
const LATER = 219023102;
const tag = unique('alert-rules');
// A restricted zone (own dwell threshold 15 min) of level medium, in the Baltic away from other tests' zones.
const NAVAL = { name: `Naval berth ${tag}`, type: 'restricted', alert_level: 'medium', geometry: { type: 'Polygon', coordinates: [[[16.400, 55.400], [16.410, 55.400], [16.410, 55.406], [16.400, 55.406], [16.400, 55.400]]] } };
const RULES = {
  on_entry: { alert_level: 'critical', actions: [{ action: 'notify_operator' }, { action: 'escalate_to', parties: ['supervisor', 'port_authority'] }] },
  on_dwell: { threshold_minutes: 5, alert_level: 'high', actions: [{ action: 'dispatch_drone', mission: 'inspect' }] },
  on_exit: { alert_level: 'low', actions: [{ action: 'close_incident' }] },
};

describe('alert rules end to end', () => {
  let service: RunningService;
  let writer: string;
  let zoneId: string;
  const producer = new KafkaProducer(testKafka());
  const url = (path: string) => `${service.url}/v1${path}`;
  const send = (positions: VesselPosition[]) => producer.send(positions.map((p) => ({ topic: service.context.topics.aisPositions, key: String(p.mmsi), value: JSON.stringify(p) })));
  const eventsOf = async (mmsi: number, enough: (events: SecurityEvent[]) => boolean) => {
    const decode = (records: { topic: string; value: string | Buffer }[]) =>
      records.map((r) => valueOf(r) as SecurityEvent).filter((e) => e.metadata.mmsi === mmsi && e.location.zone === NAVAL.name);
    // Keyed by event id, events of one vessel are spread over partitions: put them in event-time order.
    const events = decode(await consumeUntil(service.context.topics.securityEvents, (seen) => enough(decode(seen)), { timeoutMs: 45_000, quietMs: 1_000 }));
    return events.sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
  };

  beforeAll(async () => {
    service = await startService(testConfig(), ['api', 'processors'], testLog, [authFeature, maritimeFeature]);
    const { pool, config: c } = service.context;
    writer = (await createApiKey(pool, c.environment, { name: 'alert-rules-admin', scopes: ['maritime:write', 'maritime:read'] }, 'test')).key;
    const zone = await call(url('/maritime/zones'), writer, { method: 'POST', json: NAVAL });
    expect(zone.status, zone.text).toBe(201);
    zoneId = zone.json.data.id;
    const put = await call(url(`/maritime/zones/${zoneId}/rules`), writer, { method: 'PUT', json: { alert_rules: RULES } });
    expect(put.status, put.text).toBe(200);
    // The processor reloads on the NOTIFY of that commit; give it a moment before the first reports.
    await new Promise((r) => setTimeout(r, 2_000));
  });
  afterAll(async () => {
    await producer.close();
    if (zoneId) await call(url(`/maritime/zones/${zoneId}`), writer, { method: 'DELETE' });
    await service?.stop();
  });

  it("gives the zone_entry the on_entry level, raises the on_dwell point's dwell_threshold and the zone_exit's level", async () => {
    // Enters within the first minute, stays 8 minutes (past the 5 min point, short of the zone's own 15), leaves.
    await send(track(INTRUDER, T0, [{ minute: 0, lon: 16.395, lat: 55.403 }, { minute: 1, lon: 16.405, lat: 55.403 }, { minute: 9, lon: 16.405, lat: 55.403 }, { minute: 10, lon: 16.420, lat: 55.403 }, { minute: 13, lon: 16.420, lat: 55.403 }], 30, 6));
    const events = await eventsOf(INTRUDER, (seen) => ['zone_entry', 'dwell_threshold', 'zone_exit'].every((type) => seen.some((e) => e.type === type)));
    expect(events.map((e) => [e.type, e.severity, e.metadata.alert_rule ?? null])).toEqual([
      ['zone_entry', 'critical', 'on_entry'],
      ['dwell_threshold', 'high', 'on_dwell'],
      ['zone_exit', 'low', 'on_exit'],
    ]);
    const [entry, dwell] = events;
    expect(entry).toMatchObject({ requires_action: true, source_module: 'maritime.zones', metadata: { alert_level: 'critical', zone_id: zoneId } });
    expect(dwell).toMatchObject({ requires_action: true, metadata: { alert_rule: 'on_dwell', threshold_minutes: 5, alert_level: 'high', dwell_minutes: 5 } });
    expect(Date.parse(dwell!.timestamp) - Date.parse(entry!.timestamp)).toBe(5 * 60_000);
    // The planner's view of the same events: the rules by zone name, and which trigger each event answers to.
    const rules = (await loadAlertRules(service.context.pool)).get(NAVAL.name);
    expect(events.map((e) => matchAlertRule(rules, e)?.trigger)).toEqual(['on_entry', 'on_dwell', 'on_exit']);
    expect(matchAlertRule(rules, dwell!)?.rule).toEqual(RULES.on_dwell);
  });

  it('applies a rule changed through the API to the running processor, without a restart', async () => {
    const changed = { on_entry: { alert_level: 'high', actions: [{ action: 'log_event' }] } };
    const put = await call(url(`/maritime/zones/${zoneId}/rules`), writer, { method: 'PUT', json: { alert_rules: changed } });
    expect(put.status, put.text).toBe(200);
    await new Promise((r) => setTimeout(r, 2_000));
    const later = new Date(T0.getTime() + 3_600_000);
    await send(track(LATER, later, [{ minute: 0, lon: 16.395, lat: 55.402 }, { minute: 1, lon: 16.405, lat: 55.402 }, { minute: 7, lon: 16.405, lat: 55.402 }], 30, 6));
    const events = await eventsOf(LATER, (seen) => seen.some((e) => e.type === 'zone_entry'));
    // High now, not the critical of before nor the zone's medium; no on_dwell point any more at 5 minutes.
    expect(events.map((e) => [e.type, e.severity, e.metadata.alert_rule ?? null])).toEqual([['zone_entry', 'high', 'on_entry']]);
  });
});
