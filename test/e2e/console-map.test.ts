import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createApiKey } from '../../api/auth/api-keys.ts';
import { authFeature, consoleFeature, maritimeFeature, positionStreamFeature } from '../../app/features.ts';
import { startService, type RunningService } from '../../app/service.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import { topicSpecs } from '../../platform/topics.ts';
import { launchChromium, pageLog, screenshot } from '../support/browser.ts';
import { jsonCodec } from '../support/codec.ts';
import { call } from '../support/service.ts';
import { testConfig, testKafka, testLog, unique, withAdmin } from '../support/stack.ts';
import { position } from '../support/tracks.ts';

// The console's map rendering (docs/console.md "Map"), in real Chromium against the real service: the land
// tiles the api role cuts, zone buffers drawn around circles, polygons and corridors, and a vessel's name as
// a map label at high zoom. Signed in with an API key as the page's session (the OAuth sign-in is
// console-live.test.ts's). Screenshots: test-results/console/.
const RUN = Math.random().toString(36).slice(2, 8);
const MMSI = 219_900_000 + Math.floor(Math.random() * 90_000);
const NAME = `NORDIC ${RUN.toUpperCase()}`;
const ZONES = [
  { name: `Buffered anchorage ${RUN}`, type: 'anchorage', alert_level: 'critical', geometry: { type: 'Circle', center: [12.62, 55.69], radius_meters: 400 }, buffer: { distance_meters: 300 } },
  { name: `Buffered berth ${RUN}`, type: 'restricted', alert_level: 'medium', geometry: { type: 'Polygon', coordinates: [[[12.56, 55.70], [12.58, 55.70], [12.58, 55.71], [12.56, 55.71], [12.56, 55.70]]] }, buffer: { distance_meters: 200 } },
  { name: `Buffered fairway ${RUN}`, type: 'monitoring', alert_level: 'low', geometry: { type: 'Corridor', centerline: [[12.60, 55.67], [12.66, 55.68]], width_meters: 250 }, buffer: { distance_meters: 150 } },
];

/** Rendered features of the map layers whose ids start with `layer` (the vessels have one per shard), read in the page. */
function rendered(page: Page, layer: string): Promise<{ id?: string; name?: string }[]> {
  return page.evaluate((l) => {
    const map = (globalThis as never as { pssMap: { map: { getStyle(): { layers: { id: string }[] }; queryRenderedFeatures(o: object): { properties: { id?: string; name?: string } }[] } } }).pssMap.map;
    const layers = map.getStyle().layers.map((x) => x.id).filter((id) => id.startsWith(l));
    return layers.length === 0 ? [] : map.queryRenderedFeatures({ layers }).map((f) => f.properties);
  }, layer);
}

