import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { authFeature, consoleFeature, dronesFeature, eventsFeature, incidentsFeature, maritimeFeature, positionStreamFeature, streamFeature, vesselsFeature } from '../../app/features.ts';
import { FleetSimulator } from '../../drones/simulator/fleet-simulator.ts';
import { runSimulator, type RunningSimulator } from '../../drones/simulator/simulator-runner.ts';
import { readEvent } from '../../events/queries.ts';
import { attachEvent } from '../../incidents/store.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import { inTransaction } from '../../platform/postgres.ts';
import type { Scope } from '../../schemas/auth.ts';
import { screenshot } from '../support/browser.ts';
import { createOperator, signIn, startConsoleStack, type ConsoleStack } from '../support/console-stack.ts';
import { call } from '../support/service.ts';
import { testKafka, testLog } from '../support/stack.ts';

// Issue 26, the two screens docs/console.md listed as not built: an incident's drone missions (state, ETA,
// the drone's live position in a map layer of its own; left out without drones:read) and editing an existing
// zone (alert level, buffer, dwell threshold saved with PATCH, the API's 422 next to the field it names).
// Real Chromium against the real service, Kafka and PostGIS, with the fleet simulator flying the mission.
// Screenshots: test-results/console/incidents-zones-*.png.
const RUN = Math.random().toString(36).slice(2, 8);
const PASSWORD = 'harbour-watch-2026';
const WITH_DRONES = `missions.${RUN}`;
const WITHOUT_DRONES = `nodrones.${RUN}`;
const SCOPES: Scope[] = ['events:read', 'events:write', 'maritime:read', 'maritime:write'];
// West of the harbour, away from the other tests' zones; a slow drone so the mission is still out when looked at.
const DOCK = { id: `iz-${RUN}`, lon: 12.47, lat: 55.62 };
const TARGET = { type: 'Point', coordinates: [12.52, 55.62] };
const ZONE = { name: `Edited berth ${RUN}`, type: 'monitoring', alert_level: 'medium', geometry: { type: 'Circle', center: [12.42, 55.76], radius_meters: 1500 } };

type Feature = { properties: { role: string; drone_id?: string }; geometry: { coordinates: number[] } };
/** The console's drone layer as the map holds it. */
const droneLayer = (page: Page) =>
  page.evaluate(() => {
    const map = (globalThis as never as { pssMap: { map: { getSource(id: string): { serialize(): { data: { features: unknown[] } } } | undefined } } }).pssMap.map;
    return (map.getSource('incident-drones')?.serialize().data.features ?? []) as unknown[];
  }) as Promise<Feature[]>;

