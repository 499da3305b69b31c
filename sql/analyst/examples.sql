-- The five example queries for analysts (docs/analysts.md "Five questions, answered"), run against a seeded database by
-- test/integration/processors/vessels/analyst-queries.test.ts and timed over 10,000,000 positions by
-- bench/analyst-queries.ts. Each starts with a `-- name:` line; docs/analysts.md quotes each verbatim.

-- name: crossed_channel
-- Which vessels crossed the approach channel between 02:00 and 04:00 (UTC) on 20 November 2026?
SELECT p.mmsi, v.name, min(p.reported_at) AS first_seen, max(p.reported_at) AS last_seen, count(*) AS reports
  FROM analyst.positions AS p
  JOIN analyst.zones AS z ON z.name = 'Approach channel'
  LEFT JOIN analyst.vessels AS v ON v.mmsi = p.mmsi
 WHERE p.reported_at >= '2026-11-20 02:00Z' AND p.reported_at < '2026-11-20 04:00Z'
   AND ST_DWithin(p.position, z.reference, z.reach_m)
 GROUP BY p.mmsi, v.name
 ORDER BY first_seen, p.mmsi;

-- name: longest_anchorage_stays
-- The longest stays at an anchorage this week (the last 7 days); a vessel still there counts until now.
SELECT i.mmsi, i.vessel_name, i.zone_name, i.entered_at, i.exited_at,
       coalesce(i.stay_minutes, floor(extract(epoch FROM now() - i.entered_at) / 60)::integer) AS minutes
  FROM analyst.zone_incursions AS i
 WHERE i.zone_type = 'anchorage' AND i.entered_at >= now() - interval '7 days'
 ORDER BY minutes DESC, i.mmsi
 LIMIT 10;

-- name: tracks_near_berth
-- Tracks on 20 November 2026 (LineStrings, M = epoch seconds) of the vessels that came within 500 m of Berth 7 that day.
SELECT p.mmsi, count(*) AS reports,
       ST_MakeLine(ST_MakePointM(p.lon, p.lat, extract(epoch FROM p.reported_at)) ORDER BY p.reported_at) AS track,
       round(ST_Length(ST_MakeLine(p.position::geometry ORDER BY p.reported_at)::geography)) AS metres,
       min(p.reported_at) AS first_report_at, max(p.reported_at) AS last_report_at
  FROM analyst.positions AS p
 WHERE p.reported_at >= '2026-11-20 00:00Z' AND p.reported_at < '2026-11-21 00:00Z'
   AND p.mmsi = ANY (ARRAY(SELECT DISTINCT n.mmsi
                             FROM analyst.positions AS n
                             JOIN analyst.zones AS z ON z.name = 'Berth 7'
                            WHERE n.reported_at >= '2026-11-20 00:00Z' AND n.reported_at < '2026-11-21 00:00Z'
                              AND ST_DWithin(n.position, z.reference, z.reach_m + 500)))
 GROUP BY p.mmsi
 ORDER BY p.mmsi;

-- name: events_per_zone_per_day
-- Events per zone per day from 1 to 13 November 2026, with how many were high or critical.
SELECT e.zone, (e.occurred_at AT TIME ZONE 'UTC')::date AS day, count(*) AS events,
       count(*) FILTER (WHERE e.severity IN ('high', 'critical')) AS high_or_critical
  FROM analyst.events AS e
 WHERE e.zone IS NOT NULL AND e.occurred_at >= '2026-11-01 00:00Z' AND e.occurred_at < '2026-11-14 00:00Z'
 GROUP BY e.zone, day
 ORDER BY day, e.zone;

-- name: dark_in_zone
-- Vessels that went dark inside a zone: their last report, in the past 7 days, lies in an active zone
-- and nothing has been heard from them for more than 30 minutes.
SELECT v.mmsi, v.name, z.name AS zone, v.last_report_at, date_trunc('second', now() - v.last_report_at) AS silent_for
  FROM analyst.vessels AS v
  JOIN analyst.zones AS z ON z.active AND ST_DWithin(v.last_position, z.reference, z.reach_m)
 WHERE v.last_report_at < now() - interval '30 minutes' AND v.last_report_at >= now() - interval '7 days'
 ORDER BY v.last_report_at, v.mmsi, zone;
