# Sourced (not run) by the set-up scripts: puts Node.js 24 LTS first on PATH for the rest of the script.
#
#   source infra/node.sh
#
# A `node` of major 24 or newer already on PATH is used as it is (a user with their own Node 24 needs
# nothing else). Otherwise the pinned release is taken from the npm registry's node binary packages
# (node-<os>-<arch>, the same binaries as nodejs.org, integrity checked by npm) into
# ${PSS_HOME:-~/.cache/port-security-service}/node-<version>/ once, and used from there. The registry is
# the one download source every machine of ours reaches; the system npm (10 or 11) runs fine under it.
# PSS_NODE_SKIP=1 keeps whatever node is on PATH (at your own risk: engines says >= 24).

PSS_NODE_VERSION=24.21.0
PSS_NODE_MIN_MAJOR=24

pss_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

pss_node_install() {
  local os arch pkg home dest tmp
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    *) echo "node.sh: no Node binary package for $(uname -s); install Node.js ${PSS_NODE_MIN_MAJOR} yourself" >&2; return 1 ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "node.sh: no Node binary package for $(uname -m); install Node.js ${PSS_NODE_MIN_MAJOR} yourself" >&2; return 1 ;;
  esac
  pkg="node-$os-$arch@$PSS_NODE_VERSION"
  home="${PSS_HOME:-$HOME/.cache/port-security-service}"
  dest="$home/node-$PSS_NODE_VERSION"
  [[ -x "$dest/bin/node" ]] && return 0
  echo "node.sh: installing Node.js $PSS_NODE_VERSION ($pkg from the npm registry) into $dest"
  mkdir -p "$home"
  tmp="$(mktemp -d "$home/.node-XXXXXX")"
  # npm pack checks the tarball against the registry's integrity hash before writing it.
  if ! (cd "$tmp" && npm pack "$pkg" --silent >/dev/null && tar xzf ./*.tgz); then
    rm -rf "$tmp"
    echo "node.sh: could not fetch $pkg from the npm registry" >&2
    return 1
  fi
  # Concurrent installs: the first rename wins, the others drop their copy.
  mv "$tmp/package" "$dest" 2>/dev/null || true
  rm -rf "$tmp"
  [[ -x "$dest/bin/node" ]]
}

if [[ "${PSS_NODE_SKIP:-}" != 1 && "$(pss_node_major)" -lt "$PSS_NODE_MIN_MAJOR" ]]; then
  pss_node_install || return 1 2>/dev/null || exit 1
  export PATH="${PSS_HOME:-$HOME/.cache/port-security-service}/node-$PSS_NODE_VERSION/bin:$PATH"
  hash -r
fi
