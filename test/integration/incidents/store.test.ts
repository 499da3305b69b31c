// Issue 23, item 5: incidents on the real PostGIS: attaching events (and again, as a replay does), the AIS x
// gate fusion through a booking, the group and reopen windows, one incident per key under concurrency,
// merging, the acknowledgement-timeout sweep, and the audit of each change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventId } from '../../../events/event-id.ts';
import { readEvent } from '../../../events/queries.ts';
import { storeEvents } from '../../../events/store.ts';
import type { Operator } from '../../../events/triage.ts';
import { incidentId } from '../../../incidents/incident-state.ts';
import { attachEvent, changeIncident, dueEscalations, merge, type AttachSettings } from '../../../incidents/store.ts';
import { createPool, inTransaction, migrate, type Pool } from '../../../platform/postgres.ts';
import type { EventSeverity, SecurityEvent } from '../../../schemas/event.ts';
import { testConfig, testLog } from '../../support/stack.ts';

const SETTINGS: AttachSettings = { groupWindowMinutes: 60, reopenWindowMinutes: 30, ackTimeoutMinutes: { medium: 30, high: 10, critical: 5 } };
const OFFICER: Operator = { credentialId: 'key_1', principal: 'duty.officer', kind: 'api_key' };
const T0 = Date.UTC(2026, 10, 21, 7, 0, 0);
const MIN = 60_000;
const at = (minutes: number) => new Date(T0 + minutes * MIN);

