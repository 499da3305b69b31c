-- Up Migration
-- Webhook history retention (delivery/webhooks/retention.ts) finds finished deliveries by their last
-- change without reading the whole table.
CREATE INDEX webhook_deliveries_finished_idx ON webhook_deliveries (updated_at) WHERE status <> 'pending';

-- Down Migration
DROP INDEX webhook_deliveries_finished_idx;
