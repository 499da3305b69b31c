#!/usr/bin/env bash
# The one run command (`npm start`): set-up, then the service on the local stack with the Copenhagen demo
# port (zones seeded, the real DMA recording replayed through ingest, events printed as they happen).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source infra/node.sh
bash infra/deps.sh
bash infra/console.sh
if [[ -z "${PSS_KAFKA_BROKERS:-}" || -z "${PSS_DATABASE_URL:-}" ]]; then bash infra/stack.sh up; fi
exec node bin/pss.js demo "$@"
