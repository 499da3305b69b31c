// Issue 10, item 3: GET /v1/events with every parameter of the spec. A seeded corpus of events (every
// category and severity, two threat zones, a renamed zone, operator changes, equal timestamps) is stored
// through the one store in a window of its own, and each filter and many combinations are checked page by
// page against what the stored rows say (an oracle written here), in both sort orders.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authFeature, eventsFeature, maritimeFeature } from '../../../../app/features.ts';
import { eventId } from '../../../../events/event-id.ts';
import { storeEvents } from '../../../../events/store.ts';
import { inTransaction } from '../../../../platform/postgres.ts';
import { EVENT_CATEGORIES, EVENT_SEVERITIES, type SecurityEvent } from '../../../../schemas/event.ts';
import { seeded } from '../../../support/seeded-random.ts';
import { call, expectErrorBody, startTestService, type TestService } from '../../../support/service.ts';

const TYPES = [
  { type: 'zone_entry', category: 'maritime', severities: ['low', 'medium', 'high', 'critical'], module: 'zones' },
  { type: 'zone_exit', category: 'maritime', severities: ['low'], module: 'zones' },
  { type: 'seal_violation', category: 'gate', severities: ['high'], module: 'gate' },
  { type: 'gate_transaction_created', category: 'gate', severities: ['low'], module: 'gate' },
  { type: 'motion_detected', category: 'perimeter', severities: ['medium'], module: 'perimeter' },
  { type: 'drone_lost_link', category: 'drone', severities: ['high'], module: 'drones' },
  { type: 'system_health_change', category: 'system', severities: ['low', 'medium', 'high'], module: 'health' },
  { type: 'auto_rejected', category: 'decision', severities: ['high'], module: 'gate' },
] as const;
const TITLES = [
  ['Vessel CROWN OF SCANDINAVIA entered the zone', 'Passenger ferry inside the restricted area'],
  ['Perimeter breaches at the north fence', 'Motion detected by camera cam-12'],
  ['Container MSCU1234565 seal broken', 'Seal missing at lane 4'],
  ['Camera offline', 'Feed lost; holmen-naval sector dark'],
  ['Drone link lost', 'No telemetry from drone-2 for 12.5 seconds'],
] as const;
const DAY = 86_400_000;

interface Current {
  event: SecurityEvent;
  requires_action: boolean;
  incident_id: string | null;
  assigned_to: string;
}
type Query = Record<string, string>;

