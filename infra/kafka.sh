#!/usr/bin/env bash
# Local Apache Kafka (KRaft, single combined broker+controller) without Docker.
#
#   infra/kafka.sh start          assemble jars if missing, configure, format, start, wait until ready
#   infra/kafka.sh stop           graceful stop (SIGTERM, then SIGKILL after a grace period)
#   infra/kafka.sh restart
#   infra/kafka.sh status         exit 0 if the broker answers a Metadata request, 3 if not running,
#                                 1 if our process is alive but not answering
#   infra/kafka.sh logs [-f] [N]  last N (200) lines of server.log; -f follows
#   infra/kafka.sh ping           metadata request only (no pid checks); exit 0 if answered
#   infra/kafka.sh paths          print where jars, config, data and logs live
#   infra/kafka.sh reset          stop and delete data (topics, offsets); jars are kept
#   infra/kafka.sh jars           assemble the jars only (if missing)
#   infra/kafka.sh cluster ...    a local three-node cluster on other ports (infra/kafka-cluster.sh)
#
# Everything lives outside git in ${PSS_HOME:-$HOME/.cache/port-security-service}/kafka-<version>/.
# Environment (all optional):
#   PSS_HOME                    cache root (default ~/.cache/port-security-service)
#   PSS_KAFKA_PORT              client listener port (default 9092)
#   PSS_KAFKA_CONTROLLER_PORT   KRaft controller port (default 9093)
#   PSS_KAFKA_HEAP_OPTS         default "-Xms256m -Xmx512m"
#   PSS_KAFKA_START_TIMEOUT     seconds to wait for readiness (default 60)
#   PSS_KAFKA_STOP_TIMEOUT      seconds to wait after SIGTERM before SIGKILL (default 30)
#   JAVA, MVN                   java / mvn executables (default: $JAVA_HOME/bin/java or PATH)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=infra/kafka-common.sh
source "$SCRIPT_DIR/kafka-common.sh"   # KAFKA_VERSION, KAFKA_HOME, LIBS, JAVA, STOP_TIMEOUT and the node functions

CONF_DIR="$KAFKA_HOME/config"
DATA_DIR="$KAFKA_HOME/data"
LOG_DIR="$KAFKA_HOME/logs"
PID_FILE="$KAFKA_HOME/kafka.pid"
LOCK_FILE="$KAFKA_HOME/.lock"

HOST=127.0.0.1
PORT="${PSS_KAFKA_PORT:-9092}"
CONTROLLER_PORT="${PSS_KAFKA_CONTROLLER_PORT:-9093}"
HEAP_OPTS="${PSS_KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
START_TIMEOUT="${PSS_KAFKA_START_TIMEOUT:-60}"
MVN="${MVN:-mvn}"

log() { echo "kafka.sh: $*"; }
err() { echo "kafka.sh: $*" >&2; }

