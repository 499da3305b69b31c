-- Up Migration
-- Issue 13: vessel positions and static data in PostGIS, and the `analyst` schema that analysts read.
-- 0008 dropped a `vessels` table that nobody wrote; this one has writers (processors/vessels/): the
-- positions sink (ais.positions) and the static sink (ais.static), both consumer groups.

-- Every accepted position report that has a position, one row per (vessel, event time, feed): a re-read
-- Kafka record meets the primary key and adds nothing (INSERT ... ON CONFLICT DO NOTHING). Partitioned
-- by UTC day of the event time: partitions are created ahead (and on demand for late reports) by
-- vessel_positions_create_partition and dropped whole by retention, which costs no DELETE or VACUUM.
-- The primary key doubles as the (mmsi, time) index of per-vessel tracks.
CREATE TABLE vessel_positions (
  mmsi        integer NOT NULL,
  reported_at timestamptz NOT NULL,
  source      text NOT NULL,
  position    geography(Point, 4326) NOT NULL,
  sog         real,
  cog         real,
  heading     smallint,
  nav_status  smallint,
  msg_type    smallint NOT NULL,
  received_at timestamptz NOT NULL,
  PRIMARY KEY (mmsi, reported_at, source)
) PARTITION BY RANGE (reported_at);
-- Rows arrive roughly in event-time order, so a BRIN index on time is tiny and prunes block ranges
-- for "everything between 02:00 and 04:00".
-- autosummarize: a range is summarized as soon as inserts move past it; unsummarized ranges match every
-- query, so without it the hot day would not be pruned at all until a VACUUM.
CREATE INDEX vessel_positions_time_brin ON vessel_positions USING brin (reported_at) WITH (pages_per_range = 32, autosummarize = on);
-- GiST on position ("near this berth", "inside this zone") is built per day partition once the day has
-- ended (processors/vessels/partitions.ts, CREATE INDEX CONCURRENTLY), not on the parent: maintaining it
-- row by row was 60% of the insert cost (6.0 s against 2.4 s for 300,000 rows), and one bulk build of a
-- closed day is cheaper and packs a better tree. Today's partition is read by time first (BRIN, pruning);
-- the few late reports into a closed day update its index as usual.

-- The partition holding UTC day `day`; true when this call created it. Serialized by an advisory lock so
-- instances racing for the same day do not fail on each other.
CREATE FUNCTION vessel_positions_create_partition(day date) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  part text := format('vessel_positions_%s', to_char(day, 'YYYYMMDD'));
BEGIN
  IF to_regclass(format('%I', part)) IS NOT NULL THEN RETURN false; END IF;
  PERFORM pg_advisory_xact_lock(hashtext('vessel_positions_partitions'));
  IF to_regclass(format('%I', part)) IS NOT NULL THEN RETURN false; END IF;
  EXECUTE format('CREATE TABLE %I PARTITION OF vessel_positions FOR VALUES FROM (%L) TO (%L)',
                 part, day::timestamp AT TIME ZONE 'UTC', (day + 1)::timestamp AT TIME ZONE 'UTC');
  RETURN true;
END
$$;

-- Drops every day partition wholly before UTC day `keep_from`; returns the names dropped.
CREATE FUNCTION vessel_positions_drop_before(keep_from date) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  part text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('vessel_positions_partitions'));
  FOR part IN
    SELECT c.relname FROM pg_inherits AS i JOIN pg_class AS c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'vessel_positions'::regclass AND c.relname ~ '^vessel_positions_\d{8}$'
       AND to_date(substr(c.relname, 18), 'YYYYMMDD') < keep_from
     ORDER BY c.relname
  LOOP
    EXECUTE format('DROP TABLE %I', part);
    RETURN NEXT part;
  END LOOP;
END
$$;

