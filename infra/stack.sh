#!/usr/bin/env bash
# The whole local stack without Docker: PostgreSQL 15 + PostGIS 3 and a single-node Kafka.
#
#   infra/stack.sh up       postgis.sh (install/start/create dbs) + kafka.sh start
#   infra/stack.sh down     kafka.sh stop (PostgreSQL is a system service and is left running)
#   infra/stack.sh status   exit 0 only when both answer
#
# Idempotent: `up` reuses whatever already runs. See infra/postgis.sh and infra/kafka.sh for
# the environment variables they read.
set -euo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

case "${1:-}" in
  up)
    "$DIR/postgis.sh"
    "$DIR/kafka.sh" start
    ;;
  down)
    "$DIR/kafka.sh" stop
    ;;
  status)
    rc=0
    "$DIR/postgis.sh" status || rc=1
    "$DIR/kafka.sh" status || rc=1
    exit $rc
    ;;
  *) echo "usage: $0 {up|down|status}" >&2; exit 2 ;;
esac
