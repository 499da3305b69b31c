import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { authFeature, consoleFeature, eventsFeature, incidentsFeature, maritimeFeature, positionStreamFeature, streamFeature, vesselsFeature } from '../../app/features.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import type { VesselStatic } from '../../schemas/ais.ts';
import { screenshot } from '../support/browser.ts';
import { jsonCodec } from '../support/codec.ts';
import { createOperator, signIn, startConsoleStack, type ConsoleStack } from '../support/console-stack.ts';
import { isLand } from '../support/land-tile.ts';
import { call } from '../support/service.ts';
import { testKafka } from '../support/stack.ts';
import { position } from '../support/tracks.ts';

// Issue 34 items 3 and 4, in real Chromium against the real service, Kafka and PostGIS: the events panel
// with the hours before sign-in, filters applied to the rows already shown, an event opened and acknowledged;
// the map's first view framing the zones with their names, the legend and the site's time, a vessel found
// by name and flown to, and the land tiles' harbour water. Screenshots: test-results/console/control-*.png.
const RUN = Math.random().toString(36).slice(2, 8);
const MMSI = 219_700_000 + Math.floor(Math.random() * 90_000);
const VESSEL = `HARBOUR SEEKER ${RUN.toUpperCase()}`;
const ZONE = {
  name: `Control berth ${RUN}`, type: 'restricted', alert_level: 'high',
  geometry: { type: 'Polygon', coordinates: [[[12.68, 55.725], [12.70, 55.725], [12.70, 55.735], [12.68, 55.735], [12.68, 55.725]]] },
};
const USER = `control.${RUN}`;
const PASSWORD = 'harbour-watch-2026';
const FENCE = `Fence cut at berth ${RUN}`;
const MOTION = `Motion by the gate ${RUN}`;

type Live = { map: { getCenter(): { lng: number; lat: number }; getZoom(): number; getStyle(): { layers: { id: string }[] }; queryRenderedFeatures(o: object): { properties: { name?: string } }[] }; bounds(): [number, number, number, number] };
const live = (page: Page) => page.evaluate(() => {
  const m = (globalThis as never as { pssMap: Live }).pssMap;
  return { center: m.map.getCenter(), zoom: m.map.getZoom(), bounds: m.bounds() };
});

