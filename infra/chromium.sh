#!/usr/bin/env bash
# Chromium for the console's browser tests and benchmark (issue 26), without Docker (Debian/Ubuntu):
#
#   infra/chromium.sh          install Debian's `chromium` with apt-get when no Chromium is found
#   infra/chromium.sh path     print the Chromium executable the tests use (exit 1 when there is none)
#
# Idempotent: prints only what it changed, and errors. PSS_CHROMIUM names an executable to use instead.
# The tests drive it with playwright-core (no browser download); headless WebGL runs on SwiftShader.
set -euo pipefail

log() { echo "chromium.sh: $*"; }
err() { echo "chromium.sh: $*" >&2; }

find_chromium() {
  local c
  for c in "${PSS_CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser "$(command -v chromium 2>/dev/null || true)"; do
    [[ -n "$c" && -x "$c" ]] && { echo "$c"; return 0; }
  done
  return 1
}

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null; then sudo -n "$@"
  else err "need root (or passwordless sudo) for: $*"; exit 1
  fi
}

if [[ "${1:-}" == path ]]; then find_chromium; exit; fi
find_chromium >/dev/null && exit 0

command -v apt-get >/dev/null || { err "chromium missing and apt-get not available; install Chromium and set PSS_CHROMIUM"; exit 1; }
log "installing chromium (apt-get) ..."
apt=(env DEBIAN_FRONTEND=noninteractive apt-get -y -q -o DPkg::Lock::Timeout=600
     -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
if ! as_root "${apt[@]}" install --no-install-recommends chromium fonts-dejavu-core >/tmp/pss-chromium-apt.log 2>&1; then
  # Package lists may be missing or stale on a fresh machine.
  as_root "${apt[@]}" update >>/tmp/pss-chromium-apt.log 2>&1 || true
  if ! as_root "${apt[@]}" install --no-install-recommends chromium fonts-dejavu-core >>/tmp/pss-chromium-apt.log 2>&1; then
    err "apt-get install chromium failed; see /tmp/pss-chromium-apt.log"; tail -n 20 /tmp/pss-chromium-apt.log >&2; exit 1
  fi
fi
log "installed $(find_chromium)"
