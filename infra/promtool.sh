#!/usr/bin/env bash
# promtool (Debian's `prometheus` package) for the test that validates infra/prometheus/alerts.yml.
#
#   infra/promtool.sh          install the package when promtool is missing (apt-get); nothing otherwise
#   infra/promtool.sh status   exit 0 when promtool is on PATH
#
# Idempotent: prints only what it changed, and errors. The package's Prometheus server is not started
# (policy-rc.d refuses it during the install, and its service is stopped and disabled if it came up anyway):
# only the validator is wanted.
set -euo pipefail
PKG=prometheus
log() { echo "promtool.sh: $*"; }
err() { echo "promtool.sh: $*" >&2; }

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null; then sudo -n "$@"
  else err "need root (or passwordless sudo) for: $*"; exit 1
  fi
}

ensure_promtool() {
  command -v promtool >/dev/null && return 0
  command -v apt-get >/dev/null || { err "promtool missing and apt-get not available; install Prometheus's promtool (Debian/Ubuntu package: $PKG)"; exit 1; }
  log "installing $PKG for promtool (apt-get) ..."
  local apt=(env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get -y -q -o DPkg::Lock::Timeout=600
             -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
  if ! as_root "${apt[@]}" install --no-install-recommends "$PKG" >/tmp/pss-promtool-apt.log 2>&1; then
    # Package lists may be missing or stale on a fresh machine.
    as_root "${apt[@]}" update >>/tmp/pss-promtool-apt.log 2>&1 || true
    if ! as_root "${apt[@]}" install --no-install-recommends "$PKG" >>/tmp/pss-promtool-apt.log 2>&1; then
      err "apt-get install $PKG failed; see /tmp/pss-promtool-apt.log"; tail -n 20 /tmp/pss-promtool-apt.log >&2; exit 1
    fi
  fi
  # A Prometheus server listening on 9090 is not part of the test set-up.
  if command -v systemctl >/dev/null && systemctl is-active --quiet prometheus 2>/dev/null; then
    as_root systemctl disable --now prometheus >/dev/null 2>&1 || true
  fi
  command -v promtool >/dev/null || { err "$PKG installed but promtool is not on PATH"; exit 1; }
  log "installed $PKG ($(promtool --version 2>&1 | head -n 1))"
}

case "${1:-up}" in
  up) ensure_promtool ;;
  status) command -v promtool >/dev/null ;;
  *) echo "usage: $0 [up|status]" >&2; exit 2 ;;
esac
