import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { readEvent } from '../../events/queries.ts';
import { attachEvent } from '../../incidents/store.ts';
import { inTransaction } from '../../platform/postgres.ts';
import { authFeature, consoleFeature, eventsFeature, gateFeature, incidentsFeature, ingestFeature, maritimeFeature, positionStreamFeature, streamFeature, vesselsFeature } from '../../app/features.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import type { VesselPosition } from '../../schemas/ais.ts';
import { screenshot } from '../support/browser.ts';
import { createOperator, signIn, startConsoleStack, type ConsoleStack } from '../support/console-stack.ts';
import { reading } from '../support/gate-readings.ts';
import { jsonCodec } from '../support/codec.ts';
import { call } from '../support/service.ts';
import { testKafka } from '../support/stack.ts';
import { track } from '../support/tracks.ts';

// Issue 26 "Done means", in real Chromium against the real service, Kafka and PostGIS: sign in through the
// service's OAuth pages (the console is a public PKCE client registered by set-up), the zones and moving
// vessels on the map, a vessel's details and track on a click, a zone entry arriving live in the events
// panel, and the streams dropped and restored showing every event once. Screenshots: test-results/console/.
const RUN = Math.random().toString(36).slice(2, 8);
const BASE = 219_500_000 + Math.floor(Math.random() * 400) * 1_000;
const ZONE = {
  name: `Console berth ${RUN}`, type: 'restricted', alert_level: 'high',
  geometry: { type: 'Polygon', coordinates: [[[12.55, 55.66], [12.57, 55.66], [12.57, 55.67], [12.55, 55.67], [12.55, 55.66]]] },
};
const USER = `console.${RUN}`;
const PASSWORD = 'harbour-watch-2026';