-- Each vessel as last reported: static and voyage data from ais.static (types 5, 19, 24 A and B merged;
-- a field a newer report leaves out keeps its earlier value) and the newest position.
CREATE TABLE vessels (
  mmsi               integer PRIMARY KEY,
  name               text,
  callsign           text,
  imo                integer,
  ship_type          smallint,
  category           text,
  hazardous_category text,
  to_bow             smallint,
  to_stern           smallint,
  to_port            smallint,
  to_starboard       smallint,
  length             smallint,
  beam               smallint,
  draught            real,
  destination        text,
  eta                timestamptz,
  static_reported_at timestamptz,
  last_position      geography(Point, 4326),
  last_sog           real,
  last_cog           real,
  last_heading       smallint,
  last_nav_status    smallint,
  last_report_at     timestamptz,
  last_source        text,
  updated_at         timestamptz NOT NULL DEFAULT now()
) WITH (fillfactor = 70);
-- Deliberately no index on the last-position columns: the sink rewrites them for every vessel in every
-- batch, and without an index on them those updates stay HOT (in-page, no index writes), which kept the
-- sink's throughput. One row per vessel (tens of thousands) scans in milliseconds for the list's bounding
-- box, seen-since filter and order. Name and category change rarely, so they are indexed.
CREATE INDEX vessels_name_idx ON vessels (lower(name) text_pattern_ops);
CREATE INDEX vessels_category_idx ON vessels (category);
-- A vessel's recent events (GET /v1/maritime/vessels/{mmsi}). Text, not integer: metadata is free-form for
-- events from other modules, and a failing cast in an index expression would refuse their insert.
CREATE INDEX security_events_mmsi_idx ON security_events ((body->'metadata'->>'mmsi'), occurred_at)
  WHERE body->'metadata' ? 'mmsi';

-- ---------------------------------------------------------------------------------------------------
-- The analyst schema: documented views, the only thing the pss_analyst role may read. Views run with
-- their owner's rights, so the role needs no grant on the tables beneath.
CREATE SCHEMA analyst;
COMMENT ON SCHEMA analyst IS 'Port Security Service data for analysts: read-only views over positions, vessels, zones, zone incursions, dwell and security events. Times are UTC timestamptz; positions are WGS 84 (SRID 4326).';

CREATE VIEW analyst.positions AS
SELECT mmsi, reported_at, source, position, ST_Y(position::geometry) AS lat, ST_X(position::geometry) AS lon,
       sog, cog, heading, nav_status, msg_type, received_at
  FROM vessel_positions;
COMMENT ON VIEW analyst.positions IS 'Every stored AIS position report (one row per vessel, event time and feed), kept for PSS_POSITION_RETENTION_DAYS. Filter on reported_at (partition pruning, BRIN), mmsi (primary key) or position (GiST).';
COMMENT ON COLUMN analyst.positions.mmsi IS 'Maritime Mobile Service Identity of the vessel.';
COMMENT ON COLUMN analyst.positions.reported_at IS 'Event time of the report (UTC): when the vessel was there.';
COMMENT ON COLUMN analyst.positions.source IS 'Configured name of the AIS feed the report came from.';
COMMENT ON COLUMN analyst.positions.position IS 'Where the vessel was, geography(Point, 4326); ST_DWithin on it takes metres.';
COMMENT ON COLUMN analyst.positions.lat IS 'Latitude in WGS 84 degrees, north positive.';
COMMENT ON COLUMN analyst.positions.lon IS 'Longitude in WGS 84 degrees, east positive.';
COMMENT ON COLUMN analyst.positions.sog IS 'Speed over ground in knots; null when not reported.';
COMMENT ON COLUMN analyst.positions.cog IS 'Course over ground in degrees true; null when not reported.';
COMMENT ON COLUMN analyst.positions.heading IS 'True heading in degrees; null when not reported.';
COMMENT ON COLUMN analyst.positions.nav_status IS 'ITU-R M.1371 navigational status (0 under way using engine, 1 at anchor, 5 moored, ...); null when undefined.';
COMMENT ON COLUMN analyst.positions.msg_type IS 'AIS message type (1, 2, 3, 18, 19 or 27).';
COMMENT ON COLUMN analyst.positions.received_at IS 'When the service received the report.';

