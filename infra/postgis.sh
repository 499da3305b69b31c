#!/usr/bin/env bash
# Local PostgreSQL 15 + PostGIS 3 for Port Security Service, without Docker (Debian/Ubuntu).
#
#   infra/postgis.sh          install postgresql-15-postgis-3 if missing, start the cluster if it is
#                             down, create databases pss and pss_test (owner postgres) if missing,
#                             CREATE EXTENSION IF NOT EXISTS postgis in each.
#   infra/postgis.sh status   exit 0 when PostgreSQL answers and both databases have PostGIS
#
# Idempotent. Prints only what it changed (nothing when everything was already in place) and
# errors. Environment (all optional):
#   PSS_PG_VERSION (15), PSS_PG_CLUSTER (main), PSS_PG_HOST (127.0.0.1), PSS_PG_PORT (5432),
#   PSS_PG_USER (postgres), PSS_PG_DATABASES ("pss pss_test")
set -euo pipefail

PG_VERSION="${PSS_PG_VERSION:-15}"
PG_CLUSTER="${PSS_PG_CLUSTER:-main}"
PG_HOST="${PSS_PG_HOST:-127.0.0.1}"
PG_PORT="${PSS_PG_PORT:-5432}"
PG_USER="${PSS_PG_USER:-postgres}"
DATABASES="${PSS_PG_DATABASES:-pss pss_test}"
PKG="postgresql-$PG_VERSION-postgis-3"

log() { echo "postgis.sh: $*"; }
err() { echo "postgis.sh: $*" >&2; }

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null; then sudo -n "$@"
  else err "need root (or passwordless sudo) for: $*"; exit 1
  fi
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

ensure_package() {
  installed "$PKG" && return 0
  command -v apt-get >/dev/null || { err "$PKG missing and apt-get not available; install PostGIS 3 for PostgreSQL $PG_VERSION"; exit 1; }
  log "installing $PKG (apt-get) ..."
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -y -q -o DPkg::Lock::Timeout=600
             -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
  if ! as_root "${apt[@]}" install --no-install-recommends "$PKG" >/tmp/pss-postgis-apt.log 2>&1; then
    # Package lists may be missing or stale on a fresh machine.
    as_root "${apt[@]}" update >>/tmp/pss-postgis-apt.log 2>&1 || true
    if ! as_root "${apt[@]}" install --no-install-recommends "$PKG" >>/tmp/pss-postgis-apt.log 2>&1; then
      err "apt-get install $PKG failed; see /tmp/pss-postgis-apt.log"; tail -n 20 /tmp/pss-postgis-apt.log >&2; exit 1
    fi
  fi
  log "installed $PKG"
}

cluster_status() { pg_lsclusters --no-header 2>/dev/null | awk -v v="$PG_VERSION" -v c="$PG_CLUSTER" '$1==v && $2==c {print $4}'; }

ensure_cluster() {
  command -v pg_lsclusters >/dev/null || { err "pg_lsclusters not found: is postgresql-common installed?"; exit 1; }
  local st
  st="$(cluster_status)"
  if [[ -z "$st" ]]; then
    log "creating cluster $PG_VERSION/$PG_CLUSTER ..."
    as_root pg_createcluster "$PG_VERSION" "$PG_CLUSTER" -p "$PG_PORT" >/dev/null
    st="$(cluster_status)"
  fi
  if [[ "$st" != online* ]]; then
    log "starting cluster $PG_VERSION/$PG_CLUSTER ..."
    as_root pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" "$PG_CLUSTER" start
  fi
}

# psql over TCP as $PG_USER (trust auth); falls back to the local socket as the postgres OS user
# (peer auth) when TCP login is refused and we can become postgres.
PSQL_MODE=""
psql_() {
  if [[ "$PSQL_MODE" == peer ]]; then
    as_root runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -p "$PG_PORT" "$@"
  else
    PGCONNECT_TIMEOUT=5 psql -X -q -v ON_ERROR_STOP=1 -h "$PG_HOST" -p "$PG_PORT" -U "$PG_USER" -w "$@"
  fi
}

wait_ready() {
  local i
  for i in $(seq 60); do
    pg_isready -q -h "$PG_HOST" -p "$PG_PORT" && break
    sleep 0.5
  done
  pg_isready -q -h "$PG_HOST" -p "$PG_PORT" || { err "PostgreSQL not accepting connections on $PG_HOST:$PG_PORT"; exit 1; }
  if ! psql_ -d postgres -Atc 'select 1' >/dev/null 2>&1; then
    if [[ $(id -u) -eq 0 || -n "$(command -v sudo)" ]] && PSQL_MODE=peer psql_ -d postgres -Atc 'select 1' >/dev/null 2>&1; then
      PSQL_MODE=peer
    else
      err "cannot log in to $PG_HOST:$PG_PORT as $PG_USER (expected trust auth for local TCP)"
      psql_ -d postgres -Atc 'select 1' >&2 || true
      exit 1
    fi
  fi
}

ensure_databases() {
  local db
  for db in $DATABASES; do
    [[ "$db" =~ ^[a-z_][a-z0-9_]*$ ]] || { err "bad database name: $db"; exit 2; }
    if [[ "$(psql_ -d postgres -Atc "select 1 from pg_database where datname = '$db'")" != 1 ]]; then
      # A concurrent run may win the race; "already exists" is fine.
      if ! out="$(psql_ -d postgres -c "create database $db owner $PG_USER" 2>&1)"; then
        grep -q 'already exists' <<<"$out" || { err "$out"; exit 1; }
      else
        log "created database $db"
      fi
    fi
    if [[ "$(psql_ -d "$db" -Atc "select 1 from pg_extension where extname = 'postgis'")" != 1 ]]; then
      psql_ -d "$db" -c 'create extension if not exists postgis' 2>&1 | grep -v 'already exists' >&2 || true
      [[ "$(psql_ -d "$db" -Atc "select 1 from pg_extension where extname = 'postgis'")" == 1 ]] \
        || { err "could not create extension postgis in $db"; exit 1; }
      log "postgis $(psql_ -d "$db" -Atc "select extversion from pg_extension where extname = 'postgis'") enabled in $db"
    fi
  done
}

cmd_status() {
  local db v ok=0
  if ! pg_isready -q -h "$PG_HOST" -p "$PG_PORT"; then echo "postgres: not accepting connections on $PG_HOST:$PG_PORT"; return 3; fi
  wait_ready
  for db in $DATABASES; do
    v="$(psql_ -d "$db" -Atc "select extversion from pg_extension where extname = 'postgis'" 2>/dev/null || true)"
    if [[ -n "$v" ]]; then echo "postgres: $db on $PG_HOST:$PG_PORT, postgis $v"
    else echo "postgres: $db missing or without postgis"; ok=1; fi
  done
  return $ok
}

case "${1:-up}" in
  up|start) ensure_package; ensure_cluster; wait_ready; ensure_databases ;;
  status) cmd_status ;;
  *) echo "usage: $0 [up|status]" >&2; exit 2 ;;
esac