describe('GET /v1/events against the stored rows', () => {
  const tag = `list${Math.random().toString(36).slice(2, 8)}`;
  const modules = { zones: `maritime.${tag}`, gate: `gate.${tag}`, perimeter: `perimeter.${tag}`, drones: `drone.${tag}`, health: `system.${tag}` };
  // A window no other test stores events in (the database is shared by every file of a run).
  const base = Date.UTC(2001, 0, 1) + Math.floor(Math.random() * 2000) * DAY;
  const corpus: Current[] = [];
  let svc: TestService;
  let reader: string;
  const zones: { id: string; name: string }[] = [];
  const url = (query: Query) => `${svc.url}/v1/events?${new URLSearchParams(query)}`;
  const inWindow = (q: Query = {}): Query => ({ start_date: iso(base), end_date: iso(base + 10 * DAY), ...q });

  beforeAll(async () => {
    svc = await startTestService({ PSS_RATE_LIMIT_BURST: '100000' }, [authFeature, maritimeFeature, eventsFeature]);
    reader = (await svc.key(['events:read'])).key;
    const writer = (await svc.key(['maritime:write'])).key;
    for (const [i, name] of [`Holmen ${tag}`, `Anchorage ${tag}`].entries()) {
      const zone = await call(`${svc.url}/v1/maritime/zones`, writer, {
        method: 'POST', json: { name, type: 'restricted', alert_level: 'high', geometry: { type: 'Circle', center: [-33 - i, 43], radius_meters: 300 } },
      });
      expect(zone.status).toBe(201);
      zones.push({ id: zone.json.data.id, name });
    }
    const events = buildCorpus();
    await inTransaction(svc.context.pool, (client) => storeEvents(client, events));
    await triage(events);
  });
  afterAll(async () => {
    const pool = svc?.context.pool;
    await pool?.query('DELETE FROM security_events WHERE source_module = ANY($1::text[])', [Object.values(modules)]);
    await pool?.query('DELETE FROM zones WHERE id = ANY($1::text[])', [zones.map((z) => z.id)]);
    await svc?.stop();
  });

  /** 240 events over 10 days; every fifth shares its timestamp with the one before (ties go by id). */
  function buildCorpus(): SecurityEvent[] {
    const random = seeded(10);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const events: SecurityEvent[] = [];
    let at = base + 3_600_000;
    for (let n = 0; n < 240; n++) {
      if (n % 5 !== 4) at += Math.floor(random() * 3_600_000);
      const kind = pick(TYPES);
      const [title, description] = pick(TITLES);
      const zoneChoice = Math.floor(random() * 4);
      let location: SecurityEvent['location'] = {};
      const metadata: Record<string, unknown> = { n };
      if (kind.category === 'maritime') {
        const zone = zones[zoneChoice % 2]!;
        // Zone 0's earliest events carry the name it had before a rename; its id is the same.
        location = { lat: 55.7, lng: 12.6, zone: zoneChoice === 0 && n < 60 ? `Old Holmen ${tag}` : zone.name };
        metadata.zone_id = zone.id;
      } else if (kind.category === 'perimeter') {
        location = { lat: 55.7, lng: 12.6, zone: `North fence ${tag}` };
      }
      const severity = pick(kind.severities);
      events.push({
        id: eventId(`${tag}:${n}`), type: kind.type, timestamp: iso(at), category: kind.category, severity,
        source_module: modules[kind.module], source_device: 'test', title, description, location, metadata,
        requires_action: severity !== 'low' && random() < 0.7, assigned_to: '', incident_id: random() < 0.1 ? `inc_a_${tag}` : null,
      });
    }
    return events;
  }

  /** Operators change a fifth of the events; the oracle keeps the values as they are now. */
  async function triage(events: SecurityEvent[]): Promise<void> {
    const random = seeded(11);
    for (const event of events) {
      const current: Current = { event, requires_action: event.requires_action, incident_id: event.incident_id, assigned_to: '' };
      if (random() < 0.2) {
        current.requires_action = random() < 0.5;
        current.incident_id = random() < 0.3 ? `inc_b_${tag}` : random() < 0.5 ? null : event.incident_id;
        current.assigned_to = random() < 0.5 ? `officer_${tag}` : '';
        await svc.context.pool.query(
          `INSERT INTO event_triage (event_id, requires_action, assigned_to, incident_id, updated_by) VALUES ($1, $2, $3, $4, 'key_test')`,
          [event.id, current.requires_action, current.assigned_to, current.incident_id],
        );
      }
      corpus.push(current);
    }
  }

  /** The events a query should return, in order, as the API serves them (with their current operator fields). */
  function expected(q: Query): SecurityEvent[] {
    const start = Date.parse(q.start_date!);
    const end = Date.parse(q.end_date!);
    const zone = q.zone === undefined ? undefined : zones.find((z) => z.id === q.zone || z.name.toLowerCase() === q.zone!.toLowerCase());
    const found = corpus.filter(({ event: e, ...now }) => {
      const t = Date.parse(e.timestamp);
      return t >= start && t <= end &&
        (q.category === undefined || q.category.split(',').includes(e.category)) &&
        (q.type === undefined || q.type.split(',').includes(e.type)) &&
        (q.severity === undefined || q.severity.split(',').includes(e.severity)) &&
        (q.source_module === undefined || e.source_module === q.source_module) &&
        (q.zone === undefined || e.location.zone?.toLowerCase() === q.zone.toLowerCase() || (zone !== undefined && (e.metadata.zone_id === zone.id || e.location.zone === zone.name))) &&
        (q.requires_action === undefined || String(now.requires_action) === q.requires_action) &&
        (q.incident_id === undefined || now.incident_id === q.incident_id) &&
        (q.assigned_to === undefined || now.assigned_to === q.assigned_to);
    });
    const sign = q.order === 'asc' ? 1 : -1;
    const rank = (c: Current) => (q.sort === 'severity' ? EVENT_SEVERITIES.indexOf(c.event.severity) : 0);
    found.sort((a, b) => sign * (rank(a) - rank(b) || Date.parse(a.event.timestamp) - Date.parse(b.event.timestamp) || (a.event.id < b.event.id ? -1 : 1)));
    return found.map(({ event, ...now }) => ({ ...event, ...now }));
  }

  /** Every page of a query, checking each page's pagination; the events in served order. */
  async function allPages(q: Query, perPage = 7): Promise<{ events: SecurityEvent[]; total: number }> {
    const events: SecurityEvent[] = [];
    let total = 0;
    for (let page = 1; ; page++) {
      const res = await call(url({ ...q, page: String(page), per_page: String(perPage) }), reader);
      expect(res.status, res.text).toBe(200);
      const { pagination, meta, data } = res.json;
      total = pagination.total_items;
      const totalPages = Math.max(1, Math.ceil(total / perPage));
      expect(pagination).toEqual({ page, per_page: perPage, total_items: total, total_pages: totalPages, has_next: page < totalPages, has_previous: page > 1 });
      expect(meta).toEqual({ request_id: res.headers.get('x-request-id'), timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
      expect(data.length).toBe(page < totalPages ? perPage : total - (totalPages - 1) * perPage);
      events.push(...data);
      if (!pagination.has_next) return { events, total };
    }
  }

  async function expectServed(q: Query): Promise<number> {
    const want = expected(q);
    const got = await allPages(q);
    expect(got.total, JSON.stringify(q)).toBe(want.length);
    expect(got.events.map((e) => e.id), JSON.stringify(q)).toEqual(want.map((e) => e.id));
    expect(got.events).toEqual(want);
    return want.length;
  }

  it('serves the whole window newest first, and each filter alone as the stored rows say', async () => {
    expect(await expectServed(inWindow())).toBe(240);
    const alone: Query[] = [
      ...EVENT_CATEGORIES.map((category) => ({ category })),
      // Our addition (issue 33): the types of the corpus one by one, two at once, and one stored nowhere in it.
      ...TYPES.map(({ type }) => ({ type })), { type: 'zone_exit,seal_violation' }, { type: 'fence_tamper' },
      ...EVENT_SEVERITIES.map((severity) => ({ severity })),
      ...Object.values(modules).map((source_module) => ({ source_module })),
      { zone: zones[0]!.name }, { zone: zones[0]!.name.toUpperCase() }, { zone: zones[0]!.id }, { zone: zones[1]!.id }, { zone: `north FENCE ${tag}` }, { zone: 'Nowhere' },
      { requires_action: 'true' }, { requires_action: 'false' },
      { incident_id: `inc_a_${tag}` }, { incident_id: `inc_b_${tag}` }, { assigned_to: `officer_${tag}` },
      { start_date: iso(base + 2 * DAY), end_date: iso(base + 3 * DAY) },
    ];
    for (const q of alone) expect(await expectServed(inWindow(q)), JSON.stringify(q)).toBeGreaterThan(q.zone === 'Nowhere' || q.type === 'fence_tamper' ? -1 : 0);
  });

  it('finds a renamed zone\'s events by its id and by its new name, and only those under the old name by that', async () => {
    const old = expected(inWindow({ zone: `Old Holmen ${tag}` }));
    const byName = expected(inWindow({ zone: zones[0]!.name }));
    expect(old.length).toBeGreaterThan(0);
    expect(byName.map((e) => e.id)).toEqual(expect.arrayContaining(old.map((e) => e.id)));
    await expectServed(inWindow({ zone: `old holmen ${tag}` }));
  });

  it('combines filters with AND', async () => {
    const combos: Query[] = [
      { category: 'maritime', severity: 'high,critical', requires_action: 'true' },
      { category: 'gate,decision', severity: 'high' },
      { zone: zones[1]!.name, severity: 'low,medium', requires_action: 'false' },
      { source_module: modules.zones, zone: zones[0]!.id, incident_id: `inc_a_${tag}` },
      { category: 'perimeter,drone,system', requires_action: 'true', start_date: iso(base + DAY), end_date: iso(base + 6 * DAY) },
      { incident_id: `inc_b_${tag}`, requires_action: 'false' },
      { assigned_to: `officer_${tag}`, category: 'maritime' },
      { category: 'gate', source_module: modules.zones },
      { type: 'zone_entry', severity: 'critical', zone: zones[0]!.name },
      { type: 'zone_entry,auto_rejected', category: 'decision', requires_action: 'true' },
    ];
    for (const q of combos) await expectServed(inWindow(q));
  });

  it('sorts by severity rank (critical first), ties by time then id, and reverses everything with order=asc', async () => {
    const orders: Query[] = [{ sort: 'severity' }, { sort: 'severity', order: 'asc' }, { order: 'asc' }, { sort: 'timestamp', order: 'desc', category: 'maritime' }, { sort: 'severity', category: 'system' }];
    for (const q of orders) {
      await expectServed(inWindow(q));
    }
    const served = (await allPages(inWindow({ sort: 'severity' }), 200)).events.map((e) => e.severity);
    expect(served.indexOf('low')).toBeGreaterThan(served.lastIndexOf('critical'));
    expect(served).toEqual([...served].sort((a, b) => EVENT_SEVERITIES.indexOf(b) - EVENT_SEVERITIES.indexOf(a)));
  });

  it('uses the current operator fields, not the stored ones', async () => {
    const changed = corpus.find((c) => c.event.requires_action && !c.requires_action)!;
    const actionable = (await allPages(inWindow({ requires_action: 'true' }), 200)).events.map((e) => e.id);
    expect(actionable).not.toContain(changed.event.id);
    const resolved = (await allPages(inWindow({ requires_action: 'false' }), 200)).events.find((e) => e.id === changed.event.id);
    expect(resolved?.requires_action).toBe(false);
  });

  it('includes both ends of the window', async () => {
    const first = expected(inWindow({ order: 'asc' }))[0]!;
    const at = first.timestamp;
    expect((await allPages({ start_date: at, end_date: at, source_module: first.source_module })).events.map((e) => e.id)).toContain(first.id);
    const before = iso(Date.parse(at) - 1);
    expect((await allPages({ start_date: before, end_date: before, source_module: first.source_module })).total).toBe(0);
  });

  it('pages: default 50, at most 200, past the end empty, and nothing found is one empty page', async () => {
    const first = await call(url(inWindow()), reader);
    expect(first.json.pagination).toEqual({ page: 1, per_page: 50, total_items: 240, total_pages: 5, has_next: true, has_previous: false });
    expect(first.json.data).toEqual(expected(inWindow()).slice(0, 50));
    const last = await call(url(inWindow({ page: '5' })), reader);
    expect(last.json.data).toHaveLength(40);
    expect(last.json.pagination).toMatchObject({ page: 5, has_next: false, has_previous: true });
    const past = await call(url(inWindow({ page: '9' })), reader);
    expect(past.json.data).toEqual([]);
    expect(past.json.pagination).toEqual({ page: 9, per_page: 50, total_items: 240, total_pages: 5, has_next: false, has_previous: true });
    const all = await call(url(inWindow({ per_page: '200', page: '2' })), reader);
    expect(all.json.data).toEqual(expected(inWindow()).slice(200));
    const none = await call(url(inWindow({ zone: 'Nowhere' })), reader);
    expect(none.json).toMatchObject({ data: [], pagination: { page: 1, total_items: 0, total_pages: 1, has_next: false, has_previous: false } });
    expectErrorBody(await call(url(inWindow({ per_page: '201' })), reader), 422, 'validation_error');
    expectErrorBody(await call(url(inWindow({ page: '0' })), reader), 422, 'validation_error');
  });

  it('defaults to the 24 hours before end_date, which defaults to now', async () => {
    const module = `perimeter.${tag}.now`;
    const now = Date.now();
    const at = (hours: number) => ({ ...corpus[0]!.event, id: eventId(`${tag}:now:${hours}`), type: 'motion_detected', category: 'perimeter' as const, severity: 'medium' as const, source_module: module, timestamp: iso(now - hours * 3_600_000) });
    await inTransaction(svc.context.pool, (client) => storeEvents(client, [at(1), at(23), at(25)]));
    try {
      const ids = async (q: Query) => (await allPages(q)).events.map((e) => e.id);
      expect(await ids({ source_module: module })).toEqual([at(1).id, at(23).id]);
      expect(await ids({ source_module: module, end_date: iso(now - 20 * 3_600_000) })).toEqual([at(23).id, at(25).id]);
      expect(await ids({ source_module: module, start_date: iso(now - 30 * 3_600_000) })).toEqual([at(1).id, at(23).id, at(25).id]);
    } finally {
      await svc.context.pool.query('DELETE FROM security_events WHERE source_module = $1', [module]);
    }
  });

  it('reads dates as ISO 8601: a date alone, no offset as UTC, an unencoded + as written', async () => {
    const day = new Date(base + 4 * DAY).toISOString().slice(0, 10);
    const want = expected(inWindow({ start_date: `${day}T00:00:00Z`, end_date: `${day}T12:00:00Z` }));
    const ids = async (query: string) => ((await call(`${svc.url}/v1/events?${query}&per_page=200`, reader)).json.data as SecurityEvent[]).map((e) => e.id);
    expect(await ids(`start_date=${day}&end_date=${day}T13:00:00+01:00`)).toEqual(want.map((e) => e.id));
    expect(await ids(`start_date=${day}T00:00&end_date=${day}T12:00:00.000`)).toEqual(want.map((e) => e.id));
  });

  it('refuses unknown values naming the valid ones, and lists every problem', async () => {
    const details = async (q: Query) => {
      const res = await call(url(q), reader);
      expectErrorBody(res, 422, 'validation_error');
      return res.json.error.details as { location: string; path: string; message: string }[];
    };
    expect(await details({ category: 'gate,harbour', severity: 'urgent', sort: 'priority', order: 'up', requires_action: 'maybe', per_page: '500', foo: '1' })).toEqual(
      expect.arrayContaining([
        { location: 'query', path: '/category', message: 'unknown category "harbour"; valid values: gate, perimeter, maritime, drone, system, decision (comma-separated)' },
        { location: 'query', path: '/severity', message: 'unknown severity "urgent"; valid values: low, medium, high, critical (comma-separated)' },
        { location: 'query', path: '/sort', message: 'must be one of "timestamp", "severity"' },
        { location: 'query', path: '/order', message: 'must be one of "asc", "desc"' },
        { location: 'query', path: '/requires_action', message: 'must be boolean' },
        { location: 'query', path: '/per_page', message: 'must be <= 200' },
        { location: 'query', path: '/foo', message: 'is not an allowed field' },
      ]),
    );
    expect(await details({ category: 'Gate,' })).toEqual([{ location: 'query', path: '/category', message: expect.stringContaining('unknown category "Gate", ""') }]);
    // type, like category: every unknown value named, then the valid ones (the type table).
    expect(await details({ type: 'zone_entry,zone_party,Zone_Exit' })).toEqual([{ location: 'query', path: '/type', message: expect.stringMatching(/^unknown type "zone_party", "Zone_Exit"; valid values: gate_transaction_created, .*zone_entry, .*\(comma-separated\)$/) }]);
    expect(await details({ start_date: 'yesterday', end_date: '2026-02-30' })).toEqual([
      { location: 'query', path: '/end_date', message: expect.stringContaining('ISO 8601') },
      { location: 'query', path: '/start_date', message: expect.stringContaining('ISO 8601') },
    ]);
    expect(await details({ start_date: '2026-11-21T10:00:00Z', end_date: '2026-11-21T09:00:00Z' })).toEqual([{ location: 'query', path: '/start_date', message: 'must not be after end_date (2026-11-21T09:00:00.000Z)' }]);
    expect(await details({ search: '?! --' })).toEqual([{ location: 'query', path: '/search', message: 'must contain a word (letters or digits)' }]);
  });

  it('searches words and word beginnings in title and description, in English and as written', async () => {
    const ids = async (search: string) => (await allPages(inWindow({ search }), 200)).events.map((e) => e.id).sort();
    const titled = (...words: string[]) =>
      corpus.filter(({ event: e }) => words.every((w) => `${e.title} ${e.description}`.toLowerCase().includes(w))).map((c) => c.event.id).sort();
    expect(await ids('crown')).toEqual(titled('crown'));
    expect(await ids('CROWN scand')).toEqual(titled('crown', 'scandinavia'));
    // English stop words and stems: "of" as written, "breach" finds "breaches", "entering" finds "entered".
    expect(await ids('crown of')).toEqual(titled('crown of'));
    expect(await ids('breach')).toEqual(titled('breaches'));
    expect(await ids('entering')).toEqual(titled('entered'));
    expect(await ids('perimeter breach fence')).toEqual(titled('breaches', 'fence'));
    // Names and ids as written, whole or begun; punctuation separates words.
    expect(await ids('MSCU1234565')).toEqual(titled('mscu1234565'));
    expect(await ids('mscu123')).toEqual(titled('mscu1234565'));
    expect(await ids('cam-12')).toEqual(titled('cam-12'));
    expect(await ids('holmen')).toEqual(titled('holmen-naval'));
    expect(await ids('12.5 seconds')).toEqual(titled('12.5 seconds'));
    expect(await ids('"seal" (broken)')).toEqual(titled('seal broken'));
    expect(await ids('crown breach')).toEqual([]);
    // Only the last word is a beginning (as in search-as-you-type): an earlier one must be whole.
    expect(await ids('scand crown')).toEqual([]);
    // A search counts in its page's scan; a page past the end still knows the total.
    const past = await call(url(inWindow({ search: 'crown', per_page: '10', page: '99' })), reader);
    expect(past.json).toMatchObject({ data: [], pagination: { page: 99, total_items: titled('crown').length, has_next: false, has_previous: true } });
    // And with the other filters.
    const q = inWindow({ search: 'camera', category: 'perimeter', sort: 'severity' });
    const served = (await allPages(q, 200)).events.map((e) => e.id);
    expect(served).toEqual(expected({ ...q, search: '' }).filter((e) => titled('camera').includes(e.id)).map((e) => e.id));
  });
});

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