CREATE VIEW analyst.vessel_tracks AS
SELECT mmsi, (reported_at AT TIME ZONE 'UTC')::date AS day,
       ST_MakeLine(ST_MakePointM(ST_X(position::geometry), ST_Y(position::geometry), extract(epoch FROM reported_at)) ORDER BY reported_at)::geometry(LineStringM, 4326) AS track,
       count(*)::integer AS reports, min(reported_at) AS first_report_at, max(reported_at) AS last_report_at
  FROM vessel_positions
 GROUP BY mmsi, (reported_at AT TIME ZONE 'UTC')::date;
COMMENT ON VIEW analyst.vessel_tracks IS 'One track per vessel and UTC day: its positions joined in time order. Computed on read: filter on mmsi and day. A day with one report gives a one-point line.';
COMMENT ON COLUMN analyst.vessel_tracks.mmsi IS 'Maritime Mobile Service Identity of the vessel.';
COMMENT ON COLUMN analyst.vessel_tracks.day IS 'UTC calendar day of the reports.';
COMMENT ON COLUMN analyst.vessel_tracks.track IS 'geometry(LineStringM, 4326): X longitude, Y latitude, M the report time in Unix epoch seconds (ST_LocateAlong, ST_M, to_timestamp).';
COMMENT ON COLUMN analyst.vessel_tracks.reports IS 'Number of position reports in the track.';
COMMENT ON COLUMN analyst.vessel_tracks.first_report_at IS 'Time of the first report of the day.';
COMMENT ON COLUMN analyst.vessel_tracks.last_report_at IS 'Time of the last report of the day.';

CREATE VIEW analyst.vessels AS
SELECT mmsi, name, callsign, imo, ship_type, category, hazardous_category, to_bow, to_stern, to_port, to_starboard,
       length, beam, draught, destination, eta, static_reported_at, last_position, last_sog, last_cog, last_heading,
       last_nav_status, last_report_at, last_source
  FROM vessels;
COMMENT ON VIEW analyst.vessels IS 'Each vessel as last reported: static and voyage data (AIS types 5, 19, 24) and the newest position.';
COMMENT ON COLUMN analyst.vessels.mmsi IS 'Maritime Mobile Service Identity of the vessel.';
COMMENT ON COLUMN analyst.vessels.name IS 'Vessel name as broadcast; null until a static report names it.';
COMMENT ON COLUMN analyst.vessels.callsign IS 'Radio call sign.';
COMMENT ON COLUMN analyst.vessels.imo IS 'IMO ship identification number.';
COMMENT ON COLUMN analyst.vessels.ship_type IS 'ITU-R M.1371 type of ship and cargo code (1-255).';
COMMENT ON COLUMN analyst.vessels.category IS 'Vessel category derived from ship_type (cargo, tanker, passenger, tug, pilot, fishing, ...).';
COMMENT ON COLUMN analyst.vessels.hazardous_category IS 'IMO hazardous cargo category A-D from the ship type code.';
COMMENT ON COLUMN analyst.vessels.to_bow IS 'Metres from the position reference point to the bow.';
COMMENT ON COLUMN analyst.vessels.to_stern IS 'Metres from the reference point to the stern.';
COMMENT ON COLUMN analyst.vessels.to_port IS 'Metres from the reference point to port.';
COMMENT ON COLUMN analyst.vessels.to_starboard IS 'Metres from the reference point to starboard.';
COMMENT ON COLUMN analyst.vessels.length IS 'Overall length in metres (to_bow + to_stern).';
COMMENT ON COLUMN analyst.vessels.beam IS 'Beam in metres (to_port + to_starboard).';
COMMENT ON COLUMN analyst.vessels.draught IS 'Reported draught in metres.';
COMMENT ON COLUMN analyst.vessels.destination IS 'Reported destination, as typed by the crew.';
COMMENT ON COLUMN analyst.vessels.eta IS 'Reported estimated time of arrival (UTC).';
COMMENT ON COLUMN analyst.vessels.static_reported_at IS 'Event time of the newest static report applied.';
COMMENT ON COLUMN analyst.vessels.last_position IS 'Newest reported position, geography(Point, 4326).';
COMMENT ON COLUMN analyst.vessels.last_sog IS 'Speed over ground of the newest position, knots.';
COMMENT ON COLUMN analyst.vessels.last_cog IS 'Course over ground of the newest position, degrees true.';
COMMENT ON COLUMN analyst.vessels.last_heading IS 'Heading of the newest position, degrees true.';
COMMENT ON COLUMN analyst.vessels.last_nav_status IS 'Navigational status of the newest position.';
COMMENT ON COLUMN analyst.vessels.last_report_at IS 'Event time of the newest position: when the vessel was last seen.';
COMMENT ON COLUMN analyst.vessels.last_source IS 'Feed of the newest position.';

