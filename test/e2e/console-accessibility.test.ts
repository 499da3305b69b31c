import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { FEATURES } from '../../app/features.ts';
import { readEvent } from '../../events/queries.ts';
import { attachEvent } from '../../incidents/store.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import { inTransaction } from '../../platform/postgres.ts';
import type { VesselStatic } from '../../schemas/ais.ts';
import { describeViolations, seriousViolations } from '../support/axe.ts';
import { screenshot } from '../support/browser.ts';
import { jsonCodec } from '../support/codec.ts';
import { createOperator, signIn, startConsoleStack, type ConsoleStack } from '../support/console-stack.ts';
import { reading } from '../support/gate-readings.ts';
import { call } from '../support/service.ts';
import { testKafka } from '../support/stack.ts';
import { position } from '../support/tracks.ts';

// Issue 34 item 8, in real Chromium against the real service, Kafka and PostGIS: every view of the console
// (map, events, incidents, gate, zones, operators, each with an item open) passes an axe-core audit with no
// serious or critical violation, and the main flows work from the keyboard alone (Tab, Shift+Tab, Enter,
// Space and typing): find a vessel, open an incident and acknowledge it, override a gate decision.
const RUN = Math.random().toString(36).slice(2, 8);
const MMSI = 219_800_000 + Math.floor(Math.random() * 90_000);
const VESSEL = `KEYBOARD STAR ${RUN.toUpperCase()}`;
const USER = `supervisor.${RUN}`;
const PASSWORD = 'harbour-watch-2026';
const GATE = `gate-a11y-${RUN}`;
const PLATE = `KBD ${RUN.toUpperCase()}`;
const ZONE = {
  name: `Keyboard berth ${RUN}`, type: 'restricted', alert_level: 'high',
  geometry: { type: 'Polygon', coordinates: [[[12.58, 55.625], [12.60, 55.625], [12.60, 55.635], [12.58, 55.635], [12.58, 55.625]]] },
};
const EVENT_TITLE = `Fence cut at the keyboard berth ${RUN}`;

