import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { FEATURES } from '../../app/features.ts';
import { checkDigit } from '../../ingest/gate/iso6346.ts';
import { KafkaProducer } from '../../platform/kafka/index.ts';
import { DEFAULT_SYSTEM_CONFIG } from '../../schemas/system-config.ts';
import { screenshot } from '../support/browser.ts';
import { createOperator, signIn, startConsoleStack, type ConsoleStack } from '../support/console-stack.ts';
import { reading } from '../support/gate-readings.ts';
import { call } from '../support/service.ts';
import { testKafka } from '../support/stack.ts';
import { changeSystemConfig, type ChangedSystemConfig } from '../support/system-config.ts';
import { track } from '../support/tracks.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

// Issue 34, items 1 and 2, in real Chromium against the real service, Kafka and PostGIS: gate review shows
// each transaction by its container, plate, seal and lane with its findings, filtered and paged by the API,
// what waits for an officer first; an incident opened by a vessel in a critical zone whose rule locks a gate
// and escalates reads as one timeline (the gate locked, the escalation delivered to the party's two
// receivers, the party without one named as told nobody), is acknowledged and resolved from the top of its
// pane, and a resolve without a reason is refused in plain words beside the reason box.
// Screenshots: test-results/console/gate-incident-*.png.
const RUN = Math.random().toString(36).slice(2, 8);
const USER = `control.${RUN}`;
const PASSWORD = 'harbour-watch-2026';
const GATE = `gate-gi-${RUN}`;
const G1 = `G1-${RUN}`;
const MMSI = 219_000_000 + Math.floor(Math.random() * 900_000);
const ZONE = { name: `Tank quay ${RUN}`, type: 'restricted', alert_level: 'critical', geometry: { type: 'Polygon', coordinates: [[[16.700, 55.600], [16.710, 55.600], [16.710, 55.606], [16.700, 55.606], [16.700, 55.600]]] } };
const ALERT_RULES = { on_entry: { alert_level: 'critical', actions: [{ action: 'notify_operator' }, { action: 'escalate_to', parties: ['supervisor', 'port_authority'] }, { action: 'lock_gates', gates: [G1] }] } };

/** A valid ISO 6346 id: GIXU + 6 digits + its check digit. */
const containerId = (n: number) => {
  const ten = `GIXU${String(n).padStart(6, '0')}`;
  return `${ten}${checkDigit(ten)}`;
};
const plateOf = (name: string) => `${name.toUpperCase()} ${RUN.toUpperCase()}`;
const TRUCKS = {
  held: { container: containerId(100_001), plate: plateOf('HLD'), seal: 'SL-4418001', status: 'broken', lane: 'lane-3' },
  flagged: { container: `${containerId(100_002).slice(0, 10)}${(Number(containerId(100_002)[10]) + 1) % 10}`, plate: plateOf('FLG'), seal: 'SL-4418002', status: 'intact', lane: 'lane-1' },
  clean: { container: containerId(100_003), plate: plateOf('CLN'), seal: 'SL-4418003', status: 'intact', lane: 'lane-1' },
};