CREATE VIEW analyst.zones AS
SELECT z.id, z.name, z.type, z.alert_level, z.active, z.geometry_type, z.shape,
       coalesce(z.centerline, z.center, z.shape) AS reference, coalesce(z.reach_m, 0) AS reach_m, z.buffer_m,
       z.definition->'schedule' AS schedule, z.created_at, z.updated_at,
       coalesce((SELECT array_agg(c.cell ORDER BY c.cell) FROM zone_cells AS c WHERE c.zone_id = z.id AND c.kind <> 'buffer'), '{}') AS h3_cover,
       coalesce((SELECT array_agg(c.cell ORDER BY c.cell) FROM zone_cells AS c WHERE c.zone_id = z.id AND c.kind = 'buffer'), '{}') AS h3_buffer_cover
  FROM zones AS z;
COMMENT ON VIEW analyst.zones IS 'Threat zones with their shape and H3 cover.';
COMMENT ON COLUMN analyst.zones.id IS 'Zone id, as in the API and in event metadata.zone_id.';
COMMENT ON COLUMN analyst.zones.name IS 'Zone name (unique, case-insensitively).';
COMMENT ON COLUMN analyst.zones.type IS 'exclusion, restricted, monitoring or anchorage.';
COMMENT ON COLUMN analyst.zones.alert_level IS 'info, low, medium, high or critical.';
COMMENT ON COLUMN analyst.zones.active IS 'Whether the zone is monitored.';
COMMENT ON COLUMN analyst.zones.geometry_type IS 'Geometry as defined: Polygon, MultiPolygon, Circle or Corridor.';
COMMENT ON COLUMN analyst.zones.shape IS 'The zone as a (multi)polygon, geography(Geometry, 4326); circles and corridors are approximated within 0.1 m inside.';
COMMENT ON COLUMN analyst.zones.reference IS 'What membership is measured from: the centre of a Circle, the centre line of a Corridor, the shape of a (Multi)Polygon. A point is in the zone exactly when ST_DWithin(point, reference, reach_m); for circles and corridors that is also far faster than testing against shape.';
COMMENT ON COLUMN analyst.zones.reach_m IS 'Metres from reference that count as inside: the radius of a Circle, half the width of a Corridor, 0 for a polygon.';
COMMENT ON COLUMN analyst.zones.buffer_m IS 'Pre-alert buffer distance in metres; 0 without a buffer.';
COMMENT ON COLUMN analyst.zones.schedule IS 'The zone schedule as configured (JSON), null when always on.';
COMMENT ON COLUMN analyst.zones.created_at IS 'When the zone was created.';
COMMENT ON COLUMN analyst.zones.updated_at IS 'When the zone was last changed.';
COMMENT ON COLUMN analyst.zones.h3_cover IS 'H3 cells (res 9 or coarser) covering the zone: cells wholly inside and boundary cells (h3-js / h3-pg cell strings).';
COMMENT ON COLUMN analyst.zones.h3_buffer_cover IS 'H3 cells wholly in the buffer ring around the zone.';

CREATE VIEW analyst.events AS
SELECT id, type, category, severity, occurred_at, source_module, body->>'source_device' AS source_device,
       body->>'title' AS title, body->>'description' AS description, zone, zone_id,
       CASE WHEN body->'metadata'->>'mmsi' ~ '^\d{1,10}$' THEN (body->'metadata'->>'mmsi')::bigint END AS mmsi,
       CASE WHEN body->'location' ? 'lat' THEN ST_SetSRID(ST_MakePoint((body->'location'->>'lng')::float8, (body->'location'->>'lat')::float8), 4326)::geography END AS location,
       body->'metadata' AS metadata, requires_action, assigned_to, incident_id
  FROM security_events_current;
