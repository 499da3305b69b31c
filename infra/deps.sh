#!/usr/bin/env bash
# Node.js 24 (infra/node.sh) and the npm dependencies, installed when node_modules is missing, older than
# the lockfile or installed under another Node major. Idempotent. Scripts that run node afterwards source
# infra/node.sh themselves (a child script cannot change its parent's PATH).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source infra/node.sh
stamp=node_modules/.pss-node-major
major="$(node -p 'process.versions.node.split(".")[0]')"
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json \
      || "$(cat "$stamp" 2>/dev/null)" != "$major" ]]; then
  echo "deps.sh: installing npm dependencies (npm ci) for Node.js $(node --version)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$major" >"$stamp"
fi