# --- readiness probe ---------------------------------------------------------------------------
# Sends a real Kafka Metadata request (v4: supported by Kafka 1.0 through 4.x, KIP-896 kept it)
# over bash's /dev/tcp and checks the correlation id and that at least one broker is listed.
# A KRaft broker only enables request processing once it has caught up with the metadata log and
# is unfenced, so an answer here means clients can work.
#   request header v1: api_key=3 api_version=4 correlation_id=0x50535301 client_id="pss-ping"
#   body: topics=[] (empty array: no topics), allow_auto_topic_creation=false
#   response: size(4) correlation_id(4) throttle_time_ms(4) brokers_count(4) ...
ping_broker() {
  local hex
  hex="$(timeout 3 bash -c '
      exec 3<>"/dev/tcp/$0/$1" || exit 1
      printf "\x00\x00\x00\x17\x00\x03\x00\x04\x50\x53\x53\x01\x00\x08pss-ping\x00\x00\x00\x00\x00" >&3
      od -An -v -tx1 -N 16 <&3' "$HOST" "$PORT" 2>/dev/null | tr -d ' \n')" || return 1
  [[ ${#hex} -eq 32 ]] || return 1
  [[ "${hex:8:8}" == "50535301" ]] || return 1
  (( 16#${hex:24:8} >= 1 && 16#${hex:24:8} < 1000 ))
}

# Our broker's pid even when the pid file is missing or stale (matched on our own config path).
find_pid() {
  local pid
  pid="$(kafka_pid "$PID_FILE" "$CONF_DIR/server.properties")" || return 1
  # Repair a missing or stale pid file.
  [[ "$(cat "$PID_FILE" 2>/dev/null || true)" == "$pid" ]] || echo "$pid" >"$PID_FILE" 2>/dev/null || true
  echo "$pid"
}

# --- jars --------------------------------------------------------------------------------------
ensure_jars() {
  local pom_sum
  pom_sum="$(sha256sum "$KAFKA_POM" | cut -c1-64)"
  if [[ "$(cat "$LIBS/.complete" 2>/dev/null)" == "$pom_sum" ]]; then return 0; fi
  command -v "$MVN" >/dev/null || { err "mvn not found (needed once to fetch Kafka $KAFKA_VERSION jars)"; exit 2; }
  log "assembling Kafka $KAFKA_VERSION jars from Maven Central into $LIBS ..."
  local tmp="$KAFKA_HOME/libs.tmp.$$" t0=$SECONDS
  rm -rf "$tmp"
  if ! (cd "$SCRIPT_DIR/kafka" && "$MVN" -q -B -f "$KAFKA_POM" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$tmp" >"$KAFKA_HOME/mvn.log" 2>&1); then
    err "maven failed; see $KAFKA_HOME/mvn.log"; tail -n 20 "$KAFKA_HOME/mvn.log" >&2; rm -rf "$tmp"; exit 1
  fi
  ls "$tmp"/kafka_2.13-"$KAFKA_VERSION".jar >/dev/null
  echo "$pom_sum" >"$tmp/.complete"   # the pom's hash: a changed pom re-assembles the jars
  rm -rf "$LIBS"; mv "$tmp" "$LIBS"
  log "jars ready ($(ls "$LIBS" | wc -l) files, $((SECONDS - t0)) s)"
}

# --- configuration -----------------------------------------------------------------------------
write_config() {
  mkdir -p "$CONF_DIR" "$DATA_DIR" "$LOG_DIR"
  cat >"$CONF_DIR/server.properties.new" <<EOF
# Generated by infra/kafka.sh on every start; edit the script, not this file.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$CONTROLLER_PORT
listeners=PLAINTEXT://$HOST:$PORT,CONTROLLER://$HOST:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$HOST:$PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DATA_DIR

# Single node: every internal topic with replication factor 1 / min ISR 1.
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=10
num.partitions=1
auto.create.topics.enable=false
delete.topic.enable=true
group.initial.rebalance.delay.ms=0

# Small machine: few threads, small cleaner buffer (allocated on the heap; default 128 MB).
num.network.threads=2
num.io.threads=4
background.threads=4
num.recovery.threads.per.data.dir=1
num.replica.fetchers=1
log.cleaner.threads=1
log.cleaner.dedupe.buffer.size=16777216

log.retention.hours=168
log.segment.bytes=268435456
log.retention.check.interval.ms=300000
EOF
  mv "$CONF_DIR/server.properties.new" "$CONF_DIR/server.properties"

  cat >"$CONF_DIR/log4j.properties" <<'EOF'
# Generated by infra/kafka.sh. Kafka 3.9 logs through slf4j -> reload4j (log4j 1.x API).
log4j.rootLogger=INFO, kafkaAppender

log4j.appender.kafkaAppender=org.apache.log4j.RollingFileAppender
log4j.appender.kafkaAppender.File=${kafka.logs.dir}/server.log
log4j.appender.kafkaAppender.MaxFileSize=20MB
log4j.appender.kafkaAppender.MaxBackupIndex=5
log4j.appender.kafkaAppender.layout=org.apache.log4j.PatternLayout
log4j.appender.kafkaAppender.layout.ConversionPattern=[%d] %p %m (%c)%n

log4j.appender.stateChangeAppender=org.apache.log4j.RollingFileAppender
log4j.appender.stateChangeAppender.File=${kafka.logs.dir}/state-change.log
log4j.appender.stateChangeAppender.MaxFileSize=10MB
log4j.appender.stateChangeAppender.MaxBackupIndex=2
log4j.appender.stateChangeAppender.layout=org.apache.log4j.PatternLayout
log4j.appender.stateChangeAppender.layout.ConversionPattern=[%d] %p %m (%c)%n

log4j.appender.controllerAppender=org.apache.log4j.RollingFileAppender
log4j.appender.controllerAppender.File=${kafka.logs.dir}/controller.log
log4j.appender.controllerAppender.MaxFileSize=10MB
log4j.appender.controllerAppender.MaxBackupIndex=2
log4j.appender.controllerAppender.layout=org.apache.log4j.PatternLayout
log4j.appender.controllerAppender.layout.ConversionPattern=[%d] %p %m (%c)%n

log4j.logger.org.apache.kafka=INFO
log4j.logger.kafka=INFO
log4j.logger.kafka.request.logger=WARN
log4j.logger.kafka.network.RequestChannel$=WARN
log4j.logger.org.apache.kafka.controller=INFO, controllerAppender
log4j.additivity.org.apache.kafka.controller=false
log4j.logger.kafka.controller=INFO, controllerAppender
log4j.additivity.kafka.controller=false
log4j.logger.state.change.logger=INFO, stateChangeAppender
log4j.additivity.state.change.logger=false
log4j.logger.kafka.log.LogCleaner=INFO
EOF
}

java_opts() {
  # Same GC flags as Kafka's kafka-run-class.sh, with a small heap.
  echo "-server $HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35" \
       "-XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -XX:+ExitOnOutOfMemoryError" \
       "-Djava.awt.headless=true -Dkafka.logs.dir=$LOG_DIR" \
       "-Dlog4j.configuration=file:$CONF_DIR/log4j.properties"
}

format_storage() {
  [[ -f "$DATA_DIR/meta.properties" ]] && return 0
  local cluster_id
  cluster_id="$(cluster_id_in "$KAFKA_HOME/cluster.id")"
  # shellcheck disable=SC2046
  format_kafka "$CONF_DIR/server.properties" "$cluster_id" "$LOG_DIR/storage-format.log" $(java_opts) || exit 1
}

wait_ready() {
  local pid="$1" deadline=$((SECONDS + START_TIMEOUT))
  while (( SECONDS < deadline )); do
    if ping_broker; then return 0; fi
    if [[ -n "$pid" ]] && ! kill -0 "$pid" 2>/dev/null; then
      err "broker process $pid exited during start-up. Last lines of the logs:"
      tail -n 30 "$LOG_DIR/kafka.out" >&2 2>/dev/null || true
      tail -n 30 "$LOG_DIR/server.log" >&2 2>/dev/null || true
      rm -f "$PID_FILE"
      return 1
    fi
    sleep 0.3
  done
  err "broker did not answer on $HOST:$PORT within ${START_TIMEOUT}s; logs in $LOG_DIR (kept running, pid $pid)"
  tail -n 30 "$LOG_DIR/server.log" >&2 2>/dev/null || true
  return 1
}

# --- commands ----------------------------------------------------------------------------------
cmd_start() {
  local t0=$SECONDS pid
  mkdir -p "$KAFKA_HOME"
  exec 9>"$LOCK_FILE"
  flock -w 180 9 || { err "another kafka.sh holds $LOCK_FILE"; exit 1; }

  if ping_broker; then
    if pid="$(find_pid)"; then
      log "already running (pid $pid) on $HOST:$PORT; logs: $LOG_DIR/server.log"
    else
      log "a broker already answers on $HOST:$PORT (not started by this script); reusing it"
    fi
    return 0
  fi
  if pid="$(find_pid)"; then
    log "broker process $pid exists but does not answer yet; waiting"
    wait_ready "$pid" && { log "ready on $HOST:$PORT; logs: $LOG_DIR/server.log"; return 0; }
    exit 1
  fi
  if (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; then
    err "port $HOST:$PORT is taken by a process that does not answer Kafka requests"; exit 1
  fi

  command -v "$JAVA" >/dev/null || { err "java not found (Java 11+ needed; 17 recommended)"; exit 2; }
  ensure_jars
  write_config
  format_storage

  [[ -f "$LOG_DIR/kafka.out" ]] && mv -f "$LOG_DIR/kafka.out" "$LOG_DIR/kafka.out.1"
  # A broker killed with its session (SIGKILL, machine reset) leaves its pid file behind; reading
  # that stale pid below would report the new broker as dead before it had a chance to start.
  rm -f "$PID_FILE"
  # shellcheck disable=SC2046
  launch_kafka "$PID_FILE" "$LOG_DIR/kafka.out" "$CONF_DIR/server.properties" $(java_opts)
  local i
  for i in $(seq 200); do [[ -s "$PID_FILE" ]] && break; sleep 0.05; done
  pid="$(cat "$PID_FILE" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || { err "the broker's launcher did not write $PID_FILE within 10 s"; exit 1; }
  log "starting Kafka $KAFKA_VERSION (pid $pid) on $HOST:$PORT ..."
  wait_ready "$pid" || exit 1
  log "ready on $HOST:$PORT in $((SECONDS - t0)) s; logs: $LOG_DIR/server.log (stdout/stderr: $LOG_DIR/kafka.out)"
}

cmd_stop() {
  local pid
  mkdir -p "$KAFKA_HOME"
  if ! pid="$(find_pid)"; then
    rm -f "$PID_FILE"
    if ping_broker; then
      log "not running from this script, but a broker answers on $HOST:$PORT (left alone)"
    else
      log "not running"
    fi
    return 0
  fi
  log "stopping (pid $pid) ..."
  stop_kafka "$pid" TERM
  rm -f "$PID_FILE"
  log "stopped"
}

cmd_status() {
  local pid=""
  pid="$(find_pid)" || pid=""
  if ping_broker; then
    echo "kafka $KAFKA_VERSION: running on $HOST:$PORT${pid:+ (pid $pid)}; logs: $LOG_DIR/server.log"
    return 0
  fi
  if [[ -n "$pid" ]]; then
    echo "kafka $KAFKA_VERSION: process $pid alive but not answering on $HOST:$PORT; logs: $LOG_DIR/server.log"
    return 1
  fi
  echo "kafka $KAFKA_VERSION: not running"
  return 3
}

cmd_logs() {
  local follow="" lines=200 a
  for a in "$@"; do
    case "$a" in
      -f|--follow) follow=1 ;;
      ''|*[!0-9]*) err "usage: kafka.sh logs [-f] [N]"; exit 2 ;;
      *) lines="$a" ;;
    esac
  done
  [[ -f "$LOG_DIR/server.log" ]] || { err "no log yet at $LOG_DIR/server.log"; exit 1; }
  if [[ -n "$follow" ]]; then exec tail -n "$lines" -F "$LOG_DIR/server.log"; fi
  tail -n "$lines" "$LOG_DIR/server.log"
}

cmd_paths() {
  cat <<EOF
version: $KAFKA_VERSION
home:    $KAFKA_HOME
libs:    $LIBS
config:  $CONF_DIR/server.properties
data:    $DATA_DIR
logs:    $LOG_DIR/server.log ($LOG_DIR/kafka.out for stdout/stderr)
pid:     $PID_FILE
address: $HOST:$PORT (controller $HOST:$CONTROLLER_PORT)
EOF
}

cmd_reset() {
  cmd_stop
  rm -rf "$DATA_DIR" "$KAFKA_HOME/cluster.id"
  log "data removed ($DATA_DIR)"
}

case "${1:-}" in
  start)   cmd_start ;;
  stop)    cmd_stop ;;
  restart) cmd_stop; cmd_start ;;
  status)  cmd_status ;;
  logs)    shift; cmd_logs "$@" ;;
  ping)    ping_broker ;;
  paths)   cmd_paths ;;
  reset)   cmd_reset ;;
  jars)    mkdir -p "$KAFKA_HOME"; ensure_jars ;;
  cluster) shift; exec "$SCRIPT_DIR/kafka-cluster.sh" "$@" ;;
  *) echo "usage: $0 {start|stop|restart|status|logs [-f] [N]|ping|paths|reset|jars|cluster ...}" >&2; exit 2 ;;
esac
