-- Up Migration
-- Feed outages on the clock of the positions (issue 33): the report time of the feed's last report before
-- the silence and of its first after it. silent_from and resumed_at stay receipt times (the health model's
-- clock); the AIS-gap rule compares report times with report times (docs/zones-and-rules.md, AIS loss).
ALTER TABLE feed_outages ADD COLUMN reported_until timestamptz, ADD COLUMN reported_again timestamptz;

-- Down Migration
ALTER TABLE feed_outages DROP COLUMN reported_again, DROP COLUMN reported_until;
