-- Runs once, on the first start of an empty data volume (after the image's own 10_postgis.sh,
-- which has already enabled postgis in $POSTGRES_DB = pss).
-- Mirrors infra/postgis.sh: databases pss and pss_test, owner postgres, postgis in each.
CREATE DATABASE pss_test OWNER postgres;
\connect pss_test
CREATE EXTENSION IF NOT EXISTS postgis;
\connect pss
CREATE EXTENSION IF NOT EXISTS postgis;
