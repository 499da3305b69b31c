#!/usr/bin/env bash
# A Confluent-compatible schema registry for the optional schema-registry mode (PSS_SCHEMA_REGISTRY_URL)
# and its integration test: Apicurio Registry (in-memory storage), its Quarkus distribution fetched
# from Maven Central by `mvn`, serving the Confluent API at /apis/ccompat/v7. Idempotent.
# Usage: infra/schema-registry.sh start | stop | status | url
set -euo pipefail
VERSION=3.0.9
PORT="${PSS_SCHEMA_REGISTRY_PORT:-18081}"
HOME_DIR="${PSS_HOME:-$HOME/.cache/port-security-service}"
DIR="$HOME_DIR/apicurio-registry-$VERSION"
JAR="$DIR/apicurio-registry-app-$VERSION-runner.jar"
URL="http://127.0.0.1:$PORT/apis/ccompat/v7"
PIDFILE="$DIR/registry.pid"
LOG="$DIR/registry.log"

answering() { curl -sf -o /dev/null "$URL/subjects"; }

fetch() {
  [[ -f "$JAR" ]] && return 0
  echo "schema-registry.sh: fetching io.apicurio:apicurio-registry-app:$VERSION from Maven Central" >&2
  mkdir -p "$DIR"
  mvn -B -q dependency:copy -Dartifact="io.apicurio:apicurio-registry-app:$VERSION:tar.gz:all" -DoutputDirectory="$DIR" >&2
  tar xzf "$DIR/apicurio-registry-app-$VERSION-all.tar.gz" -C "$DIR"
  rm -f "$DIR/apicurio-registry-app-$VERSION-all.tar.gz"
}

case "${1:-status}" in
  start)
    if answering; then echo "schema-registry.sh: already running at $URL" >&2; echo "$URL"; exit 0; fi
    fetch
    nohup java -Xms64m -Xmx384m -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$PORT" -jar "$JAR" >"$LOG" 2>&1 &
    echo $! >"$PIDFILE"
    for _ in $(seq 1 120); do
      if answering; then echo "schema-registry.sh: running at $URL; logs: $LOG" >&2; echo "$URL"; exit 0; fi
      if ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then echo "schema-registry.sh: registry exited; see $LOG" >&2; exit 1; fi
      sleep 1
    done
    echo "schema-registry.sh: registry did not answer within 120 s; see $LOG" >&2
    exit 1
    ;;
  stop)
    if [[ -f "$PIDFILE" ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then kill "$(cat "$PIDFILE")"; fi
    rm -f "$PIDFILE"
    ;;
  status)
    if answering; then echo "schema registry: running at $URL"; else echo "schema registry: not running"; exit 1; fi
    ;;
  url) echo "$URL" ;;
  *) echo "usage: $0 start | stop | status | url" >&2; exit 2 ;;
esac