describe('gate review and the incident view in Chromium (issue 34)', () => {
  const producer = new KafkaProducer(testKafka('console-gi'));
  let stack: ConsoleStack;
  let page: Page;
  let receiver: Receiver;
  let changed: ChangedSystemConfig | undefined;
  let zoneId: string | undefined;
  const hooks: string[] = [];
  const api = (path: string, init?: Parameters<typeof call>[2]) => call(`${stack.url}/v1${path}`, stack.admin, init);
  /** The page's viewport is 1366x768: a box whose top is within it is in view without scrolling the page. */
  const inView = async (selector: string) => {
    const box = await page.locator(selector).first().boundingBox();
    return box !== null && box.y >= 0 && box.y + 10 < 768;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startConsoleStack('console-gi', FEATURES, { PSS_WEBHOOK_ALLOW_LOOPBACK: 'true' });
    page = stack.page;
    // Port authority has two receivers; the supervisor none (it is told nobody).
    for (const path of ['/pa-desk', '/pa-duty']) {
      const res = await api('/webhooks', { method: 'POST', json: { name: `port authority ${path} ${RUN}`, url: receiver.url(path), events: ['fence_tamper'], secret: 'whsec_console_gate_incident_0123456789' } });
      expect(res.status, res.text).toBe(201);
      hooks.push(res.json.data.id);
    }
    changed = await changeSystemConfig(`${stack.url}/v1`, stack.admin, (current) => ({
      ...current,
      alert_levels: DEFAULT_SYSTEM_CONFIG.alert_levels,
      escalation_order: DEFAULT_SYSTEM_CONFIG.escalation_order,
      parties: DEFAULT_SYSTEM_CONFIG.parties.map((p) => ({ ...p, webhook_ids: p.id === 'port_authority' ? [...hooks] : [] })),
      gates: [...current.gates.filter((g) => g.id !== G1), { id: G1, name: 'North gate' }],
    }));
    const zone = await api('/maritime/zones', { method: 'POST', json: ZONE });
    expect(zone.status, zone.text).toBe(201);
    zoneId = zone.json.data.id;
    const rules = await api(`/maritime/zones/${zoneId}/rules`, { method: 'PUT', json: { alert_rules: ALERT_RULES } });
    expect(rules.status, rules.text).toBe(200);
    await createOperator(stack, USER, PASSWORD, ['events:read', 'events:write', 'maritime:read', 'transactions:read', 'transactions:write']);
  });
  afterAll(async () => {
    await producer.close();
    if (stack) {
      if (zoneId) await api(`/maritime/zones/${zoneId}`, { method: 'DELETE' });
      await changed?.restore();
      for (const id of hooks) await api(`/webhooks/${id}`, { method: 'DELETE' });
      await stack.stop();
    }
    await receiver?.close();
  });

  it('shows each truck by container, plate, seal and lane with its findings; filters and searches through the API', async () => {
    const readings = Object.entries(TRUCKS).map(([name, t]) => reading({
      reading_id: `rd-gi-${RUN}-${name}`, gate: GATE, lane: t.lane, captured_at: new Date().toISOString(),
      vehicle: { ...reading().vehicle!, plate: t.plate, appointment_id: undefined } as never,
      container: { ...reading().container!, id: t.container, seal: { number: t.seal, status: t.status as 'intact', confidence: 0.95 } },
      inspection: { damage_regions: [], images: reading().inspection!.images },
    }));
    const ingested = await api('/ingest/gate', { method: 'POST', json: readings });
    expect(ingested.status, ingested.text).toBeLessThan(300);
    await expect.poll(async () => (await api(`/transactions?gate=${GATE}`)).json.data?.map((t: { status: string }) => t.status).sort(), { timeout: 30_000 }).toEqual(['approved', 'flagged', 'held']);

    await signIn(stack, USER, PASSWORD);
    await page.locator('#map[data-zones]').waitFor({ timeout: 60_000 }); // the panels are wired once the map has loaded
    await page.getByRole('tab', { name: 'Gate' }).click();
    const gate = page.locator('#gate');
    await gate.getByLabel('Gate', { exact: true }).fill(GATE);
    await expect.poll(() => gate.getAttribute('data-total'), { timeout: 15_000 }).toBe('3');
    const rows = gate.locator('li.transaction-row');
    // What waits for an officer first (held at risk 60, then flagged at 35), then the rest.
    expect(await rows.evaluateAll((lis) => lis.map((li) => (li as unknown as { dataset: { status: string } }).dataset.status))).toEqual(['held', 'flagged', 'approved']);
    const held = rows.first();
    expect(await held.locator('.truck').textContent()).toBe(`${TRUCKS.held.container} · ${TRUCKS.held.plate}`);
    expect(await held.locator('.meta').textContent()).toMatch(new RegExp(`^held · risk 60 · ${GATE} lane 3 · \\d\\d:\\d\\d:\\d\\d \\S+$`));
    expect(await held.locator('.finding').textContent()).toBe(`seal broken (${TRUCKS.held.seal})`);
    expect(await rows.nth(1).textContent()).toContain(`${TRUCKS.flagged.container} · ${TRUCKS.flagged.plate}`);
    expect(await rows.nth(1).locator('.finding').textContent()).toBe(`container id ${TRUCKS.flagged.container} fails its ISO 6346 check digit`);

    // The detail opens in its own pane, its top in view, with the seal and each factor's finding.
    await held.locator('button').click();
    const detail = gate.locator('.transaction');
    await expect.poll(() => detail.getAttribute('data-status')).toBe('held');
    expect(await detail.locator('h3').textContent()).toBe(`${TRUCKS.held.container} · ${TRUCKS.held.plate}`);
    expect(await inView('#gate .transaction h3')).toBe(true);
    const facts = Object.fromEntries(await detail.locator('dl dt').evaluateAll((dts) => dts.map((dt) => [dt.textContent, (dt as unknown as { nextElementSibling: { textContent: string } }).nextElementSibling.textContent])));
    expect(facts).toMatchObject({ Container: `${TRUCKS.held.container} (22G1)`, Plate: `${TRUCKS.held.plate} · Nordic Haulage`, Seal: `seal ${TRUCKS.held.seal} broken`, Where: `${GATE} lane 3`, Decision: 'held (manual_review)', 'Risk score': '60' });
    expect(await detail.locator('li[data-factor=seal]').textContent()).toBe(`seal +60 (100 × 0.6): seal broken (${TRUCKS.held.seal})`);
    expect(await detail.textContent()).toContain('Checked, nothing found: plate reading, container reading, container check digit');
    await screenshot(page, 'gate-incident-1-gate-review');

    // Too short a reason: said plainly beside the reason box.
    await detail.getByLabel('Reason (at least 10 characters)').fill('too short');
    await detail.getByRole('button', { name: 'Override' }).click();
    const reasonError = detail.locator('[data-error=reason]');
    await expect.poll(() => reasonError.textContent()).toBe('The reason must be at least 10 characters long.');
    expect(await detail.getByLabel('Reason (at least 10 characters)').getAttribute('aria-describedby')).toBe(await reasonError.getAttribute('id'));
    expect(await detail.locator('.override .error').isHidden()).toBe(true);

    // Filters: the status, then a search for the flagged truck's plate (its beginning, lower case).
    await gate.getByLabel('Status').selectOption('held');
    await expect.poll(() => gate.getAttribute('data-total')).toBe('1');
    expect(await rows.evaluateAll((lis) => lis.map((li) => (li as unknown as { dataset: { status: string } }).dataset.status))).toEqual(['held']);
    await gate.getByLabel('Status').selectOption('');
    await expect.poll(() => gate.getAttribute('data-total')).toBe('3');
    await gate.getByLabel('Container or plate').fill(TRUCKS.flagged.plate.slice(0, 6).toLowerCase());
    await expect.poll(() => gate.getAttribute('data-total')).toBe('1');
    expect(await rows.locator('.truck').allTextContents()).toEqual([`${TRUCKS.flagged.container} · ${TRUCKS.flagged.plate}`]);
    await gate.getByLabel('Container or plate').fill(TRUCKS.clean.container.slice(0, 10));
    await expect.poll(() => rows.locator('.truck').allTextContents()).toEqual([`${TRUCKS.clean.container} · ${TRUCKS.clean.plate}`]);
    await gate.getByLabel('Container or plate').fill('QQQQ9');
    await expect.poll(() => gate.getAttribute('data-total')).toBe('0');
    expect(await gate.locator('ol.transactions').textContent()).toBe('No transactions match.');
    await gate.getByLabel('Container or plate').fill('');
    await expect.poll(() => gate.getAttribute('data-total')).toBe('3');
    expect(stack.log.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });

  it('reads an incident as a timeline (gate locked, escalations and who was told), acknowledged and resolved from its top', async () => {
    // A vessel sails into the critical zone and stays: the rule locks G1 and escalates to two parties.
    const positions = track(MMSI, new Date(Date.now() - 4 * 60_000), [{ minute: 0, lon: 16.695, lat: 55.603 }, { minute: 2, lon: 16.705, lat: 55.603 }, { minute: 4, lon: 16.705, lat: 55.603 }], 30);
    await producer.send(positions.map((p) => ({ topic: stack.service.context.topics.aisPositions, key: String(p.mmsi), value: JSON.stringify(p) })));
    let incidentId = '';
    await expect.poll(async () => (incidentId = (await api(`/incidents?mmsi=${MMSI}`)).json.data?.[0]?.id ?? ''), { timeout: 60_000 }).toMatch(/^inc_/);
    type Detail = { actions: { kind: string; target: string; status: string }[]; escalations: { party: string; deliveries: { delivered: number } }[] };
    const detailOf = async () => (await api(`/incidents/${incidentId}`)).json.data as Detail;
    await expect.poll(async () => (await detailOf()).actions.find((a) => a.kind === 'lock_gate')?.status, { timeout: 60_000 }).toBe('done');
    await expect.poll(async () => (await detailOf()).escalations.find((e) => e.party === 'port_authority')?.deliveries.delivered, { timeout: 60_000 }).toBe(2);
    expect(receiver.received.filter((r) => r.path.startsWith('/pa-')).map((r) => r.body.event.metadata.party)).toEqual(['port_authority', 'port_authority']);

    await page.getByRole('tab', { name: 'Incidents' }).click();
    const incidents = page.locator('#incidents');
    const row = incidents.locator(`li[data-id="${incidentId}"]`);
    await expect.poll(async () => {
      await incidents.getByLabel('show resolved').check();
      await incidents.getByLabel('show resolved').uncheck();
      return row.count();
    }, { timeout: 20_000 }).toBe(1);
    // The list: the severity's colour, status, assignee and age.
    // (Polled: a refresh may replace the row between finding it and reading its style.)
    await expect.poll(() => row.evaluate((li) => (globalThis as never as { getComputedStyle(e: unknown): { borderLeftColor: string } }).getComputedStyle(li).borderLeftColor)).toBe('rgb(220, 38, 38)');
    expect(await row.locator('.badge').textContent()).toBe('critical');
    expect(await row.locator('.meta').textContent()).toMatch(/^open · unassigned · opened (just now|\d+ min ago)$/);

    await row.locator('button').click();
    const pane = incidents.locator('.incident');
    await expect.poll(() => pane.getAttribute('data-id')).toBe(incidentId);
    expect(await inView('#incidents .incident h3')).toBe(true);
    const timeline = pane.getByRole('list', { name: 'What happened and what was done' });
    const lines = (await timeline.locator('li').allTextContents()).map((l) => l.trim());
    expect(lines.find((l) => l.includes(`gate ${G1} locked`))).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d \\S+ gate ${G1} locked$`));
    expect(lines).toContainEqual(expect.stringMatching(/ escalated to port authority: delivered 2\/2$/));
    expect(lines).toContainEqual(expect.stringMatching(/ escalated to supervisor: no receiver, nobody was told$/));
    expect(lines).toContainEqual(expect.stringMatching(/ incident opened$/));
    // Acknowledge, assign and resolve sit at the top of the pane, above the timeline and in view.
    const ack = pane.getByRole('button', { name: 'Acknowledge' });
    expect(await inView('#incidents .incident button[name=ack]')).toBe(true);
    expect((await ack.boundingBox())!.y).toBeLessThan((await timeline.boundingBox())!.y);
    expect((await pane.getByRole('button', { name: 'Resolve' }).boundingBox())!.y).toBeLessThan((await timeline.boundingBox())!.y);
    await screenshot(page, 'gate-incident-2-incident');

    await ack.click();
    await expect.poll(() => pane.getAttribute('data-status')).toBe('acknowledged');
    await expect.poll(async () => (await timeline.locator('li').allTextContents()).some((l) => l.endsWith(`acknowledged by ${USER}`))).toBe(true);

    // Assigned by someone else meanwhile: the open pane follows (at its next refresh), the half-typed reason kept.
    await pane.getByLabel('Resolution reason').fill('Tanker');
    expect((await api(`/incidents/${incidentId}`, { method: 'PATCH', json: { assigned_to: 'harbour.master' } })).status).toBe(200);
    await expect.poll(async () => (await timeline.locator('li').allTextContents()).some((l) => l.includes('assigned to harbour.master by ')), { timeout: 30_000 }).toBe(true);
    expect(await pane.locator('.incident-meta').textContent()).toContain('assigned to harbour.master');
    expect(await pane.getByLabel('Resolution reason').inputValue()).toBe('Tanker');
    await pane.getByLabel('Resolution reason').fill('');

    // Resolving without a reason: the plain sentence beside the reason box, not the validator's text.
    await pane.getByRole('button', { name: 'Resolve' }).click();
    const reasonError = pane.locator('[data-error=resolution_reason]');
    await expect.poll(() => reasonError.textContent()).toBe('A reason is required to resolve.');
    expect(await reasonError.isVisible()).toBe(true);
    expect(await pane.getByLabel('Resolution reason').getAttribute('aria-describedby')).toBe(await reasonError.getAttribute('id'));
    expect(await pane.locator('.incident-actions .error').isHidden()).toBe(true);
    expect(await pane.textContent()).not.toContain('resolution_reason');
    const reasonBox = (await pane.getByLabel('Resolution reason').boundingBox())!;
    const errorBox = (await reasonError.boundingBox())!;
    expect(errorBox.y - (reasonBox.y + reasonBox.height)).toBeLessThan(40); // right under the box
    await screenshot(page, 'gate-incident-3-resolve-refused');

    await pane.getByLabel('Resolution reason').fill('Tanker pilot confirmed; berth cleared by harbour master');
    await pane.getByRole('button', { name: 'Resolve' }).click();
    await expect.poll(() => pane.getAttribute('data-status')).toBe('resolved');
    expect((await api(`/incidents/${incidentId}`)).json.data).toMatchObject({ status: 'resolved', acknowledged_by: USER, resolved_by: USER, resolution_reason: 'Tanker pilot confirmed; berth cleared by harbour master' });
    expect(stack.log.filter((l) => l.startsWith('pageerror'))).toEqual([]);
  });
});
