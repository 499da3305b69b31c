// A realistic stored-event corpus for the events query benchmark, generated inside PostgreSQL: every
// category in the proportions a busy terminal sees (maritime and gate most), the type table's
// severities, 40 threat zones and 12 fence sectors, about 900 vessel names, container numbers, camera
// and drone ids in the text, events in time order (as the store appends them), a fifth with an
// incident or operator action, and 2% changed by operators (event_triage).
import type pg from 'pg';

/** What a query in the benchmark may ask for: values that occur in the corpus. */
export const CORPUS = {
  zones: Array.from({ length: 40 }, (_, z) => `Zone ${z} ${['north', 'south', 'east', 'west', 'anchorage', 'berth'][z % 6]}`),
  sectors: Array.from({ length: 12 }, (_, s) => `Fence sector ${s}`),
  modules: ['maritime.zones', 'maritime.integrity', 'gate.lanes', 'gate.decisions', 'perimeter.sensors', 'perimeter.cameras', 'drone.fleet', 'system.health', 'system.incidents'],
  incidents: 2_000,
  operators: 20,
  nameWords: ['NORDIC', 'CROWN', 'BALTIC', 'STAR', 'ARCTIC', 'OCEAN', 'SPIRIT', 'EXPRESS', 'QUEEN', 'PIONEER', 'HARMONY', 'VIKING', 'AURORA', 'FALCON', 'HORIZON', 'MAERSK', 'STENA', 'GRACE', 'ODIN', 'FREYA', 'TRITON', 'POLARIS', 'CORONA', 'NEPTUN', 'HAVFRUE', 'SKAGEN', 'ORESUND', 'HAMLET', 'KRONBORG', 'TINSOLDATEN'],
};

// Types with their weight (per 100 events), the spec's severity (`varies`: drawn), module, title and
// description with placeholders: %v vessel, %m MMSI, %z zone, %g gate lane, %c container, %p fence
// sector, %k camera, %r drone, %d minutes.
const KINDS = `
  ('zone_entry','maritime','varies','maritime.zones',17,'Vessel %v entered %z','%v (MMSI %m) entered restricted zone %z'),
  ('zone_exit','maritime','low','maritime.zones',14,'Vessel %v left %z','%v (MMSI %m) left %z after a dwell of %d minutes'),
  ('zone_approach','maritime','varies','maritime.zones',8,'Vessel %v approaching %z','%v is inside the buffer of %z, heading towards it'),
  ('dwell_threshold','maritime','medium','maritime.zones',4,'Vessel %v dwelling in %z','%v has stayed in %z for %d minutes, past its threshold'),
  ('dwell_escalation','maritime','varies','maritime.zones',1,'Dwell escalation for %v in %z','%v still in %z after %d minutes: escalated'),
  ('ais_gap','maritime','high','maritime.integrity',1,'AIS signal lost from %v','No AIS report from %v (MMSI %m) for %d minutes'),
  ('gate_transaction_created','gate','low','gate.lanes',14,'Truck at gate %g','Container %c arrived at gate lane %g'),
  ('ocr_mismatch','gate','medium','gate.lanes',3,'OCR mismatch at gate %g','Container %c read differs from the booking at lane %g'),
  ('seal_violation','gate','high','gate.lanes',1,'Seal violation on %c','Seal missing or broken on container %c at gate %g'),
  ('damage_detected','gate','medium','gate.lanes',2,'Damage on container %c','Dent and corrosion found on container %c at gate %g'),
  ('auto_approved','decision','low','gate.decisions',7,'Container %c approved','Automatic approval of container %c at gate %g'),
  ('manual_review','decision','medium','gate.decisions',2,'Container %c held for review','Container %c needs manual review at gate %g'),
  ('auto_rejected','decision','high','gate.decisions',1,'Container %c rejected','Automatic rejection of container %c at gate %g'),
  ('motion_detected','perimeter','medium','perimeter.sensors',8,'Motion near %p','Motion detected by camera %k near %p'),
  ('perimeter_breach','perimeter','high','perimeter.sensors',1,'Perimeter breach at %p','Barrier breached at %p, seen by camera %k'),
  ('fence_tamper','perimeter','high','perimeter.sensors',1,'Fence tamper at %p','Fence sensor triggered at %p'),
  ('camera_offline','perimeter','medium','perimeter.cameras',2,'Camera %k offline','Feed of camera %k at %p lost'),
  ('mission_launched','drone','low','drone.fleet',3,'Drone mission to %p','Drone %r launched towards %p'),
  ('mission_completed','drone','low','drone.fleet',3,'Drone mission completed','Drone %r back from %p'),
  ('evidence_captured','drone','low','drone.fleet',2,'Evidence captured at %p','Drone %r captured photos at %p'),
  ('drone_low_battery','drone','medium','drone.fleet',1,'Drone %r battery low','Battery of drone %r below 20 percent'),
  ('drone_lost_link','drone','high','drone.fleet',1,'Link lost with drone %r','No telemetry from drone %r near %p'),
  ('system_health_change','system','varies','system.health',2,'Component status changed','Kafka broker health changed to degraded'),
  ('incident_created','system','varies','system.incidents',1,'Incident opened','New incident grouping related events')`;

/**
 * Stores `count` events spread over the `days` days before now, in time order, in one statement per
 * 100,000 (generate_series; no row leaves the server). The secondary indexes of security_events are
 * dropped first and built again afterwards from their own definitions, which is much faster than
 * maintaining them row by row and leaves the same schema.
 */