describe('the console map in Chromium', () => {
  const prefix = `${unique('console-map')}.`;
  const producer = new KafkaProducer(testKafka('console-map'));
  let service: RunningService;
  let browser: Browser;
  let page: Page;
  let log: string[];
  let url: string;
  let admin: string;
  const zoneIds: string[] = [];

  beforeAll(async () => {
    const config = testConfig({ PSS_TOPIC_PREFIX: prefix, PSS_HTTP_PORT: '0', PSS_RATE_LIMIT_BURST: '10000' });
    service = await startService(config, ['api'], testLog, [authFeature, maritimeFeature, positionStreamFeature(), consoleFeature]);
    url = service.url as string;
    admin = (await createApiKey(service.context.pool, config.environment, { name: 'console-map-e2e', scopes: ['admin'] }, 'test')).key;
    for (const zone of ZONES) {
      const res = await call(`${url}/v1/maritime/zones`, admin, { method: 'POST', json: zone });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      zoneIds.push(res.json.data.id);
    }
    await producer.send([{ topic: service.context.topics.aisPositions, key: String(MMSI), value: jsonCodec.encode('aisPositions', position(MMSI, new Date(), 12.64, 55.685)) }]);
    const reader = (await createApiKey(service.context.pool, config.environment, { name: 'console-map-reader', scopes: ['maritime:read'] }, 'test')).key;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    log = pageLog(page);
    await page.addInitScript((token) => {
      sessionStorage.setItem('pss.console.session', JSON.stringify({ accessToken: token, refreshToken: 'none', expiresAt: Date.now() + 3_600_000, scopes: ['maritime:read'] }));
    }, reader);
  });
  afterAll(async () => {
    await browser?.close();
    if (service) {
      for (const id of zoneIds) await call(`${url}/v1/maritime/zones/${id}`, admin, { method: 'DELETE' });
      await service.stop();
    }
    await producer.close();
    await withAdmin((a) => a.deleteTopics(topicSpecs(prefix).map((t) => t.name)));
  });

  it('serves the land as vector tiles, and refuses tile coordinates that name no tile', async () => {
    const land = await fetch(`${url}/console/land/10/547/320.pbf`);
    expect(land.status).toBe(200);
    expect(land.headers.get('content-type')).toBe('application/x-protobuf');
    expect(land.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(Buffer.from(await land.arrayBuffer()).includes('land')).toBe(true);
    // Open sea: no content, which MapLibre draws as an empty tile.
    expect((await fetch(`${url}/console/land/5/4/20.pbf`)).status).toBe(204);
    for (const [path, status, code] of [['15/0/0', 404, 'not_found'], ['2/4/0', 404, 'not_found'], ['x/0/0', 400, 'bad_request'], ['1/-1/0', 400, 'bad_request']] as const) {
      const res = await fetch(`${url}/console/land/${path}.pbf`);
      expect(res.status, path).toBe(status);
      expect(((await res.json()) as { error: { code: string } }).error.code, path).toBe(code);
    }
  });

  it('draws the land, each zone\'s buffer and the corridor\'s width', async () => {
    await page.goto(`${url}/console/`);
    // The database is the whole e2e lane's: files before this one may have left zones of their own (some do
    // not delete theirs), so the map holds every zone the API lists, ours among them, not exactly three.
    // data-zones is set once the style has loaded and the zones are drawn; on a loaded host that takes a while.
    await page.locator('#map[data-zones]').waitFor({ timeout: 60_000 }).catch((err: Error) => {
      throw new Error(`${err.message}\npage log:\n${log.join('\n')}`);
    });
    const listed = await call(`${url}/v1/maritime/zones?per_page=200`, admin);
    expect(await page.locator('#map').getAttribute('data-zones'), log.join('\n')).toBe(String(listed.json.pagination.total_items));
    await expect.poll(async () => (await rendered(page, 'land')).length, { timeout: 20_000 }).toBeGreaterThan(0);
    const ours = async (layer: string) => (await rendered(page, layer)).map((p) => p.id).filter((id) => zoneIds.includes(id as string));
    const ids = async (layer: string) => [...new Set(await ours(layer))].sort();
    await expect.poll(() => ids('zone-buffer-band'), { timeout: 20_000 }).toEqual([...zoneIds].sort());
    expect(await ids('zone-buffer-edge')).toEqual([...zoneIds].sort());
    expect(await ids('zone-corridor')).toContain(zoneIds[2]);
    await screenshot(page, 'map-1-buffers');
    expect(log.filter((l) => l.startsWith('pageerror')), log.join('\n')).toEqual([]);
  });

  it('shows a vessel\'s name as a label at high zoom, without a glyph server', async () => {
    await expect.poll(() => page.evaluate((m) => (globalThis as never as { pssMap: { vessel(m: number): unknown } }).pssMap.vessel(m), MMSI), { timeout: 15_000 }).toBeTruthy();
    expect(await rendered(page, 'vessel-labels')).toEqual([]);
    await page.evaluate(([m, name]) => {
      const live = (globalThis as never as { pssMap: { setCategory(m: number, c: string, n: string): void; map: { jumpTo(o: object): void } } }).pssMap;
      live.setCategory(m as number, 'tanker', name as string);
      live.map.jumpTo({ center: [12.64, 55.685], zoom: 14 });
    }, [MMSI, NAME] as const);
    await expect.poll(async () => (await rendered(page, 'vessel-labels')).map((p) => p.name), { timeout: 20_000 }).toContain(NAME);
    expect(await page.evaluate((id) => (globalThis as never as { pssMap: { map: { hasImage(id: string): boolean } } }).pssMap.map.hasImage(id), `label:${NAME}`)).toBe(true);
    await screenshot(page, 'map-2-label');
    expect(log.filter((l) => l.startsWith('pageerror')), log.join('\n')).toEqual([]);
  });
});