describe('the console\'s incident drone missions and zone editing, in Chromium', () => {
  const producer = new KafkaProducer(testKafka('console-iz'));
  let stack: ConsoleStack;
  let page: Page;
  let running: RunningSimulator | undefined;
  let incidentId: string | undefined;
  let missionId: string | undefined;
  let zoneId: string | undefined;
  const api = (path: string, init?: Parameters<typeof call>[2]) => call(`${stack.url}/v1${path}`, stack.admin, init);
  const droneId = `drone-${DOCK.id}`;

  beforeAll(async () => {
    stack = await startConsoleStack('console-iz', [authFeature, maritimeFeature, vesselsFeature, eventsFeature, incidentsFeature, dronesFeature, streamFeature(), positionStreamFeature(), consoleFeature], { PSS_DRONE_TELEMETRY_INTERVAL_MS: '1000' });
    page = stack.page;
    await createOperator(stack, WITH_DRONES, PASSWORD, [...SCOPES, 'drones:read']);
    await createOperator(stack, WITHOUT_DRONES, PASSWORD, SCOPES);
    // Before signing in: the console reads the zones when it starts.
    const created = await api('/maritime/zones', { method: 'POST', json: ZONE });
    expect(created.status, created.text).toBe(201);
    zoneId = created.json.data.id as string;
    const { kafka, topics, codec, config } = stack.service.context;
    const sim = new FleetSimulator({ docks: [DOCK], speedMps: 8, telemetryHz: 1, drainPerMinute: 1, stationSeconds: 60 }, Date.now());
    running = await runSimulator({ kafka: { ...kafka, clientId: 'console-iz-sim' }, producer, codec, topics, topicPrefix: config.topicPrefix, log: testLog }, sim);
  });
  afterAll(async () => {
    await running?.stop();
    if (stack) {
      const { pool } = stack.service.context;
      if (zoneId) await api(`/maritime/zones/${zoneId}`, { method: 'DELETE' });
      if (missionId) {
        await pool.query(`DELETE FROM security_events WHERE source_module = 'drones' AND body->'metadata'->>'mission_id' = $1`, [missionId]);
        await pool.query('DELETE FROM drone_command_outbox WHERE mission_id = $1', [missionId]);
        await pool.query('DELETE FROM drone_missions WHERE id = $1', [missionId]);
      }
      // The drone would otherwise stay in the shared database, silent, for the next tests' fleet monitors.
      await pool.query('DELETE FROM drones WHERE id = $1', [droneId]);
      if (incidentId) {
        for (const table of ['incident_changes', 'incident_events', 'incidents']) await pool.query(`DELETE FROM ${table} WHERE ${table === 'incidents' ? 'id' : 'incident_id'} = $1`, [incidentId]);
        await pool.query(`DELETE FROM security_events WHERE source_module = 'perimeter.console-iz' OR (source_module = 'incidents' AND body->>'source_device' = $1)`, [incidentId]);
      }
      await stack.stop();
    }
    await producer.close();
  });

  it('shows an incident\'s drone mission with its state and ETA, and the drone moving on the map', async () => {
    const posted = await api('/events', { method: 'POST', json: { type: 'perimeter_breach', source_module: 'perimeter.console-iz', title: `Fence breached ${RUN}`, location: { zone: `West fence ${RUN}` } } });
    expect(posted.status, posted.text).toBe(201);
    incidentId = await inTransaction(stack.service.context.pool, async (client) =>
      (await attachEvent(client, (await readEvent(client, posted.json.data.id))!, { groupWindowMinutes: 60, reopenWindowMinutes: 30 }, new Date()))!.incident.id);
    await expect.poll(async () => ((await api('/drones')).json.data as { id: string; link: string }[]).find((d) => d.id === droneId)?.link, { timeout: 30_000 }).toBe('up');
    const mission = await api('/drones/missions', { method: 'POST', json: { kind: 'inspect', target: TARGET, incident_id: incidentId } });
    expect(mission.status, mission.text).toBe(201);
    missionId = mission.json.data.id as string;
    expect(mission.json.data.drone_id).toBe(droneId);

    await signIn(stack, WITH_DRONES, PASSWORD);
    await page.locator('#map[data-zones]').waitFor({ timeout: 60_000 }); // the panels are wired once the map has loaded
    await page.getByRole('tab', { name: 'Incidents' }).click();
    await page.locator(`#incidents li[data-id="${incidentId}"] button`).click();
    const row = page.locator(`.incident .mission[data-id="${missionId}"]`);
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 30_000 }).toBe('launched');
    await expect.poll(() => row.textContent(), { timeout: 15_000 }).toMatch(/inspect · launched · drone drone-iz-\w+ · ETA \d+ min \d\d s · \d+ m to go/);
    // The drone's own layer: its reported position, then (refreshed while the incident is open) further on.
    const dronePoint = async () => (await droneLayer(page)).find((f) => f.properties.role === 'drone')?.geometry.coordinates;
    await expect.poll(dronePoint, { timeout: 15_000 }).toEqual(expect.any(Array));
    const first = (await dronePoint())!;
    const fleet = ((await api('/drones')).json.data as { id: string; position: { lon: number; lat: number } }[]).find((d) => d.id === droneId)!;
    expect(first[0]).toBeCloseTo(fleet.position.lon, 2);
    expect(first[1]).toBeCloseTo(fleet.position.lat, 2);
    await expect.poll(async () => (await dronePoint())?.[0] ?? 0, { timeout: 15_000 }).toBeGreaterThan(first[0]! + 0.0005);
    expect((await droneLayer(page)).map((f) => f.properties.role).sort()).toEqual(['drone', 'route', 'target']);
    await screenshot(page, 'incidents-zones-1-drone-mission');

    // Aborted through the API: the view says so within its refresh, and the drone leaves the map.
    expect((await api(`/drones/missions/${missionId}/abort`, { method: 'POST', json: { reason: 'manual' } })).status).toBe(200);
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 15_000 }).toBe('aborted');
    expect(await droneLayer(page)).toEqual([]);
    expect(stack.log.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });

  it('leaves the drone missions out, without an error, for an operator without drones:read', async () => {
    const other = await stack.browser.newPage({ viewport: { width: 1366, height: 768 } });
    const requested: string[] = [];
    other.on('request', (r) => requested.push(r.url()));
    try {
      await signIn(stack, WITHOUT_DRONES, PASSWORD, {}, other);
      await other.locator('#map[data-zones]').waitFor({ timeout: 60_000 });
      expect(await other.locator('#scopes').textContent()).not.toContain('drones:read');
      await other.getByRole('tab', { name: 'Incidents' }).click();
      await other.locator(`#incidents li[data-id="${incidentId}"] button`).click();
      await other.locator('.incident h3', { hasText: `Fence breached ${RUN}` }).waitFor();
      await other.waitForTimeout(3_500); // longer than a refresh of the missions would take
      expect(await other.locator('.incident').textContent()).not.toContain('Drone missions');
      expect(await other.locator('#message').isHidden()).toBe(true);
      expect(requested.filter((u) => u.includes('/v1/drones'))).toEqual([]);
      await screenshot(other, 'incidents-zones-2-no-drones-scope');
    } finally {
      await other.close();
    }
  });

  it('edits a zone picked on the map: alert level, buffer and dwell stored; a bad buffer refused next to its field', async () => {
    await page.getByRole('tab', { name: 'Zones' }).click();
    const edit = page.getByRole('form', { name: 'Edit a zone' });
    await expect.poll(() => edit.getByLabel('Zone to edit').locator(`option[value="${zoneId}"]`).count()).toBe(1);

    // Picked on the map: the zone's centre, where the map draws it.
    await page.evaluate(() => (globalThis as never as { pssMap: { map: { jumpTo(o: unknown): void } } }).pssMap.map.jumpTo({ center: [12.42, 55.76], zoom: 12 }));
    await page.waitForTimeout(1_500); // a frame with the zone drawn, for the click to find
    await edit.getByRole('button', { name: 'Pick on the map' }).click();
    expect(await edit.getByRole('button', { name: 'Pick on the map' }).getAttribute('aria-pressed')).toBe('true');
    const point = await page.evaluate(() => (globalThis as never as { pssMap: { map: { project(c: number[]): { x: number; y: number } } } }).pssMap.map.project([12.42, 55.76]));
    const box = (await page.locator('#map').boundingBox())!;
    await page.mouse.click(box.x + point.x, box.y + point.y);
    await expect.poll(() => edit.getByLabel('Zone to edit').inputValue(), { timeout: 10_000 }).toBe(zoneId);
    expect(await page.locator('#zones').getAttribute('data-points')).toBeNull(); // the click drew no point of a new zone
    expect(await edit.getByLabel('Name').inputValue()).toBe(ZONE.name);
    expect(await edit.getByLabel('Alert level').inputValue()).toBe('medium');

    // Keyboard only: from the alert level through the buffer and dwell fields to the save button.
    await edit.getByLabel('Alert level').selectOption('critical');
    await edit.getByLabel('Alert level').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.type('250');
    await page.keyboard.press('Tab');
    await page.keyboard.type('15');
    await page.keyboard.press('Tab'); // Active
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => edit.getByRole('status').textContent(), { timeout: 10_000 }).toBe(`Saved zone ${ZONE.name}.`);
    await screenshot(page, 'incidents-zones-3-zone-edited');
    const stored = (await api(`/maritime/zones/${zoneId}`)).json.data;
    expect(stored).toMatchObject({ alert_level: 'critical', buffer: { distance_meters: 250, enabled: true }, dwell: { threshold_minutes: 15 }, active: true, geometry: ZONE.geometry });

    // A negative buffer: the API's 422 beside the buffer field (and named by it), nothing stored.
    await edit.getByLabel('Buffer (m, empty for none)').fill('-5');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    const bufferError = edit.locator('[data-error=buffer]');
    await expect.poll(() => bufferError.textContent(), { timeout: 10_000 }).toMatch(/must be > 0/);
    expect(await bufferError.isVisible()).toBe(true);
    expect(await edit.getByLabel('Buffer (m, empty for none)').getAttribute('aria-describedby')).toBe(await bufferError.getAttribute('id'));
    expect(await edit.locator('[data-error=dwell]').isHidden()).toBe(true);
    expect(await page.evaluate(() => (globalThis as never as { document: { activeElement: { getAttribute(n: string): string | null } | null } }).document.activeElement?.getAttribute('name'))).toBe('buffer');
    await screenshot(page, 'incidents-zones-4-zone-refused');
    expect((await api(`/maritime/zones/${zoneId}`)).json.data.buffer).toMatchObject({ distance_meters: 250 });

    // Emptied, the buffer is kept but switched off (the API has no null for it).
    await edit.getByLabel('Buffer (m, empty for none)').fill('');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await api(`/maritime/zones/${zoneId}`)).json.data.buffer, { timeout: 10_000 }).toMatchObject({ distance_meters: 250, enabled: false });
    expect(stack.log.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });
});
