-- Up Migration
-- Live WebSocket stream connections, one row each, so the spec's limit of 10 per credential holds across
-- every API instance (docs/events-and-delivery.md "Connection limit"). An instance renews the lease of its
-- own rows every third of PSS_STREAM_CONNECTION_LEASE_SECONDS and deletes a row when its connection ends;
-- the rows of a crashed instance stop counting when their lease runs out. Times are the database's clock,
-- the one every instance shares.
CREATE TABLE stream_connections (
  id            text PRIMARY KEY,
  credential_id text NOT NULL,
  instance_id   text NOT NULL,
  connected_at  timestamptz NOT NULL DEFAULT now(),
  lease_until   timestamptz NOT NULL
);
CREATE INDEX stream_connections_credential_idx ON stream_connections (credential_id);
CREATE INDEX stream_connections_instance_idx ON stream_connections (instance_id);

-- Down Migration
DROP TABLE stream_connections;
