#!/usr/bin/env bash
# Builds the operator console into console/dist/ (infra/build-console.ts), served by the api role at /console.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source infra/node.sh
node --import tsx infra/build-console.ts