export async function loadEventCorpus(client: pg.ClientBase, count: number, days: number, log: (line: string) => void): Promise<void> {
  const { rows: indexes } = await client.query<{ name: string; definition: string }>(
    `SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE tablename = 'security_events' AND indexname <> 'security_events_pkey'`,
  );
  for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);
  await client.query(`CREATE TEMP TABLE kinds (type text, category text, severity text, module text, weight int, title text, descr text)`);
  await client.query(`INSERT INTO kinds VALUES ${KINDS}`);
  await client.query(`CREATE TEMP TABLE kind_ranges AS SELECT k.*, sum(weight) OVER (ORDER BY type) - weight AS lo, sum(weight) OVER (ORDER BY type) AS hi FROM kinds AS k`);
  await client.query(FILL);
  await client.query('SELECT setseed(0.42)');
  const chunk = 100_000;
  for (let from = 1; from <= count; from += chunk) {
    await client.query(INSERT_CHUNK, [from, Math.min(count, from + chunk - 1), count, days, CORPUS.nameWords, CORPUS.zones, CORPUS.sectors, CORPUS.incidents]);
    log(`  stored ${Math.min(count, from + chunk - 1).toLocaleString('en')} events`);
  }
  await client.query(
    `INSERT INTO event_triage (event_id, requires_action, assigned_to, incident_id, updated_by)
     SELECT id, random() < 0.3, 'operator_' || floor(random() * $1)::int, CASE WHEN random() < 0.3 THEN 'inc_' || floor(random() * $2)::int END, 'key_bench'
       FROM security_events TABLESAMPLE BERNOULLI (2)`,
    [CORPUS.operators, CORPUS.incidents],
  );
  for (const index of indexes) {
    const t = performance.now();
    await client.query(index.definition);
    log(`  ${index.name} built in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  await client.query('VACUUM (ANALYZE) security_events');
  await client.query('VACUUM (ANALYZE) event_triage');
}

// Fills a title or description template (placeholders above).
const FILL = `
CREATE FUNCTION pg_temp.fill(template text, vessel text, mmsi int, zone text, zn int, cont text, sector text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(template,
    '%v', vessel), '%m', mmsi::text), '%z', zone), '%g', 'G' || (zn % 8)), '%c', cont), '%p', sector),
    '%k', 'cam-' || (zn * 7 % 90)), '%r', 'drone-' || (zn % 6)), '%d', (zn * 3)::text)
$$`;

// $1..$2 the event numbers of this chunk, $3 all events, $4 days, $5 name words, $6 zones, $7 sectors, $8 incidents.
const INSERT_CHUNK = `
INSERT INTO security_events (id, type, category, severity, occurred_at, source_module, zone, requires_action, incident_id, body, created_at)
SELECT id, type, category, severity, ts, module, zone, ra, inc,
       jsonb_build_object('id', id, 'type', type, 'timestamp', to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'category', category,
         'severity', severity, 'source_module', module, 'source_device', 'sensor-' || (zn % 30),
         'title', pg_temp.fill(title, vessel, mmsi, zone_name, zn, cont, sector),
         'description', pg_temp.fill(descr, vessel, mmsi, zone_name, zn, cont, sector),
         'location', CASE WHEN zone IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('lat', round((55.6 + r3 / 10)::numeric, 6), 'lng', round((12.5 + r4 / 10)::numeric, 6), 'zone', zone) END,
         'metadata', CASE WHEN category = 'maritime' THEN jsonb_build_object('zone_id', zone_id, 'mmsi', mmsi, 'vessel_name', vessel) ELSE jsonb_build_object('n', i) END,
         'requires_action', ra, 'assigned_to', '', 'incident_id', inc),
       ts
  FROM (
    SELECT g.*, n.*, k.type, k.category, k.module, k.title, k.descr,
           CASE WHEN k.severity <> 'varies' THEN k.severity ELSE (ARRAY['low','medium','medium','high','high','critical'])[1 + floor(g.r2 * 6)::int] END AS severity,
           CASE WHEN k.category = 'maritime' THEN n.zone_name WHEN k.category = 'perimeter' THEN n.sector END AS zone,
           CASE WHEN k.category = 'maritime' THEN 'zone_' || md5(n.zone_name) END AS zone_id,
           (k.severity <> 'low' AND g.r5 < 0.7) AS ra,
           CASE WHEN g.r6 < 0.02 THEN 'inc_' || floor(g.r7 * $8)::int END AS inc
      FROM (
        SELECT i, 'evt_' || md5('bench-event-' || i) AS id,
               now() - make_interval(secs => ($3 - i + random()) * $4 * 86400.0 / $3) AS ts,
               random() AS r0, random() AS r2, random() AS r3, random() AS r4, random() AS r5, random() AS r6, random() AS r7,
               floor(random() * 40)::int AS zn,
               219000000 + floor(random() * 900)::int AS mmsi,
               'MSCU' || lpad(floor(random() * 10000000)::text, 7, '0') AS cont
          FROM generate_series($1::int, $2::int) AS i
      ) AS g
      CROSS JOIN LATERAL (SELECT ($6::text[])[1 + g.zn] AS zone_name, ($7::text[])[1 + g.zn % 12] AS sector,
                                 ($5::text[])[1 + g.mmsi % 30] || ' ' || ($5::text[])[1 + (g.mmsi / 30) % 30] AS vessel) AS n
      JOIN kind_ranges AS k ON floor(g.r0 * 100) >= k.lo AND floor(g.r0 * 100) < k.hi
  ) AS e
 ORDER BY ts`;