describe('incidents on the real PostGIS', () => {
  const config = testConfig();
  let pool: Pool;
  const tag = Math.random().toString(36).slice(2, 8);
  const module = `maritime.inc${tag}`;
  const gateModule = `gate.inc${tag}`;
  // MMSIs of this file alone (the database is shared by every file of a run).
  const mmsiBase = 200_000_000 + Math.floor(Math.random() * 700_000) * 1000;
  let nextMmsi = 0;
  const mmsi = () => mmsiBase + ++nextMmsi;
  let n = 0;

  const maritime = (vessel: number, minutes: number, severity: EventSeverity = 'high', type = 'zone_entry'): SecurityEvent => ({
    id: eventId(`${module}:${++n}`), type, timestamp: at(minutes).toISOString(), category: 'maritime', severity, source_module: module, source_device: 'ais',
    title: `${type} ${n}`, description: '', location: { lat: 55.69, lng: 12.6, zone: `Holmen ${tag}` }, metadata: { mmsi: vessel, zone_id: `zone_${tag}` },
    requires_action: true, assigned_to: '', incident_id: null,
  });
  const seal = (container: string, minutes: number): SecurityEvent => ({
    id: eventId(`${gateModule}:${++n}`), type: 'seal_violation', timestamp: at(minutes).toISOString(), category: 'gate', severity: 'high', source_module: gateModule,
    source_device: 'G1/L2', title: `seal ${n}`, description: '', location: {}, metadata: { gate: `G${tag}`, lane: 'L2', container_id: container, vehicle_plate: 'AB123CD' },
    requires_action: true, assigned_to: '', incident_id: null,
  });
  const attach = async (event: SecurityEvent, now = at(0), settings = SETTINGS) =>
    inTransaction(pool, async (client) => {
      await storeEvents(client, [event]);
      return attachEvent(client, event, settings, now);
    });
  const changes = async (id: string) =>
    (await pool.query('SELECT revision, action, principal, auth_kind, event_id, before, after FROM incident_changes WHERE incident_id = $1 ORDER BY revision', [id])).rows;
  const incidentEvents = async (id: string, type: string) =>
    (await pool.query<{ body: SecurityEvent }>("SELECT body FROM security_events_current WHERE source_module = $1 AND body->>'source_device' = $2 AND type = $3", ['incidents', id, type])).rows.map((r) => r.body);

  beforeAll(async () => {
    await migrate(config.databaseUrl, testLog);
    pool = createPool(config.databaseUrl, 12);
  });
  afterAll(async () => {
    const ids = (await pool.query<{ id: string }>("SELECT id FROM incidents WHERE key LIKE 'vessel:' || $1 || '%' OR key LIKE $2", [String(mmsiBase).slice(0, 6), `%${tag.toUpperCase()}%`])).rows.map((r) => r.id);
    await pool.query("DELETE FROM security_events WHERE source_module = ANY($1::text[]) OR (source_module = $2 AND body->>'source_device' = ANY($3::text[]))", [[module, gateModule], 'incidents', ids]);
    await pool.query('DELETE FROM incident_changes WHERE incident_id = ANY($1::text[])', [ids]);
    await pool.query('DELETE FROM incident_events WHERE incident_id = ANY($1::text[])', [ids]);
    await pool.query('DELETE FROM incidents WHERE id = ANY($1::text[])', [ids]);
    await pool.query('DELETE FROM gate_appointments WHERE appointment_id LIKE $1', [`apt-${tag}-%`]);
    await pool.query('DELETE FROM vessels WHERE mmsi >= $1 AND mmsi < $2', [mmsiBase, mmsiBase + 1000]);
    await pool.end();
  });

  it('opens an incident for an event, sets the event\'s incident_id as an operator change of the service, and stores incident_created', async () => {
    const vessel = mmsi();
    const entry = maritime(vessel, 0, 'critical');
    const result = await attach(entry, at(1));
    expect(result).toMatchObject({ created: true, reopened: false, attached: true });
    const incident = result!.incident;
    // Deterministic: the key and the opening event, so a replay that opens it again finds the same one.
    expect(incident).toMatchObject({ id: incidentId(`vessel:${vessel}`, entry.id), key: `vessel:${vessel}`, status: 'open', severity: 'critical', event_count: 1, mmsi: vessel, zone: `Holmen ${tag}`, next_escalation_at: at(6).toISOString() });
    expect((await readEvent(pool, entry.id))?.incident_id).toBe(incident.id);
    const { rows } = await pool.query('SELECT auth_kind, principal, after FROM event_changes WHERE event_id = $1', [entry.id]);
    expect(rows).toEqual([{ auth_kind: 'system', principal: 'incidents.grouping', after: { requires_action: true, assigned_to: '', incident_id: incident.id } }]);
    expect(await incidentEvents(incident.id, 'incident_created')).toEqual([expect.objectContaining({ severity: 'critical', incident_id: incident.id, requires_action: true })]);
    expect(await changes(incident.id)).toEqual([expect.objectContaining({ revision: 1, action: 'opened', auth_kind: 'system', event_id: entry.id })]);
  });

  it('changes nothing when the same event is attached again (a replay)', async () => {
    const entry = maritime(mmsi(), 0);
    const first = await attach(entry);
    const again = await attach(entry, at(5));
    expect(again).toEqual({ incident: first!.incident, created: false, reopened: false, attached: false });
    expect(await changes(first!.incident.id)).toHaveLength(1);
    expect((await pool.query('SELECT revision FROM event_triage WHERE event_id = $1', [entry.id])).rows).toEqual([{ revision: 1 }]);
  });

  it('joins events of the key within the group window (severity the highest), and opens a new incident past it', async () => {
    const vessel = mmsi();
    const first = (await attach(maritime(vessel, 0, 'medium')))!.incident;
    const joined = await attach(maritime(vessel, 50, 'high', 'ais_gap'), at(50));
    expect(joined).toMatchObject({ created: false, incident: { id: first.id, event_count: 2, severity: 'high', next_escalation_at: at(30).toISOString() } });
    const later = await attach(maritime(vessel, 111), at(111));
    expect(later?.created).toBe(true);
    expect(later?.incident.id).not.toBe(first.id);
    expect((await changes(first.id)).map((c) => c.action)).toEqual(['opened', 'event_attached']);
  });

  it('puts a seal violation on a container booked for the vessel in the vessel\'s incident (AIS x gate), by MMSI or by IMO', async () => {
    const vessel = mmsi();
    const gap = (await attach(maritime(vessel, 0, 'high', 'ais_gap')))!.incident;
    const container = `MSCU${tag.toUpperCase()}1`;
    await pool.query('INSERT INTO gate_appointments (appointment_id, body) VALUES ($1, $2)', [`apt-${tag}-1`, { appointment_id: `apt-${tag}-1`, plate: 'AB123CD', container_id: container, vessel_mmsi: vessel }]);
    const joined = await attach(seal(container.toLowerCase(), 20), at(20));
    expect(joined?.incident).toMatchObject({ id: gap.id, event_count: 2, container_id: container, gate_id: `G${tag}` });
    expect(await changes(gap.id)).toContainEqual(expect.objectContaining({ action: 'event_attached', before: expect.objectContaining({ container_id: null }) }));

    // A booking that names the ship by IMO: its MMSI from the vessels' static data.
    const other = mmsi();
    await pool.query('INSERT INTO vessels (mmsi, imo, last_report_at) VALUES ($1, $2, now())', [other, 9074729]);
    const entry = (await attach(maritime(other, 0)))!.incident;
    const boxed = `TGHU${tag.toUpperCase()}2`;
    await pool.query('INSERT INTO gate_appointments (appointment_id, body) VALUES ($1, $2)', [`apt-${tag}-2`, { appointment_id: `apt-${tag}-2`, plate: 'XY1', container_id: boxed, vessel_imo: 9074729 }]);
    const byImo = await attach(seal(boxed, 10), at(10));
    expect(byImo?.incident.id).toBe(entry.id);
    expect((await pool.query('SELECT after FROM incident_changes WHERE incident_id = $1 AND revision = 2', [entry.id])).rows[0].after).toMatchObject({ container_id: boxed });

    // Without a booking the container is the key.
    const alone = await attach(seal(`CSQU${tag.toUpperCase()}3`, 10), at(10));
    expect(alone?.incident.key).toBe(`container:CSQU${tag.toUpperCase()}3`);
  });

  it('reopens a resolved incident for an event within the reopen window, and opens a new one past it', async () => {
    const vessel = mmsi();
    const opened = (await attach(maritime(vessel, 0)))!.incident;
    await inTransaction(pool, (client) => changeIncident(client, opened.id, { status: 'resolved', resolution_reason: 'left the zone' }, OFFICER, at(10)));
    const flap = await attach(maritime(vessel, 35), at(35));
    expect(flap).toMatchObject({ created: false, reopened: true, incident: { id: opened.id, status: 'open', reopen_count: 1, resolved_at: null, escalation_step: 0, next_escalation_at: at(45).toISOString() } });
    await inTransaction(pool, (client) => changeIncident(client, opened.id, { status: 'resolved', resolution_reason: 'left again' }, OFFICER, at(40)));
    const late = await attach(maritime(vessel, 71), at(71));
    expect(late?.created).toBe(true);
    expect((await changes(opened.id)).map((c) => c.action)).toEqual(['opened', 'resolved', 'reopened', 'resolved']);
    expect(await incidentEvents(opened.id, 'incident_resolved')).toHaveLength(2);
  });

  it('opens one incident for events of one key attached at the same time', async () => {
    const vessel = mmsi();
    const events = Array.from({ length: 8 }, (_, i) => maritime(vessel, i));
    await inTransaction(pool, (client) => storeEvents(client, events));
    const results = await Promise.all(events.map((e) => inTransaction(pool, (client) => attachEvent(client, e, SETTINGS, at(10)))));
    expect(new Set(results.map((r) => r!.incident.id)).size).toBe(1);
    expect(results.filter((r) => r!.created)).toHaveLength(1);
    const { rows } = await pool.query('SELECT event_count, revision FROM incidents WHERE id = $1', [results[0]!.incident.id]);
    expect(rows).toEqual([{ event_count: 8, revision: 8 }]);
  });

  it('audits operator changes with who, when, before and after; a repeated change writes nothing', async () => {
    const opened = (await attach(maritime(mmsi(), 0)))!.incident;
    const update = await inTransaction(pool, (client) => changeIncident(client, opened.id, { assigned_to: 'op-7', status: 'acknowledged', note: 'on it' }, OFFICER, at(2)));
    expect(update.incident).toMatchObject({ status: 'acknowledged', acknowledged_by: 'duty.officer', assigned_to: 'op-7', notes: [{ at: at(2).toISOString(), by: 'duty.officer', text: 'on it' }], revision: 4, next_escalation_at: null });
    expect(update.events.map((e) => e.type)).toEqual(['incident_acknowledged']);
    expect((await changes(opened.id)).slice(1)).toEqual([
      { revision: 2, action: 'assigned', principal: 'duty.officer', auth_kind: 'api_key', event_id: null, before: { assigned_to: '' }, after: { assigned_to: 'op-7' } },
      { revision: 3, action: 'acknowledged', principal: 'duty.officer', auth_kind: 'api_key', event_id: null,
        before: { status: 'open', acknowledged_at: null, acknowledged_by: null, next_escalation_at: at(10).toISOString() },
        after: { status: 'acknowledged', acknowledged_at: at(2).toISOString(), acknowledged_by: 'duty.officer', next_escalation_at: null } },
      { revision: 4, action: 'note_added', principal: 'duty.officer', auth_kind: 'api_key', event_id: null, before: { notes: [] }, after: { notes: [{ at: at(2).toISOString(), by: 'duty.officer', text: 'on it' }] } },
    ]);
    const repeat = await inTransaction(pool, (client) => changeIncident(client, opened.id, { assigned_to: 'op-7', status: 'acknowledged' }, OFFICER, at(3)));
    expect(repeat).toMatchObject({ changed: false, events: [] });
    expect(await changes(opened.id)).toHaveLength(4);
  });

  it('merges: the events move (incident_id republished), the source is resolved into the target, and its key follows', async () => {
    const a = mmsi();
    const b = mmsi();
    const aEvents = [maritime(a, 0, 'critical'), maritime(a, 1, 'low')];
    const source = (await attach(aEvents[0]!))!.incident;
    await attach(aEvents[1]!);
    const target = (await attach(maritime(b, 5, 'medium')))!.incident;
    const merged = await inTransaction(pool, (client) => merge(client, source.id, target.id, OFFICER, at(20)));
    expect(merged.target).toMatchObject({ id: target.id, event_count: 3, severity: 'critical', status: 'open' });
    expect(merged.source).toMatchObject({ status: 'resolved', merged_into: target.id, event_count: 0, resolved_by: 'duty.officer' });
    for (const e of aEvents) expect((await readEvent(pool, e.id))?.incident_id).toBe(target.id);
    expect((await pool.query('SELECT count(*)::int AS n FROM incident_events WHERE incident_id = $1', [target.id])).rows[0].n).toBe(3);
    expect(await incidentEvents(source.id, 'incident_resolved')).toEqual([expect.objectContaining({ metadata: expect.objectContaining({ merged_into: target.id }) })]);
    // The source's own incident_created is about the source and stays with it.
    expect(await incidentEvents(source.id, 'incident_created')).toEqual([expect.objectContaining({ incident_id: source.id })]);
    expect((await changes(target.id)).at(-1)).toMatchObject({ action: 'merged_from', after: { merged_from: source.id, event_count: 3, severity: 'critical' } });
    // The source's key now leads to the target.
    const next = await attach(maritime(a, 25), at(25));
    expect(next?.incident.id).toBe(target.id);
    await expect(inTransaction(pool, (client) => merge(client, source.id, target.id, OFFICER, at(30)))).rejects.toThrow(/was merged into/);
  });

  it('escalates an incident nobody acknowledged once its timeout has passed, once across concurrent sweeps', async () => {
    const opened = (await attach(maritime(mmsi(), 0, 'high'), at(0)))!.incident;
    const sweep = (minutes: number) => inTransaction(pool, (client) => dueEscalations(client, at(minutes), { ackTimeoutMinutes: SETTINGS.ackTimeoutMinutes!, escalationSteps: 3, limit: 1000 }));
    expect((await sweep(9)).filter((e) => e.incident.id === opened.id)).toEqual([]);
    const swept = (await Promise.all([sweep(10), sweep(10), sweep(10)])).flat().filter((e) => e.incident.id === opened.id);
    expect(swept).toHaveLength(1);
    expect(swept[0]).toMatchObject({ incident: { escalation_step: 1, next_escalation_at: at(20).toISOString() }, event: { type: 'incident_escalated', severity: 'high' } });
    expect(await incidentEvents(opened.id, 'incident_escalated')).toHaveLength(1);
    expect((await changes(opened.id)).at(-1)).toMatchObject({ action: 'escalated', principal: 'incidents.escalation', auth_kind: 'system', after: { escalation_step: 1 } });
  });

  it('does not group the incidents\' own events', async () => {
    const opened = (await attach(maritime(mmsi(), 0)))!.incident;
    const [created] = await incidentEvents(opened.id, 'incident_created');
    expect(await inTransaction(pool, (client) => attachEvent(client, created!, SETTINGS, at(1)))).toBeUndefined();
  });
});