COMMENT ON VIEW analyst.events IS 'Every stored security event as operators see it now (operator changes applied).';
COMMENT ON COLUMN analyst.events.id IS 'Event id (deterministic from its cause).';
COMMENT ON COLUMN analyst.events.type IS 'Event type, e.g. zone_entry, zone_exit, dwell_threshold.';
COMMENT ON COLUMN analyst.events.category IS 'gate, perimeter, maritime, drone, system or decision.';
COMMENT ON COLUMN analyst.events.severity IS 'low, medium, high or critical.';
COMMENT ON COLUMN analyst.events.occurred_at IS 'When it happened (event time).';
COMMENT ON COLUMN analyst.events.source_module IS 'Module that found it.';
COMMENT ON COLUMN analyst.events.source_device IS 'Device that reported it.';
COMMENT ON COLUMN analyst.events.title IS 'Short title.';
COMMENT ON COLUMN analyst.events.description IS 'Human-readable description.';
COMMENT ON COLUMN analyst.events.zone IS 'Zone name, when the event concerns a zone.';
COMMENT ON COLUMN analyst.events.zone_id IS 'Zone id, when the event concerns a zone.';
COMMENT ON COLUMN analyst.events.mmsi IS 'Vessel MMSI, for maritime events about a vessel.';
COMMENT ON COLUMN analyst.events.location IS 'Where it happened, geography(Point, 4326); null when the event has no position.';
COMMENT ON COLUMN analyst.events.metadata IS 'Type-specific details (JSON), as in the API.';
COMMENT ON COLUMN analyst.events.requires_action IS 'Whether an operator must act.';
COMMENT ON COLUMN analyst.events.assigned_to IS 'Operator assigned; empty when unassigned.';
COMMENT ON COLUMN analyst.events.incident_id IS 'Incident the event belongs to, or null.';

-- A stay is one entry to its exit. Its zone_entry event with reason `entered` (the first of the stay;
-- `alerting_started` and `authorized` ones re-state it) happened at the entry, so the view's entered_at is
-- that event's time and a filter on it is a range on the events' time index. The exit event names its
-- stay by metadata.entered_at; security_events_stay_exit_idx finds it.
CREATE INDEX security_events_stay_exit_idx ON security_events
  ((body->'metadata'->>'mmsi'), (body->'metadata'->>'zone_id'), (body->'metadata'->>'entered_at'))
  WHERE type = 'zone_exit';
CREATE VIEW analyst.zone_incursions AS
SELECT (en.body->'metadata'->>'mmsi')::integer AS mmsi, en.body->'metadata'->>'vessel_name' AS vessel_name,
       en.body->'metadata'->>'zone_id' AS zone_id, en.body->'metadata'->>'zone_name' AS zone_name,
       en.body->'metadata'->>'zone_type' AS zone_type, en.occurred_at AS entered_at, ex.occurred_at AS exited_at,
       ex.body->'metadata'->>'exit_reason' AS exit_reason,
       floor(extract(epoch FROM ex.occurred_at - en.occurred_at) / 60)::integer AS stay_minutes,
       (ex.body->'metadata'->>'dwell_minutes')::integer AS visit_dwell_minutes,
       (en.body->'metadata'->>'alerting')::boolean AS alerted, (en.body->'metadata'->>'authorized')::boolean AS authorized
  FROM security_events AS en
  LEFT JOIN LATERAL (
    SELECT x.occurred_at, x.body FROM security_events AS x
     WHERE x.type = 'zone_exit'
       AND x.body->'metadata'->>'mmsi' = en.body->'metadata'->>'mmsi'
       AND x.body->'metadata'->>'zone_id' = en.body->'metadata'->>'zone_id'
       AND x.body->'metadata'->>'entered_at' = en.body->'metadata'->>'entered_at'
     LIMIT 1
  ) AS ex ON true
 WHERE en.type = 'zone_entry' AND coalesce(en.body->'metadata'->>'reason', 'entered') = 'entered';
