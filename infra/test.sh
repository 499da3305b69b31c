#!/usr/bin/env bash
# The one test command (`npm test`): set-up, type-check, lint, then every test (unit, integration,
# end-to-end) with a coverage report in coverage/. Integration tests talk to the real Kafka and PostGIS.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source infra/node.sh
bash infra/deps.sh
bash infra/console.sh
echo "test.sh: Node.js $(node --version) at $(command -v node)"
# promtool validates infra/prometheus/alerts.yml; without it only that test fails (saying what to install).
# Chromium drives the console's browser tests (test/e2e/console-*.test.ts); without it only they fail, saying what to install.
bash infra/chromium.sh || echo "test.sh: chromium could not be installed (see above); the console browser tests will fail" >&2
bash infra/promtool.sh || echo "test.sh: promtool could not be installed (see above); test/integration/infra/dashboards-and-alerts.test.ts will fail" >&2
# Start the stack only when no addresses are configured (Docker users and CI services set them).
if [[ -z "${PSS_KAFKA_BROKERS:-}" || -z "${PSS_DATABASE_URL:-}" ]]; then
  if ! docker info >/dev/null 2>&1; then
    if ! bash infra/stack.sh up; then
      # Tests create their own topics and need nothing the broker held. A broker killed mid-write with
      # its session can leave data it refuses to start on: start once more on empty data, loudly.
      echo "test.sh: the stack did not start (see above); resetting the local broker's data and retrying once" >&2
      bash infra/kafka.sh reset
      bash infra/stack.sh up
    fi
  fi
fi
echo "test.sh: type-check"; npx tsc --noEmit && npx tsc --noEmit -p console
echo "test.sh: lint"; npx eslint .
echo "test.sh: import cycles"; npm run --silent deps:cycles
# Two vitest processes side by side: unit + integration here, end-to-end beside it. Each runs its files one
# at a time on a database of its own (test/support/global-setup.ts), and most of their time is spent waiting
# on child processes and brokers, so the suite takes about the longer lane instead of both. One vitest
# process runs its projects' sequential files one after another, hence two processes.
echo "test.sh: tests with coverage (unit + integration, and end-to-end beside them; its output follows theirs)"
e2e_log="$(mktemp)"
trap 'rm -f "$e2e_log"' EXIT
npx vitest run --project e2e --passWithNoTests --coverage --coverage.reportsDirectory=coverage/e2e "$@" >"$e2e_log" 2>&1 &
e2e_pid=$!
main_status=0
npx vitest run --project unit --project integration --passWithNoTests --coverage --coverage.reportsDirectory=coverage/main "$@" || main_status=$?
e2e_status=0
wait "$e2e_pid" || e2e_status=$?
echo "test.sh: the end-to-end lane:"
cat "$e2e_log"
if (( main_status != 0 || e2e_status != 0 )); then
  echo "test.sh: FAILED (unit + integration exit $main_status, end-to-end exit $e2e_status)" >&2
  exit 1
fi
echo "test.sh: all lanes passed"
