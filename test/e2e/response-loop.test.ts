// Issue 23 "Done means", end to end on the real broker and PostGIS: a vessel entering a critical zone whose
// alert rule says notify_operator, escalate_to [supervisor, port_authority] and lock_gates [G1, G2] gives
// one incident with its events, the notifications, the escalations delivered to the parties' webhook
// receivers, two lock commands on gate.commands and gate_locked events; its exit (on_exit close_incident)
// resolves the incident at once; reading security.events again from the start repeats nothing; a perimeter
// event posted at high severity gets its level's defaults; an unacknowledged incident escalates to the next
// party once its timeout has passed (the sweep run at a moved instant).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEATURES } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { KafkaAdmin, KafkaProducer, type InRecord } from '../../platform/kafka/index.ts';
import { verifyWebhookSignature } from '../../delivery/webhooks/signature.ts';
import { listActions, type ActionView } from '../../response/action-log.ts';
import { sweepAckTimeouts } from '../../response/role.ts';
import type { SecurityEvent } from '../../schemas/event.ts';
import type { GateCommand } from '../../schemas/gate-transaction.ts';
import { DEFAULT_SYSTEM_CONFIG, type SystemConfig } from '../../schemas/system-config.ts';
import { valueOf } from '../support/codec.ts';
import { call } from '../support/service.ts';
import { consumeUntil, testConfig, testKafka, testLog, unique } from '../support/stack.ts';
import { track } from '../support/tracks.ts';
import { changeSystemConfig, type ChangedSystemConfig } from '../support/system-config.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

const T0 = new Date(Date.now() - 30 * 60_000);
const MMSI = 219_000_000 + Math.floor(Math.random() * 900_000);
const tag = unique('response');
const G1 = `G1-${tag}`;
const G2 = `G2-${tag}`;
const ZONE = { name: `Ammunition quay ${tag}`, type: 'restricted', alert_level: 'critical', geometry: { type: 'Polygon', coordinates: [[[16.600, 55.500], [16.610, 55.500], [16.610, 55.506], [16.600, 55.506], [16.600, 55.500]]] } };
const ALERT_RULES = {
  on_entry: { alert_level: 'critical', actions: [{ action: 'notify_operator' }, { action: 'escalate_to', parties: ['supervisor', 'port_authority'] }, { action: 'lock_gates', gates: [G1, G2] }] },
  on_exit: { alert_level: 'low', actions: [{ action: 'close_incident' }] },
};
const SECRET = 'whsec_response_loop_test_0123456789abcdef';