COMMENT ON VIEW analyst.zone_incursions IS 'Each stay of a vessel in a zone, from its zone_entry to its zone_exit events; exited_at is null while the vessel is still inside.';
COMMENT ON COLUMN analyst.zone_incursions.mmsi IS 'Vessel MMSI.';
COMMENT ON COLUMN analyst.zone_incursions.vessel_name IS 'Vessel name at entry, if known.';
COMMENT ON COLUMN analyst.zone_incursions.zone_id IS 'Zone id.';
COMMENT ON COLUMN analyst.zone_incursions.zone_name IS 'Zone name at entry.';
COMMENT ON COLUMN analyst.zone_incursions.zone_type IS 'exclusion, restricted, monitoring or anchorage.';
COMMENT ON COLUMN analyst.zone_incursions.entered_at IS 'First report inside the zone (event time).';
COMMENT ON COLUMN analyst.zone_incursions.exited_at IS 'Confirmed exit (first report outside, or the last report when the signal was lost); null while inside.';
COMMENT ON COLUMN analyst.zone_incursions.exit_reason IS 'How the stay ended, left (a report outside) or signal_lost (no report for the AIS silence timeout); null while inside.';
COMMENT ON COLUMN analyst.zone_incursions.stay_minutes IS 'Whole minutes from entry to exit of this stay; null while inside.';
COMMENT ON COLUMN analyst.zone_incursions.visit_dwell_minutes IS 'Dwell of the whole visit at exit, including time carried over from earlier stays within the reset window.';
COMMENT ON COLUMN analyst.zone_incursions.alerted IS 'Whether the entry raised an alert.';
COMMENT ON COLUMN analyst.zone_incursions.authorized IS 'Whether the vessel was authorized in the zone at entry.';

CREATE VIEW analyst.dwell_history AS
SELECT (e.body->'metadata'->>'mmsi')::integer AS mmsi, e.body->'metadata'->>'zone_id' AS zone_id,
       e.body->'metadata'->>'zone_name' AS zone_name, (e.body->'metadata'->>'visit_started_at')::timestamptz AS visit_started_at,
       e.type AS event_type, e.occurred_at, (e.body->'metadata'->>'dwell_minutes')::integer AS dwell_minutes,
       (e.body->'metadata'->>'threshold_minutes')::integer AS threshold_minutes,
       e.body->'metadata'->>'alert_status' AS alert_status, e.body->'metadata'->>'action' AS escalation_action, e.id AS event_id
  FROM security_events AS e
 WHERE e.type IN ('dwell_threshold', 'dwell_escalation', 'zone_exit');
COMMENT ON VIEW analyst.dwell_history IS 'Dwell milestones of every visit: the threshold crossing, each escalation, and the final dwell at exit.';
COMMENT ON COLUMN analyst.dwell_history.mmsi IS 'Vessel MMSI.';
COMMENT ON COLUMN analyst.dwell_history.zone_id IS 'Zone id.';
COMMENT ON COLUMN analyst.dwell_history.zone_name IS 'Zone name when the event was raised.';
COMMENT ON COLUMN analyst.dwell_history.visit_started_at IS 'First entry of the visit (re-entries within the reset window continue it).';
COMMENT ON COLUMN analyst.dwell_history.event_type IS 'dwell_threshold, dwell_escalation or zone_exit.';
COMMENT ON COLUMN analyst.dwell_history.occurred_at IS 'When the milestone was reached (event time).';
COMMENT ON COLUMN analyst.dwell_history.dwell_minutes IS 'Visit dwell in whole minutes at that moment.';
COMMENT ON COLUMN analyst.dwell_history.threshold_minutes IS 'The zone''s dwell limit (threshold and escalation events).';
COMMENT ON COLUMN analyst.dwell_history.alert_status IS 'none, active or escalated.';
COMMENT ON COLUMN analyst.dwell_history.escalation_action IS 'Escalation action (dwell_escalation only).';
COMMENT ON COLUMN analyst.dwell_history.event_id IS 'The security event recording the milestone (analyst.events.id).';