/** Waits up to 30 s for `ready` (expect.poll is for tests, not their set-up). */
async function until(what: string, ready: () => Promise<boolean>): Promise<void> {
  for (let i = 0; !(await ready()); i++) {
    if (i > 300) throw new Error(`${what}: not within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('the console from the keyboard and under axe-core', () => {
  const producer = new KafkaProducer(testKafka('console-a11y'));
  let stack: ConsoleStack;
  let page: Page;
  let zoneId: string | undefined;
  let incidentId = '';
  const api = (path: string, init?: Parameters<typeof call>[2]) => call(`${stack.url}/v1${path}`, stack.admin, init);

  /** Fails with every serious or critical violation axe finds on the page as it is now. */
  const audit = async (view: string) => {
    const found = await seriousViolations(page);
    expect(found, `${view}:\n${describeViolations(found)}`).toEqual([]);
  };

  beforeAll(async () => {
    stack = await startConsoleStack('console-a11y', FEATURES);
    page = stack.page;
    const zone = await api('/maritime/zones', { method: 'POST', json: ZONE });
    expect(zone.status, zone.text).toBe(201);
    zoneId = zone.json.data.id;
    await createOperator(stack, USER, PASSWORD, ['admin']);
    // An event and its incident.
    const posted = await api('/events', { method: 'POST', json: { type: 'perimeter_breach', source_module: 'perimeter.console-a11y', title: EVENT_TITLE, location: { lat: 55.63, lng: 12.59, zone: ZONE.name } } });
    expect(posted.status, posted.text).toBe(201);
    incidentId = await inTransaction(stack.service.context.pool, async (client) =>
      (await attachEvent(client, (await readEvent(client, posted.json.data.id))!, { groupWindowMinutes: 60, reopenWindowMinutes: 30 }, new Date()))!.incident.id);
    // A truck held for a broken seal.
    const held = reading({
      reading_id: `rd-a11y-${RUN}`, gate: GATE, lane: 'lane-2', captured_at: new Date().toISOString(),
      vehicle: { ...reading().vehicle!, plate: PLATE, appointment_id: undefined } as never,
      container: { ...reading().container!, seal: { number: 'SL-A11Y', status: 'broken', confidence: 0.95 } },
      inspection: { damage_regions: [], images: reading().inspection!.images },
    });
    expect((await api('/ingest/gate', { method: 'POST', json: [held] })).status).toBeLessThan(300);
    // A named vessel at its position.
    const topics = stack.service.context.topics;
    const staticReport: VesselStatic = {
      kind: 'static', msg_type: 5, mmsi: MMSI, source: 'e2e', reported_at: new Date(Date.now() - 60_000).toISOString(), received_at: new Date().toISOString(), raw: ['x'],
      name: VESSEL, callsign: 'OZKB', imo: 9_500_000 + (MMSI % 90_000), ship_type: 70, ship_category: 'cargo', to_bow: 90, to_stern: 20, to_port: 8, to_starboard: 8, length: 110, beam: 16, destination: 'COPENHAGEN',
    };
    await producer.send([{ topic: topics.aisStatic, key: String(MMSI), value: jsonCodec.encode('aisStatic', staticReport) }]);
    await producer.send([{ topic: topics.aisPositions, key: String(MMSI), value: jsonCodec.encode('aisPositions', position(MMSI, new Date(), 12.59, 55.63, 4)) }]);
    await until('the vessel API shows the vessel at its position', async () => (await api(`/maritime/vessels?search=${encodeURIComponent(VESSEL)}`)).json.data?.[0]?.last_position?.lon === 12.59);
    await until('the held transaction is stored', async () => (await api(`/transactions?gate=${GATE}`)).json.data?.[0]?.status === 'held');
  });
  afterAll(async () => {
    await producer.close();
    if (stack) {
      const pool = stack.service.context.pool;
      if (zoneId) await api(`/maritime/zones/${zoneId}`, { method: 'DELETE' });
      if (incidentId) {
        for (const table of ['incident_changes', 'incident_events', 'incidents']) await pool.query(`DELETE FROM ${table} WHERE ${table === 'incidents' ? 'id' : 'incident_id'} = $1`, [incidentId]);
        await pool.query(`DELETE FROM security_events WHERE source_module = 'perimeter.console-a11y' OR (source_module = 'incidents' AND body->>'source_device' = $1)`, [incidentId]);
      }
      await stack.stop();
    }
  });

  it('passes axe-core on every view with no serious or critical violation', async () => {
    await signIn(stack, USER, PASSWORD);
    await page.locator('#map[data-zones]').waitFor({ timeout: 60_000 });
    await page.locator('#events li.event').first().waitFor({ timeout: 20_000 });
    await audit('map and events');
    await page.locator('#events li.event').first().click();
    await page.locator('#events .event-detail').waitFor();
    await audit('an event opened');

    await page.getByRole('tab', { name: 'Incidents' }).click();
    await page.locator(`#incidents li[data-id="${incidentId}"] button`).click();
    await page.locator('#incidents .incident h3').waitFor({ timeout: 15_000 });
    await audit('incidents with one opened');

    await page.getByRole('tab', { name: 'Gate' }).click();
    await page.locator('#gate li.transaction-row').first().locator('button').click();
    await page.locator('#gate .transaction h3').waitFor({ timeout: 15_000 });
    await audit('gate review with a transaction opened');

    await page.getByRole('tab', { name: 'Zones' }).click();
    await audit('zones');

    await page.getByRole('tab', { name: 'Operators' }).click();
    await page.locator('#operators li.operator-row', { hasText: USER }).locator('button').click();
    await page.locator('#operators .operator h3').waitFor({ timeout: 15_000 });
    await audit('operators with one opened');
    await screenshot(page, 'a11y-1-operators');
  });

  it('finds a violation where there is one (the audit itself is checked)', async () => {
    await page.evaluate(() => {
      const input = (globalThis as unknown as { document: { createElement(t: string): { id: string }; body: { append(e: unknown): void } } }).document.createElement('input');
      input.id = 'a11y-unlabelled';
      (globalThis as unknown as { document: { body: { append(e: unknown): void } } }).document.body.append(input);
    });
    const found = await seriousViolations(page);
    expect(found.find((v) => v.id === 'label')?.nodes.map((n) => n.target.join(' '))).toEqual(['#a11y-unlabelled']);
    await page.reload();
  });

  /** Presses Tab (Shift+Tab when `back`) until the focused element matches, at most 150 times. */
  const tabTo = async (selector: string, text?: string, back = false) => {
    for (let i = 0; i < 150; i++) {
      const here = await page.evaluate(([sel, t]) => {
        const a = (globalThis as unknown as { document: { activeElement: { matches(s: string): boolean; textContent: string | null } | null } }).document.activeElement;
        return Boolean(a?.matches(sel as string) && (!t || a.textContent?.includes(t as string)));
      }, [selector, text ?? '']);
      if (here) return;
      await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    }
    throw new Error(`Tab never reached ${selector}${text ? ` "${text}"` : ''}`);
  };

  it('finds a vessel with the search box from the keyboard', async () => {
    await page.locator('#map[data-zones]').waitFor({ timeout: 60_000 });
    await tabTo('input[name=q]');
    await page.keyboard.type(VESSEL.toLowerCase());
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#vessel h2').textContent(), { timeout: 15_000 }).toBe(`${VESSEL} (${MMSI})`);
    // The opened vessel takes the focus on its Close button; Enter closes it.
    expect(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } } }).document.activeElement.textContent)).toBe('Close');
    await page.keyboard.press('Enter');
    expect(await page.locator('#vessel').isHidden()).toBe(true);
  });

  it('opens an incident and acknowledges it from the keyboard', async () => {
    await tabTo('#tab-incidents');
    await page.keyboard.press('Enter');
    expect(await page.locator('#incidents').isVisible()).toBe(true);
    await tabTo(`#incidents li[data-id="${incidentId}"] button`);
    await page.keyboard.press('Enter');
    const pane = page.locator('#incidents .incident');
    await expect.poll(() => pane.getAttribute('data-id'), { timeout: 15_000 }).toBe(incidentId);
    expect(await pane.getAttribute('data-status')).toBe('open');
    await tabTo('#incidents .incident button[name=ack]');
    await page.keyboard.press('Space');
    await expect.poll(() => pane.getAttribute('data-status'), { timeout: 15_000 }).toBe('acknowledged');
    expect(await pane.locator('.incident-actions .row .meta').first().textContent()).toBe('Acknowledged');
    expect((await api(`/incidents/${incidentId}`)).json.data.status).toBe('acknowledged');
    await screenshot(page, 'a11y-2-incident-acknowledged');
  });

  it('overrides a gate decision from the keyboard', async () => {
    await tabTo('#tab-gate', undefined, true);
    await page.keyboard.press('Enter');
    await tabTo('#gate li.transaction-row button', PLATE);
    await page.keyboard.press('Enter');
    const detail = page.locator('#gate .transaction');
    await expect.poll(() => detail.getAttribute('data-status'), { timeout: 15_000 }).toBe('held');
    await tabTo('#gate .override textarea[name=reason]');
    await page.keyboard.type('Seal checked by hand at the lane, intact');
    await tabTo('#gate .override button[type=submit]');
    await page.keyboard.press('Enter');
    await expect.poll(() => detail.getAttribute('data-status'), { timeout: 15_000 }).toBe('overridden');
    const stored = (await api(`/transactions?gate=${GATE}`)).json.data[0];
    expect(stored).toMatchObject({ status: 'overridden' });
    await screenshot(page, 'a11y-3-gate-overridden');
    expect(stack.log.filter((l) => l.startsWith('pageerror')), stack.log.join('\n')).toEqual([]);
  });
});
