#!/usr/bin/env bash
# `node` with Node.js 24 (infra/node.sh) whatever the caller's PATH holds: npm scripts other than start
# and test (bench, pss) go through it, so `npm run bench` measures the runtime the service runs on.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/node.sh"
exec node "$@"