describe('the operator console in Chromium', () => {
  const producer = new KafkaProducer(testKafka('console'));
  let stack: ConsoleStack;
  let service: ConsoleStack['service'];
  let page: Page;
  let log: string[];
  let url: string;
  let admin: string;
  let zoneId: string | undefined;

  const produce = (positions: VesselPosition[]) =>
    producer.send(positions.map((p) => ({ topic: service.context.topics.aisPositions, key: String(p.mmsi), value: jsonCodec.encode('aisPositions', p) })));
  /** A vessel sailing east along 55.665 through the zone, one report every 10 s, ending now. */
  const crossing = (mmsi: number, minutes: number) =>
    track(mmsi, new Date(Date.now() - minutes * 60_000), [{ minute: 0, lon: 12.53, lat: 55.665 }, { minute: minutes, lon: 12.56, lat: 55.665 }], 10);

  beforeAll(async () => {
    stack = await startConsoleStack('console', [authFeature, ingestFeature, maritimeFeature, gateFeature, vesselsFeature, eventsFeature, incidentsFeature, streamFeature(), positionStreamFeature(), consoleFeature]);
    ({ service, page, log, url, admin } = stack);
    const zone = await call(`${url}/v1/maritime/zones`, admin, { method: 'POST', json: ZONE });
    expect(zone.status, JSON.stringify(zone.json)).toBe(201);
    zoneId = zone.json.data.id;
    await createOperator(stack, USER, PASSWORD, ['events:read', 'events:write', 'maritime:read', 'maritime:write', 'transactions:read', 'transactions:write']);
  });
  afterAll(async () => {
    if (stack) {
      if (zoneId) await call(`${url}/v1/maritime/zones/${zoneId}`, admin, { method: 'DELETE' });
      await stack.stop();
    }
    await producer.close();
  });

  it('signs in through the service\'s OAuth pages and shows the zones and moving vessels', async () => {
    await produce([...crossing(BASE + 1, 1).slice(0, 1), ...track(BASE + 2, new Date(Date.now() - 60_000), [{ minute: 0, lon: 12.62, lat: 55.70 }, { minute: 1, lon: 12.63, lat: 55.70 }], 30)]);
    await signIn(stack, USER, PASSWORD, { signIn: '1-sign-in', consent: '2-consent' });
    await expect.poll(() => page.locator('#scopes').textContent()).toContain('maritime:read');
    await page.locator('#map[data-zones]').waitFor();
    // The first view frames the zones (this file's berth, close up); the vessels sail outside it: the harbour view.
    await page.evaluate(() => (globalThis as never as { pssMap: { map: { jumpTo(o: object): void } } }).pssMap.map.jumpTo({ center: [12.6, 55.69], zoom: 10 }));
    await expect.poll(() => page.evaluate((m) => (globalThis as never as { pssMap?: { vessel(m: number): unknown } }).pssMap?.vessel(m), BASE + 2), { timeout: 15_000 }).toMatchObject({ lon: 12.63 });
    // The vessel moves: the map follows within the stream's second.
    await produce(track(BASE + 2, new Date(Date.now() - 5_000), [{ minute: 0, lon: 12.635, lat: 55.701 }, { minute: 0.05, lon: 12.64, lat: 55.702 }], 3));
    await expect.poll(() => page.evaluate((m) => (globalThis as never as { pssMap: { vessel(m: number): { lon: number } } }).pssMap.vessel(m)?.lon, BASE + 2), { timeout: 10_000 }).toBe(12.64);
    await page.waitForTimeout(1200);
    await screenshot(page, '3-map');
    expect(log.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });

  it('shows a vessel\'s details and track on a click', async () => {
    const point = await page.evaluate((m) => {
      const live = (globalThis as never as { pssMap: { map: { project(c: [number, number]): { x: number; y: number } }; vessel(m: number): { lon: number; lat: number } } }).pssMap;
      const v = live.vessel(m);
      return live.map.project([v.lon, v.lat]);
    }, BASE + 2);
    const box = (await page.locator('#map').boundingBox())!;
    await page.mouse.click(box.x + point.x, box.y + point.y);
    await expect.poll(() => page.locator('#vessel h2').textContent(), { timeout: 10_000 }).toContain(String(BASE + 2));
    await expect.poll(() => page.locator('#vessel').textContent()).toMatch(/Track \(24 h\)\d+ points|Track \(24 h\)fewer/);
    await screenshot(page, '4-vessel');
  });

  it('shows a zone entry live, and every event once after the streams drop and come back', async () => {
    await produce(crossing(BASE + 3, 4));
    const row = page.locator('#events li', { hasText: ZONE.name });
    await row.first().waitFor({ timeout: 30_000 });
    expect(await row.first().textContent()).toMatch(/zone_entry/);
    await screenshot(page, '5-event');

    // Drop both streams; while they reconnect (backoff 1 s) more vessels enter the zone.
    await page.evaluate(() => (globalThis as never as { pssDropStreams(): void }).pssDropStreams());
    await produce([...crossing(BASE + 4, 4), ...crossing(BASE + 5, 4)]);
    const stored = async () => (await call(`${url}/v1/events?zone=${encodeURIComponent(ZONE.name)}&per_page=200`, admin)).json.data as { id: string }[];
    await expect.poll(async () => (await stored()).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
    const ids = (await stored()).map((e) => e.id).sort();
    await expect.poll(async () => (await page.locator('#events li').evaluateAll((lis) => lis.map((li) => (li as unknown as { dataset: { id: string } }).dataset.id))).filter((id) => ids.includes(id as string)).length, { timeout: 20_000 }).toBe(ids.length);
    const shown = await page.locator('#events li').evaluateAll((lis) => lis.map((li) => (li as unknown as { dataset: { id: string } }).dataset.id));
    expect(new Set(shown).size).toBe(shown.length);
    expect(shown.filter((id) => ids.includes(id as string)).sort()).toEqual(ids);
    await screenshot(page, '6-resumed');
    expect(log.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });

  it('acknowledges and resolves an incident from the queue, showing the API\'s refusal plainly', async () => {
    const posted = await call(`${url}/v1/events`, admin, { method: 'POST', json: { type: 'fence_tamper', source_module: 'perimeter.console', title: `Fence cut ${RUN}`, location: { zone: `North fence ${RUN}` } } });
    expect(posted.status, JSON.stringify(posted.json)).toBe(201);
    const incidentId = await inTransaction(service.context.pool, async (client) =>
      (await attachEvent(client, (await readEvent(client, posted.json.data.id))!, { groupWindowMinutes: 60, reopenWindowMinutes: 30 }, new Date()))!.incident.id);
    await page.getByRole('tab', { name: 'Incidents' }).click();
    const row = page.locator(`#incidents li[data-id="${incidentId}"] button`);
    await expect.poll(async () => {
      await page.getByLabel('show resolved').check();
      await page.getByLabel('show resolved').uncheck();
      return row.count();
    }, { timeout: 20_000 }).toBe(1);
    await row.click();
    await page.locator('.incident h3', { hasText: `Fence cut ${RUN}` }).waitFor();
    await page.getByRole('button', { name: 'Acknowledge' }).click();
    await expect.poll(() => page.locator('.incident').getAttribute('data-status')).toBe('acknowledged');
    // Resolving without a reason: the API's 422 said plainly beside the reason box (issue 34).
    await page.getByRole('button', { name: 'Resolve' }).click();
    await expect.poll(() => page.locator('.incident-actions [data-error=resolution_reason]').textContent()).toBe('A reason is required to resolve.');
    await screenshot(page, '7-incident-refused');
    await page.getByLabel('Resolution reason').fill('Fox in the fence; repaired');
    await page.getByRole('button', { name: 'Resolve' }).click();
    await expect.poll(() => page.locator('.incident').getAttribute('data-status')).toBe('resolved');
    await screenshot(page, '8-incident-resolved');
    const stored = await call(`${url}/v1/incidents/${incidentId}`, admin);
    expect(stored.json.data).toMatchObject({ status: 'resolved', resolution_reason: 'Fox in the fence; repaired', acknowledged_at: expect.any(String) });
    const { pool } = service.context;
    for (const table of ['incident_changes', 'incident_events', 'incidents']) await pool.query(`DELETE FROM ${table} WHERE ${table === 'incidents' ? 'id' : 'incident_id'} = $1`, [incidentId]);
    await pool.query(`DELETE FROM security_events WHERE source_module = 'perimeter.console' OR (source_module = 'incidents' AND body->>'source_device' = $1)`, [incidentId]);
  });

  it('overrides a flagged transaction with the signed-in operator, and shows it in its audit trail', async () => {
    // A container id whose check digit is wrong (CSQU3054383 is right): the gate processor flags it for review.
    const plate = `CN${RUN.toUpperCase()}`;
    const ingested = await call(`${url}/v1/ingest/gate`, admin, { method: 'POST', json: reading({ reading_id: `rd-console-${RUN}`, captured_at: new Date().toISOString(), vehicle: { ...reading().vehicle!, plate, appointment_id: undefined } as never, container: { ...reading().container!, id: 'CSQU3054384' } }) });
    expect(ingested.status, JSON.stringify(ingested.json)).toBeLessThan(300);
    const listed = async () => (await call(`${url}/v1/transactions?vehicle_plate=${plate}`, admin)).json.data as { id: string; status: string }[];
    await expect.poll(async () => (await listed())[0]?.status, { timeout: 30_000 }).toBe('flagged');
    const id = (await listed())[0]!.id;
    await page.getByRole('tab', { name: 'Gate' }).click();
    // The review queue is paged (issue 34): the operator searches for the truck's plate.
    await page.getByLabel('Container or plate').fill(plate);
    const row = page.locator(`#gate li[data-id="${id}"] button`);
    await expect.poll(async () => {
      await page.getByRole('tab', { name: 'Incidents' }).click();
      await page.getByRole('tab', { name: 'Gate' }).click();
      return row.count();
    }, { timeout: 20_000 }).toBe(1);
    await row.click();
    await page.locator('.transaction[data-status="flagged"]').waitFor();
    expect(await page.locator('.transaction a[href^="https://cams.example/"]').count()).toBeGreaterThanOrEqual(4);
    expect(await page.locator('.transaction li[data-factor=container_check_digit]').textContent()).toContain('CSQU3054384 fails its ISO 6346 check digit');
    await page.getByLabel('Reason (at least 10 characters)').fill('too short');
    await page.getByRole('button', { name: 'Override' }).click();
    await expect.poll(() => page.locator('.override [data-error=reason]').textContent()).toBe('The reason must be at least 10 characters long.');
    await screenshot(page, '9-override-refused');
    await page.getByLabel('Reason (at least 10 characters)').fill('Checked the seal and papers at the lane');
    await page.getByRole('button', { name: 'Override' }).click();
    await expect.poll(() => page.locator('.transaction').getAttribute('data-status')).toBe('overridden');
    await expect.poll(() => page.locator('.transaction .audit').textContent()).toContain(USER);
    await screenshot(page, '10-override-audit');
    const stored = (await call(`${url}/v1/transactions/${id}`, admin)).json.data;
    expect(stored).toMatchObject({ status: 'overridden', decision: 'approved', operator: USER });
  });

  it('stores a zone drawn on the map, after showing the API\'s 422 next to its field', async () => {
    await page.getByRole('tab', { name: 'Zones' }).click();
    // The Zones tab holds the edit form too, with fields of the same names: this test's are the draw form's.
    const draw = page.getByRole('form', { name: 'Draw a zone' });
    const box = (await page.locator('#map').boundingBox())!;
    for (const [x, y] of [[150, 120], [300, 120], [300, 260]] as const) await page.mouse.click(box.x + x, box.y + y);
    await expect.poll(() => page.locator('#zones').getAttribute('data-points')).toBe('3');
    await draw.getByRole('button', { name: 'Finish' }).click();
    const name = `Drawn berth ${RUN}`;
    await draw.getByLabel('Name').fill(name);
    await draw.getByLabel('Buffer (m, empty for none)').fill('-5');
    await draw.getByRole('button', { name: 'Save zone' }).click();
    await expect.poll(() => draw.locator('[data-error=buffer]').textContent()).toMatch(/must be > 0/);
    await screenshot(page, '11-zone-refused');
    await draw.getByLabel('Buffer (m, empty for none)').fill('150');
    await draw.getByRole('button', { name: 'Save zone' }).click();
    await expect.poll(() => page.locator('#zones').getAttribute('data-saved')).toMatch(/./);
    await screenshot(page, '12-zone-saved');
    const stored = (await call(`${url}/v1/maritime/zones?per_page=200`, admin)).json.data as { name: string; geometry: { type: string; coordinates: number[][][] }; buffer?: { distance_meters: number } }[];
    const zone = stored.find((z) => z.name === name);
    expect(zone).toMatchObject({ geometry: { type: 'Polygon' }, buffer: { distance_meters: 150 } });
    expect(zone?.geometry.coordinates[0]).toHaveLength(4);
    expect((await call(`${url}/v1/maritime/zones/${(zone as unknown as { id: string }).id}`, admin, { method: 'DELETE' })).status).toBe(204);
  });
});