describe('the console as a control-room screen', () => {
  const producer = new KafkaProducer(testKafka('control-room'));
  let stack: ConsoleStack;
  let page: Page;
  let log: string[];
  let url: string;
  let admin: string;
  let zoneId: string | undefined;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    stack = await startConsoleStack('control-room', [authFeature, maritimeFeature, vesselsFeature, eventsFeature, incidentsFeature, streamFeature(), positionStreamFeature(), consoleFeature]);
    ({ page, log, url, admin } = stack);
    const zone = await call(`${url}/v1/maritime/zones`, admin, { method: 'POST', json: ZONE });
    expect(zone.status, JSON.stringify(zone.json)).toBe(201);
    zoneId = zone.json.data.id;
    await createOperator(stack, USER, PASSWORD, ['events:read', 'events:write', 'maritime:read']);
    // Two events before anyone signs in: a fence cut (high, requires action) and motion (medium).
    for (const [key, json] of [
      ['fence', { type: 'perimeter_breach', source_module: 'perimeter.fence', source_device: 'fence-n3', title: FENCE, description: 'Sensor N3 reports the fence cut', location: { lat: 55.69, lng: 12.61, zone: ZONE.name }, metadata: { sector: 'N3' } }],
      ['motion', { type: 'motion_detected', source_module: 'perimeter.cameras', title: MOTION, metadata: { camera: 'cam-7' } }],
    ] as const) {
      const res = await call(`${url}/v1/events`, admin, { method: 'POST', json });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      ids[key] = res.json.data.id;
    }
    const topics = stack.service.context.topics;
    const staticReport: VesselStatic = {
      kind: 'static', msg_type: 5, mmsi: MMSI, source: 'e2e', reported_at: new Date(Date.now() - 60_000).toISOString(), received_at: new Date().toISOString(), raw: ['x'],
      name: VESSEL, callsign: 'OZCR', imo: 9_400_000 + (MMSI % 90_000), ship_type: 70, ship_category: 'cargo', to_bow: 90, to_stern: 20, to_port: 8, to_starboard: 8, length: 110, beam: 16, destination: 'COPENHAGEN',
    };
    await producer.send([{ topic: topics.aisStatic, key: String(MMSI), value: jsonCodec.encode('aisStatic', staticReport) }]);
    await producer.send([{ topic: topics.aisPositions, key: String(MMSI), value: jsonCodec.encode('aisPositions', position(MMSI, new Date(), 12.64, 55.70, 6)) }]);
    // The vessel API has it (name and position) before the page searches for it.
    for (let i = 0; ; i++) {
      const found = await call(`${url}/v1/maritime/vessels?search=${encodeURIComponent(VESSEL)}`, admin);
      if (found.json.data?.[0]?.last_position?.lon === 12.64) break;
      if (i > 300) throw new Error(`the vessel API did not show ${VESSEL} at its position within 30 s: ${JSON.stringify(found.json)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  afterAll(async () => {
    if (stack) {
      if (zoneId) await call(`${url}/v1/maritime/zones/${zoneId}`, admin, { method: 'DELETE' });
      await stack.stop();
    }
    await producer.close();
  });

  const row = (title: string) => page.locator('#events li.event', { hasText: title });

  it('shows the events from before sign-in, each time with the site\'s time zone', async () => {
    await signIn(stack, USER, PASSWORD);
    await expect.poll(() => row(FENCE).count(), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => row(MOTION).count()).toBe(1);
    expect(await row(FENCE).locator('time').textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} CES?T$/);
    expect(await page.locator('#events .history').textContent()).toMatch(/^Since .* CES?T: \d+ events?, then live\.$/);
    expect(await page.locator('#site-time').textContent()).toMatch(/^Site time \d{2}:\d{2}:\d{2} CES?T · Europe\/Copenhagen \(CES?T\)$/);
    // The newest first: the motion event was stored after the fence cut.
    const titles = await page.locator('#events li.event strong').allTextContents();
    expect(titles.indexOf(MOTION)).toBeLessThan(titles.indexOf(FENCE));
  });

  it('applies a filter to the rows already shown, and brings them back when it is lifted', async () => {
    await page.getByLabel('Severity at least').selectOption('high');
    await expect.poll(() => row(MOTION).count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => row(FENCE).count(), { timeout: 15_000 }).toBe(1);
    expect(await page.locator('#events li.severity-medium, #events li.severity-low').count()).toBe(0);
    await screenshot(page, 'control-1-filtered');
    await page.getByLabel('Severity at least').selectOption('');
    await expect.poll(() => row(MOTION).count(), { timeout: 15_000 }).toBe(1);
    // The zone filter too: only the fence cut names the zone.
    await page.locator('#events').getByLabel('Zone', { exact: true }).fill(ZONE.name);
    await expect.poll(() => row(MOTION).count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => row(FENCE).count(), { timeout: 15_000 }).toBe(1);
    await page.locator('#events').getByLabel('Zone', { exact: true }).fill('');
    await expect.poll(() => row(MOTION).count(), { timeout: 15_000 }).toBe(1);
    // A live event after the filter change still arrives, once.
    const res = await call(`${url}/v1/events`, admin, { method: 'POST', json: { type: 'camera_offline', source_module: 'perimeter.cameras', title: `Camera 9 offline ${RUN}`, requires_action: false } });
    expect(res.status).toBe(201);
    await expect.poll(() => row(`Camera 9 offline ${RUN}`).count(), { timeout: 15_000 }).toBe(1);
    await page.waitForTimeout(1_500);
    expect(await row(`Camera 9 offline ${RUN}`).count()).toBe(1);
  });

  it('opens an event with all its fields and acknowledges it', async () => {
    await row(FENCE).click();
    const detail = page.locator('#events .event-detail');
    await detail.waitFor();
    const field = (term: string) => detail.locator(`dt:text-is("${term}") + dd`);
    expect(await detail.locator('h3').textContent()).toBe(FENCE);
    expect(await field('Severity').textContent()).toBe('high');
    expect(await field('Type').textContent()).toBe('perimeter_breach');
    expect(await field('Source').textContent()).toBe('perimeter.fence / fence-n3');
    expect(await field('Zone').textContent()).toBe(ZONE.name);
    expect(await field('Location').textContent()).toBe('55.69000, 12.61000');
    expect(await field('sector').textContent()).toBe('N3');
    expect(await field('Event id').textContent()).toBe(ids.fence);
    expect(await field('Requires action').textContent()).toBe('yes');
    expect(await row(FENCE).locator('.badge').count()).toBe(1);
    await detail.getByRole('button', { name: 'Show on map' }).click();
    await expect.poll(async () => { const { center } = await live(page); return Math.abs(center.lng - 12.61) + Math.abs(center.lat - 55.69); }, { timeout: 10_000 }).toBeLessThan(0.001);
    await detail.getByRole('button', { name: 'Acknowledge' }).click();
    await expect.poll(() => field('Requires action').textContent(), { timeout: 10_000 }).toBe('no');
    expect(await field('Assigned to').textContent()).toBe(USER);
    expect(await row(FENCE).locator('.badge').count()).toBe(0);
    expect(await detail.getByRole('button', { name: 'Acknowledge' }).count()).toBe(0);
    const stored = await call(`${url}/v1/events/${ids.fence}`, admin);
    expect(stored.json.data).toMatchObject({ requires_action: false, assigned_to: USER });
    // The stream's copy of the change replaces the row: still one.
    await page.waitForTimeout(1_500);
    expect(await row(FENCE).count()).toBe(1);
    await screenshot(page, 'control-2-event');
    await detail.getByRole('button', { name: 'Close' }).click();
    expect(await detail.isHidden()).toBe(true);
    // From the keyboard: a row takes the focus and Enter opens it.
    await row(MOTION).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => detail.locator('h3').textContent()).toBe(MOTION);
    expect(await field('camera').textContent()).toBe('cam-7');
    expect(await detail.getByRole('button', { name: 'Show on map' }).count()).toBe(0);
    await detail.getByRole('button', { name: 'Close' }).click();
  });

  it('framed the zones in the first view with their names on the map, and has a legend', async () => {
    // A fresh page: the first view, before anyone pans.
    await page.reload();
    await page.locator('#map[data-zones]').waitFor({ timeout: 30_000 });
    const [w, s, e, n] = [12.68, 55.725, 12.70, 55.735];
    await expect.poll(async () => { const { bounds } = await live(page); return bounds[0] <= w && bounds[1] <= s && bounds[2] >= e && bounds[3] >= n; }, { timeout: 10_000 }).toBe(true);
    expect((await live(page)).zoom).toBeGreaterThan(10);
    await expect.poll(() => page.evaluate(() => (globalThis as never as { pssMap: Live }).pssMap.map.queryRenderedFeatures({ layers: ['zone-labels'] }).map((f) => f.properties.name)), { timeout: 20_000 }).toContain(ZONE.name);
    const legend = page.locator('.map-legend');
    expect(await legend.isVisible()).toBe(true);
    for (const text of ['cargo', 'tanker', 'not moving', 'critical', 'restricted', 'other types', 'buffer', 'ring: a new event', 'track']) expect(await legend.textContent(), text).toContain(text);
    await screenshot(page, 'control-3-first-view');
  });

  it('finds a vessel by name and flies to it', async () => {
    await page.getByLabel('Find vessel').fill(VESSEL.toLowerCase().slice(0, -2));
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await expect.poll(() => page.locator('#vessel h2').textContent(), { timeout: 15_000 }).toBe(`${VESSEL} (${MMSI})`);
    await expect.poll(async () => { const { center } = await live(page); return Math.abs(center.lng - 12.64) + Math.abs(center.lat - 55.70); }, { timeout: 10_000 }).toBeLessThan(0.001);
    expect((await live(page)).zoom).toBeGreaterThanOrEqual(14);
    // And it is drawn there: the stream, asked for the new view, sent it, and its arrow is on the map.
    const arrows = () => page.evaluate(() => {
      const map = (globalThis as never as { pssMap: Live }).pssMap.map;
      const layers = map.getStyle().layers.map((l) => l.id).filter((id) => /^vessels-\d+$/.test(id));
      return map.queryRenderedFeatures({ layers }).map((f) => Number((f.properties as { mmsi?: number }).mmsi));
    });
    await expect.poll(arrows, { timeout: 15_000 }).toContain(MMSI);
    await screenshot(page, 'control-4-vessel-found');
    expect(log.filter((l) => l.startsWith('pageerror')), log.join('\n')).toEqual([]);
  });

  it('serves Copenhagen\'s inner harbour as water and the land beside it as land', async () => {
    // Inderhavnen off Amaliehaven and north of the Opera, from the whole-harbour view to the deepest tiles.
    for (const z of [10, 12, 14]) {
      expect(await isLand(url, 12.5985, 55.6855, z), `Inderhavnen z${z}`).toBe(false);
      expect(await isLand(url, 12.6, 55.689, z), `Inderhavnen north z${z}`).toBe(false);
      expect(await isLand(url, 12.595, 55.691, z), `Kastellet z${z}`).toBe(true);
      expect(await isLand(url, 12.53, 55.68, z), `Frederiksberg z${z}`).toBe(true);
    }
  });
});