CREATE VIEW analyst.current_presence AS
SELECT s.mmsi, p->>'zone_id' AS zone_id, z.name AS zone_name, p->>'presence' AS presence,
       to_timestamp((p->>'entered_at')::float8 / 1000) AS entered_at,
       to_timestamp((p->>'visit_started_at')::float8 / 1000) AS visit_started_at,
       s.last_seen_at
  FROM maritime_vessel_state AS s
 CROSS JOIN LATERAL jsonb_array_elements(s.state->'zones') AS p
  LEFT JOIN zones AS z ON z.id = p->>'zone_id'
 WHERE p->>'presence' IN ('inside', 'in_buffer');
COMMENT ON VIEW analyst.current_presence IS 'Vessels in a zone or its buffer now, as the zone processor last recorded them.';
COMMENT ON COLUMN analyst.current_presence.mmsi IS 'Vessel MMSI.';
COMMENT ON COLUMN analyst.current_presence.zone_id IS 'Zone id.';
COMMENT ON COLUMN analyst.current_presence.zone_name IS 'Zone name now.';
COMMENT ON COLUMN analyst.current_presence.presence IS 'inside or in_buffer.';
COMMENT ON COLUMN analyst.current_presence.entered_at IS 'Start of the current stay inside; null when in the buffer.';
COMMENT ON COLUMN analyst.current_presence.visit_started_at IS 'First entry of the visit.';
COMMENT ON COLUMN analyst.current_presence.last_seen_at IS 'Event time of the vessel''s newest report.';

-- The analyst role is cluster-wide, so another database (another test run) may have created it; two
-- migrations racing both see it missing, and the loser's CREATE fails with duplicate_object, harmless.
-- It starts without LOGIN; the set-up gives it a password from PSS_ANALYST_PASSWORD.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'pss_analyst') THEN
    CREATE ROLE pss_analyst NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION;
  END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
END
$$;
GRANT USAGE ON SCHEMA analyst TO pss_analyst;
GRANT SELECT ON ALL TABLES IN SCHEMA analyst TO pss_analyst;
-- A later view in the schema is readable too when the same owner creates it.
ALTER DEFAULT PRIVILEGES IN SCHEMA analyst GRANT SELECT ON TABLES TO pss_analyst;
-- Analysts only read: every transaction of the role is read-only unless it says otherwise (the grants
-- already refuse writes; this also refuses temporary tables' writes by mistake in long sessions).
ALTER ROLE pss_analyst SET default_transaction_read_only = on;
ALTER ROLE pss_analyst SET search_path = analyst, public;
-- Gives the role a login with a SCRAM verifier computed by the caller (processors/vessels/analyst-role.ts),
-- so the password itself never reaches the server or its logs; NULL takes the login away.
CREATE FUNCTION pss_set_analyst_login(verifier text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF verifier IS NULL THEN
    ALTER ROLE pss_analyst NOLOGIN PASSWORD NULL;
  ELSE
    IF verifier !~ '^SCRAM-SHA-256\$\d+:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$' THEN
      RAISE EXCEPTION 'not a SCRAM-SHA-256 verifier';
    END IF;
    EXECUTE format('ALTER ROLE pss_analyst LOGIN PASSWORD %L', verifier);
  END IF;
END
$$;
REVOKE ALL ON FUNCTION pss_set_analyst_login(text) FROM PUBLIC;

-- Down Migration
DROP FUNCTION pss_set_analyst_login(text);
REVOKE ALL ON SCHEMA analyst FROM pss_analyst;
ALTER DEFAULT PRIVILEGES IN SCHEMA analyst REVOKE SELECT ON TABLES FROM pss_analyst;
DROP SCHEMA analyst CASCADE;
DROP INDEX security_events_stay_exit_idx;
DROP INDEX security_events_mmsi_idx;
DROP TABLE vessels;
DROP FUNCTION vessel_positions_drop_before(date);
DROP FUNCTION vessel_positions_create_partition(date);
DROP TABLE vessel_positions;
