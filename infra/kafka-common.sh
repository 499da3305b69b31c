# Sourced by infra/kafka.sh and infra/kafka-cluster.sh, not run on its own: where this Kafka version's jars
# and data live, which java runs it, and what both scripts do to run a KRaft node from its server.properties
# (a cluster id, formatting, launching it detached, finding its JVM, stopping it). The sourcing script
# defines err().
# shellcheck shell=bash

KAFKA_POM="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/kafka/pom.xml"
KAFKA_VERSION="$(sed -n 's:.*<kafka.version>\([^<]*\)</kafka.version>.*:\1:p' "$KAFKA_POM" | head -n1)"
[[ -n "$KAFKA_VERSION" ]] || { echo "$(basename "$0"): cannot read <kafka.version> from $KAFKA_POM" >&2; exit 2; }

PSS_HOME="${PSS_HOME:-$HOME/.cache/port-security-service}"
KAFKA_HOME="$PSS_HOME/kafka-$KAFKA_VERSION"
LIBS="$KAFKA_HOME/libs"
STOP_TIMEOUT="${PSS_KAFKA_STOP_TIMEOUT:-30}"
if [[ -z "${JAVA:-}" && -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then JAVA="$JAVA_HOME/bin/java"; fi
JAVA="${JAVA:-java}"

# The cluster id kept in file $1, made on first use: the shape of StorageTool random-uuid (URL-safe base64
# of 16 random bytes, not starting with '-'), without paying for a JVM start.
cluster_id_in() {
  local file="$1" id
  if [[ -f "$file" ]]; then cat "$file"; return 0; fi
  while :; do
    id="$(head -c16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')"
    [[ ${#id} -eq 22 && "${id:0:1}" != "-" ]] && break
  done
  echo "$id" >"$file"
  echo "$id"
}

# Formats the storage that server.properties $1 names for cluster id $2, once (--ignore-formatted); the
# tool's output goes to $3; the remaining arguments are java options.
format_kafka() {
  local config="$1" id="$2" out="$3"
  shift 3
  "$JAVA" "$@" -cp "$LIBS/*" kafka.tools.StorageTool format -t "$id" -c "$config" --ignore-formatted >"$out" 2>&1 \
    || { err "formatting $config failed; see $out"; cat "$out" >&2; return 1; }
}

# Starts kafka.Kafka on server.properties $3, detached: its own session (setsid), deaf to the caller's
# SIGHUP (nohup), stdin closed, and without the scripts' lock descriptors 8 and 9, which it would otherwise
# hold for as long as it runs. The inner shell writes its pid to $1 and then execs java, so the pid file
# holds the JVM's pid exactly. Output to $2; the remaining arguments are java options.
launch_kafka() {
  local pid_file="$1" out="$2" config="$3"
  shift 3
  # shellcheck disable=SC2016 # $$, $0 and $@ are the inner shell's
  setsid nohup bash -c 'echo $$ >"$0"; exec "$@"' "$pid_file" \
    "$JAVA" "$@" -cp "$LIBS/*" kafka.Kafka "$config" >"$out" 2>&1 </dev/null 8>&- 9>&- &
}

# Whether process $1 is the JVM running server.properties $2.
runs_config() { { tr '\0' ' ' <"/proc/$1/cmdline"; } 2>/dev/null | grep -q "kafka.Kafka $2"; }

# The pid of the JVM running server.properties $2: the one in pid file $1 when it is that JVM (a stale
# file can name a reused pid), else the one found by its command line.
kafka_pid() {
  local pid f
  pid="$(cat "$1" 2>/dev/null || true)"
  if [[ "$pid" =~ ^[0-9]+$ ]] && runs_config "$pid" "$2"; then echo "$pid"; return 0; fi
  for f in /proc/[0-9]*/cmdline; do
    f="${f#/proc/}"; f="${f%/cmdline}"
    if runs_config "$f" "$2"; then echo "$f"; return 0; fi
  done
  return 1
}

# Sends signal $2 to process $1 and waits until it is gone, with SIGKILL after STOP_TIMEOUT seconds.
stop_kafka() {
  local pid="$1" signal="$2" deadline=$((SECONDS + STOP_TIMEOUT))
  kill "-$signal" "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null && (( SECONDS < deadline )); do sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    err "pid $pid still running after ${STOP_TIMEOUT}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  fi
}
