-- Up Migration
-- AIS gaps on one feed clock (issue 33, docs/zones-and-rules.md "AIS loss").
-- Feed outages on the clock of the positions: the report time of the feed's last report before the silence
-- and of its first after it. silent_from and resumed_at stay receipt times (the health model's clock).
ALTER TABLE feed_outages ADD COLUMN reported_until timestamptz, ADD COLUMN reported_again timestamptz;

-- How far each feed has carried (its newest report time) as the zone processors' members have read it:
-- every member writes what it read and adopts what the others read, so a vessel alone of its feed on a
-- member's partitions is judged on the whole feed's clock.
CREATE TABLE feed_clocks (
  feed text PRIMARY KEY,
  reported_until timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Down Migration
DROP TABLE feed_clocks;
ALTER TABLE feed_outages DROP COLUMN reported_again, DROP COLUMN reported_until;