describe('the response loop end to end', () => {
  let service: RunningService;
  let receiver: Receiver;
  let admin: string;
  let zoneId: string;
  let config: SystemConfig;
  let changed: ChangedSystemConfig | undefined;
  const hooks: string[] = [];
  const producer = new KafkaProducer(testKafka());
  const url = (path: string) => `${service.url}/v1${path}`;
  const events = (records: InRecord[]) => records.map((r) => ({ record: r, event: valueOf(r) as SecurityEvent }));

  /** The actions recorded for an event, once as many as `n` are finished (done, muted or waiting for the fleet). */
  async function actionsOf(eventId: string, n: number): Promise<ActionView[]> {
    for (let i = 0; i < 300; i++) {
      const actions = await listActions(service.context.pool, { eventId });
      if (actions.length >= n && actions.every((a) => ['done', 'muted', 'waiting_fleet'].includes(a.status))) return actions;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the actions of ${eventId} did not all finish within 30 s: ${JSON.stringify(await listActions(service.context.pool, { eventId }))}`);
  }

  beforeAll(async () => {
    receiver = await startReceiver();
    service = await startService(testConfig({ PSS_WEBHOOK_ALLOW_LOOPBACK: 'true', PSS_RATE_LIMIT_BURST: '10000' }), ['api', 'processors'], testLog, FEATURES);
    const { pool, config: c } = service.context;
    admin = (await createApiKey(pool, c.environment, { name: 'response-admin', scopes: ['maritime:write', 'maritime:read', 'webhooks:write', 'system:read', 'system:write', 'events:read', 'events:write'] }, 'test')).key;
    // The parties' receivers subscribe to a type nothing here raises: what reaches them is the escalation.
    for (const party of ['supervisor', 'port_authority', 'push']) {
      const res = await call(url('/webhooks'), admin, { method: 'POST', json: { name: `${party} ${tag}`, url: receiver.url(`/${party}`), events: ['fence_tamper'], secret: SECRET } });
      expect(res.status, res.text).toBe(201);
      hooks.push(res.json.data.id);
    }
    const [supervisorHook, authorityHook, pushHook] = hooks as [string, string, string];
    // On top of what other files stored (their zones may name their own gates), put back afterwards.
    changed = await changeSystemConfig(`${service.url}/v1`, admin, (current) => ({
      ...current,
      alert_levels: DEFAULT_SYSTEM_CONFIG.alert_levels,
      escalation_order: DEFAULT_SYSTEM_CONFIG.escalation_order,
      channels: { push: { webhook_ids: [pushHook] } },
      parties: DEFAULT_SYSTEM_CONFIG.parties.map((p) => ({ ...p, webhook_ids: p.id === 'supervisor' ? [supervisorHook] : p.id === 'port_authority' ? [authorityHook] : [] })),
      gates: [...current.gates.filter((g) => g.id !== G1 && g.id !== G2), { id: G1, name: 'North gate' }, { id: G2, name: 'South gate' }],
    }));
    config = changed.config;
    const zone = await call(url('/maritime/zones'), admin, { method: 'POST', json: ZONE });
    expect(zone.status, zone.text).toBe(201);
    zoneId = zone.json.data.id;
    const rules = await call(url(`/maritime/zones/${zoneId}/rules`), admin, { method: 'PUT', json: { alert_rules: ALERT_RULES } });
    expect(rules.status, rules.text).toBe(200);
    await new Promise((r) => setTimeout(r, 2_000)); // the processor reloads the zone's rules on NOTIFY
  });
  afterAll(async () => {
    await producer.close();
    if (zoneId) await call(url(`/maritime/zones/${zoneId}`), admin, { method: 'DELETE' });
    // The replay case restarted the service on another port.
    await changed?.restore(`${service.url}/v1`);
    for (const id of hooks) await call(url(`/webhooks/${id}`), admin, { method: 'DELETE' });
    await service?.stop();
    await receiver?.close();
  });

  it('a vessel in a critical zone: one incident, notifications, escalations at the parties, two gate locks; its exit resolves the incident', async () => {
    // The stay, then (once the entry has been answered, as minutes apart live) the way out. Sent together,
    // entry and exit could be planned in either order: they are on different partitions of security.events.
    const positions = track(MMSI, T0, [{ minute: 0, lon: 16.595, lat: 55.503 }, { minute: 2, lon: 16.605, lat: 55.503 }, { minute: 6, lon: 16.605, lat: 55.503 }, { minute: 8, lon: 16.620, lat: 55.503 }, { minute: 10, lon: 16.620, lat: 55.503 }], 30);
    const leaving = positions.findIndex((p) => (p.lon ?? 0) > 16.61);
    const send = (part: typeof positions) => producer.send(part.map((p) => ({ topic: service.context.topics.aisPositions, key: String(p.mmsi), value: JSON.stringify(p) })));
    await send(positions.slice(0, leaving));
    const entered = events(await consumeUntil(service.context.topics.securityEvents, (records) => events(records).some(({ event }) => event.type === 'zone_entry' && event.metadata.mmsi === MMSI), { timeoutMs: 60_000 }));
    await actionsOf(entered.find(({ event }) => event.type === 'zone_entry' && event.metadata.mmsi === MMSI)!.event.id, 9);
    await send(positions.slice(leaving));

    const seen = events(await consumeUntil(service.context.topics.securityEvents, (records) => events(records).some(({ event }) => event.type === 'incident_resolved' && event.metadata.key === `vessel:${MMSI}`), { timeoutMs: 60_000 }));
    const mine = seen.filter(({ event }) => event.metadata.mmsi === MMSI && event.location.zone === ZONE.name);
    const entry = mine.find(({ event }) => event.type === 'zone_entry')!.event;
    const exit = mine.find(({ event }) => event.type === 'zone_exit')!.event;
    expect(entry.severity).toBe('critical');

    // One incident, both events attached, resolved by the exit's close_incident.
    const list = await call(url(`/incidents?mmsi=${MMSI}`), admin);
    expect(list.status, list.text).toBe(200);
    expect(list.json.data).toHaveLength(1);
    const incident = list.json.data[0];
    expect(incident).toMatchObject({ status: 'resolved', severity: 'critical' });
    const detail = await call(url(`/incidents/${incident.id}`), admin);
    expect(detail.json.data.events.map((e: SecurityEvent) => e.id)).toEqual(expect.arrayContaining([entry.id, exit.id]));

    // The entry's actions: the rule's on top of the critical level's defaults, each once.
    const actions = await actionsOf(entry.id, 9);
    expect(actions.map((a) => `${a.kind}:${a.target}:${a.status}`).sort()).toEqual([
      'dispatch_drone:inspect:waiting_fleet',
      'escalate:coast_guard:done', 'escalate:port_authority:done', 'escalate:supervisor:done',
      `lock_gate:${G1}:done`, `lock_gate:${G2}:done`,
      'notify:audio_alarm:done', 'notify:dashboard:done', 'notify:push:done',
    ]);
    expect(actions.every((a) => a.incident_id === incident.id)).toBe(true);
    // The event as operators see it now: in its incident, asking for action; republished as an update.
    const read = await call(url(`/events/${entry.id}`), admin);
    expect(read.json.data).toMatchObject({ incident_id: incident.id, requires_action: true });
    const updates = events(await consumeUntil(service.context.topics.securityEvents, (records) => events(records).some(({ record, event }) => event.id === entry.id && record.headers.change === 'updated' && event.incident_id === incident.id), { timeoutMs: 30_000 })).filter(({ record, event }) => event.id === entry.id && record.headers.change === 'updated');
    expect(updates.length).toBeGreaterThanOrEqual(1);

    // Escalations delivered, signed, once each, to the parties' own receivers; the push channel got the event itself.
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && ['/supervisor', '/port_authority', '/push'].some((p) => !receiver.received.some((r) => r.path === p))) await new Promise((r) => setTimeout(r, 100));
    const at = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => r.body.event);
    expect(at('/supervisor').map((e) => [e.type, e.metadata.party, e.metadata.cause_event_id])).toEqual([['incident_escalated', 'supervisor', entry.id]]);
    expect(at('/port_authority').map((e) => [e.type, e.metadata.party, e.metadata.cause_event_id])).toEqual([['incident_escalated', 'port_authority', entry.id]]);
    expect(at('/push').map((e) => e.id)).toEqual([entry.id]);
    for (const r of receiver.received) {
      expect(verifyWebhookSignature({ secret: SECRET, rawBody: r.raw, signatureHeader: r.headers['x-service-signature'] as string, timestampHeader: r.headers['x-service-timestamp'] as string }).ok).toBe(true);
    }

    // Two lock commands on gate.commands and a gate_locked event per gate.
    const commands = (await consumeUntil(service.context.topics.gateCommands, (records) => records.filter((r) => (valueOf(r) as GateCommand).cause?.event_id === entry.id).length >= 2, { timeoutMs: 30_000, quietMs: 1_000 }))
      .map((r) => valueOf(r) as GateCommand).filter((c) => c.cause?.event_id === entry.id);
    expect(commands.map((c) => [c.gate, c.lane, c.action, c.origin]).sort()).toEqual([[G1, '*', 'lock', 'response'], [G2, '*', 'lock', 'response']]);
    // Actions run side by side: the gate_locked events may come after the incident_resolved that ended `seen`.
    const lockedOf = (records: InRecord[]) => events(records).filter(({ record, event }) => record.headers.change === 'created' && event.type === 'gate_locked' && event.metadata.cause_event_id === entry.id);
    const locked = lockedOf(await consumeUntil(service.context.topics.securityEvents, (records) => lockedOf(records).length >= 2, { timeoutMs: 30_000, quietMs: 1_000 })).map(({ event }) => event.metadata.gate_id);
    expect(locked.sort()).toEqual([G1, G2].sort());

    // The exit: close_incident, and incident_resolved on the topic.
    const exitActions = await actionsOf(exit.id, 2);
    // Its low notification is muted: the vessel's critical incident is still open when the exit joins it.
    expect(exitActions.map((a) => `${a.kind}:${a.status}`).sort()).toEqual(['close_incident:done', 'notify:muted']);
    expect(seen.filter(({ event }) => event.type === 'incident_resolved' && event.incident_id === incident.id)).toHaveLength(1);
  });

  it('reading security.events again from the start repeats no action, command or escalation', async () => {
    const { pool, topics, config: c, kafka } = service.context;
    const before = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM response_actions');
    const commandsBefore = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM gate_command_outbox');
    const deliveriesBefore = receiver.received.length;
    // Move the response group back to the start of the topic while the service runs: stop it, forget the group, start again.
    await service.stop();
    const kafkaAdmin = new KafkaAdmin(kafka);
    await kafkaAdmin.deleteGroup(`${c.topicPrefix}response`);
    await kafkaAdmin.close();
    service = await startService(testConfig({ PSS_WEBHOOK_ALLOW_LOOPBACK: 'true', PSS_RATE_LIMIT_BURST: '10000' }), ['api', 'processors'], testLog, FEATURES);
    // Until the new group has read the whole topic again.
    const end = await endOffset(service, topics.securityEvents);
    for (let i = 0; i < 300 && (await committed(service, `${c.topicPrefix}response`, topics.securityEvents)) < end; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await committed(service, `${c.topicPrefix}response`, topics.securityEvents)).toBeGreaterThanOrEqual(end);
    await new Promise((r) => setTimeout(r, 2_000)); // anything it had recorded would have run by now
    expect((await service.context.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM response_actions')).rows[0]!.n).toBe(before.rows[0]!.n);
    expect((await service.context.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM gate_command_outbox')).rows[0]!.n).toBe(commandsBefore.rows[0]!.n);
    expect(receiver.received.length).toBe(deliveriesBefore);
  });

  it('a perimeter breach posted at high severity gets the high level defaults; unacknowledged, it escalates to the next party after its timeout', async () => {
    const posted = await call(url('/events'), admin, { method: 'POST', json: {
      type: 'perimeter_breach', source_module: `perimeter.${tag}`, source_device: 'fence-9', title: 'Fence cut at the ammunition quay',
      description: 'Cut detected by the fence sensor', location: { lat: 55.6, lng: 16.7 }, metadata: { camera_id: 'cam-31' },
    } });
    expect(posted.status, posted.text).toBe(201);
    const breach = posted.json.data as SecurityEvent;
    expect(breach.severity).toBe('high');
    const actions = await actionsOf(breach.id, 4);
    expect(actions.map((a) => `${a.kind}:${a.target}:${a.source}`).sort()).toEqual(['dispatch_drone:inspect:level', 'escalate:supervisor:level', 'notify:audio_alarm:level', 'notify:push:level']);
    const incidentId = actions[0]!.incident_id!;
    expect(incidentId).toBeTruthy();

    // (A delivery's event carries the spec's webhook fields only: the incident is named in its metadata.)
    // Nobody acknowledges: past the high level's 10 min timeout the sweep escalates to the next party, once.
    const later = new Date(Date.now() + 11 * 60_000);
    const escalations = await sweepAckTimeouts(service.context.pool, config, later);
    const mine = escalations.filter((a) => a.incident_id === incidentId);
    expect(mine.map((a) => [a.kind, a.target, a.source])).toEqual([['escalate', 'port_authority', 'ack_timeout']]);
    expect((await sweepAckTimeouts(service.context.pool, config, later)).filter((a) => a.incident_id === incidentId)).toEqual([]);
    const done = await actionsOf(mine[0]!.event_id, 1);
    expect(done).toMatchObject([{ status: 'done', target: 'port_authority' }]);
    const deadline = Date.now() + 30_000;
    const toAuthority = () => receiver.received.filter((r) => r.path === '/port_authority' && r.body.event.metadata.incident_id === incidentId);
    while (Date.now() < deadline && toAuthority().length === 0) await new Promise((r) => setTimeout(r, 100));
    expect(toAuthority().map((r) => [r.body.event.type, r.body.event.metadata.escalation_step])).toEqual([['incident_escalated', 1]]);
  });
});

async function endOffset(service: RunningService, topic: string): Promise<number> {
  const { KafkaPartitionReader } = await import('../../platform/kafka/index.ts');
  const reader = new KafkaPartitionReader(service.context.kafka, topic, 'end-check');
  try {
    return Number((await reader.offsets('latest')).reduce((a, b) => a + b, 0n));
  } finally {
    await reader.close();
  }
}

async function committed(service: RunningService, group: string, topic: string): Promise<number> {
  const admin = new KafkaAdmin(service.context.kafka);
  try {
    return Number([...(await admin.committedOffsets(group, topic)).values()].reduce((a, b) => a + b, 0n));
  } finally {
    await admin.close();
  }
}
