#!/usr/bin/env bash
# Builds the OCI registry (CNCF distribution, the `registry` command) from the Go module proxy into
# the cache folder, once; a second call only checks `registry --version`. Used by capstan-cli's
# UpdateBuildIT (LoopbackRegistry), which starts it on a free 127.0.0.1 port.
#
#   build.sh               build it if missing, in the foreground
#   build.sh --background  start the same build with nohup and return at once; prints the log path
#   build.sh --check       exit 0 when the binary is present with the right version, 1 otherwise
#   build.sh --print-bin   print the path of the registry binary
#
# Concurrent calls are serialised with a lock in the cache folder. About 1-2 min on 2 cores when
# the module cache is cold.
set -euo pipefail

VERSION=v3.1.2
MODULE=github.com/distribution/distribution/v3
CACHE_ROOT=${CAPSTAN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/capstan}
HOME_DIR=$CACHE_ROOT/registry/distribution${VERSION#v}
BIN=$HOME_DIR/bin/registry
LOGS=$HOME_DIR/logs

log() { printf '[registry %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2 || true; }
die() { log "ERROR: $*"; exit 1; }

# Prints the version the binary reports (v3.1.2), or nothing when missing or broken.
registry_version() {
  [[ -x $BIN ]] || return 0
  "$BIN" --version 2>/dev/null | awk '{print $3}' || true
}
ready() { [[ $(registry_version) == "$VERSION" ]]; }

mode=build
for arg in "$@"; do
  case $arg in
    --background) mode=background ;;
    --check) mode=check ;;
    --print-bin) mode=print ;;
    -h | --help) sed -n '2,12p' "$0"; exit 0 ;;
    *) die "unknown argument: $arg" ;;
  esac
done

case $mode in
  print) echo "$BIN"; exit 0 ;;
  check) ready; exit ;;
esac

mkdir -p "${BIN%/*}" "$LOGS"
if [[ $mode == background ]]; then
  out=$LOGS/build-$(date -u +%Y%m%dT%H%M%SZ).log
  nohup "$0" >"$out" 2>&1 </dev/null &
  echo "building the registry in the background: pid $! (log: $out)"
  exit 0
fi

if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then
  PATH=/usr/local/go/bin:$PATH
fi
command -v go >/dev/null || die "go is not on PATH; the OCI registry is built with the Go toolchain"

exec 9>"$HOME_DIR/.build.lock"
if ! flock -n 9; then
  log "another build holds $HOME_DIR/.build.lock; waiting for it"
  flock 9
fi
if ready; then
  log "registry $VERSION present: $BIN"
  exit 0
fi

export CGO_ENABLED=0
export GOFLAGS="-trimpath -buildvcs=false"
start=$(date +%s)
tmp=$(mktemp -d)
log "building registry $VERSION ($MODULE/cmd/registry) from the Go module proxy"
# `go install pkg@version` checks the module against the checksum database (its go.mod has no
# replace directives, so no wrapper module is needed). Without the ldflag it reports v3.1.2+unknown.
GOBIN=$tmp go install -ldflags "-s -w -X $MODULE/version.version=$VERSION" "$MODULE/cmd/registry@$VERSION"
mv "$tmp/registry" "$BIN"
rmdir "$tmp"
ready || die "$BIN reports '$(registry_version)', expected $VERSION"
log "registry $VERSION ready in $(($(date +%s) - start)) s: $BIN"
