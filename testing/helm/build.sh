#!/usr/bin/env bash
# Builds Helm 3 and Helm 4 from the Go module proxy into the cache folder, once; a second call only
# checks `helm version` of each. Used by the Helm import ITs (release-helm) and the side-by-side
# benchmark (testing/compare).
#
#   build.sh               build what is missing, in the foreground
#   build.sh --background  start the same build with nohup and return at once; prints the log path
#   build.sh --check       exit 0 when both binaries are present with the right version, 1 otherwise
#   build.sh --print-bin   print the folder holding helm3 and helm4
#
# Concurrent calls are serialised with a lock in the cache folder. About 4 min per Helm on 2 cores
# when the module cache is cold.
set -euo pipefail

HELM3_VERSION=v3.22.0
HELM4_VERSION=v4.3.1
CACHE_ROOT=${CAPSTAN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/capstan}
HOME_DIR=$CACHE_ROOT/helm/helm${HELM3_VERSION#v}-helm${HELM4_VERSION#v}
BIN=$HOME_DIR/bin
LOGS=$HOME_DIR/logs

log() { printf '[helm %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2 || true; }
die() { log "ERROR: $*"; exit 1; }

# Prints the version a helm binary reports (v3.22.0), or nothing when missing or broken.
helm_version() {
  [[ -x $BIN/$1 ]] || return 0
  "$BIN/$1" version --template '{{.Version}}' 2>/dev/null || true
}

ready() {
  [[ $(helm_version helm3) == "$HELM3_VERSION" && $(helm_version helm4) == "$HELM4_VERSION" ]]
}

mode=build
for arg in "$@"; do
  case $arg in
    --background) mode=background ;;
    --check) mode=check ;;
    --print-bin) mode=print ;;
    -h | --help) sed -n '2,11p' "$0"; exit 0 ;;
    *) die "unknown argument: $arg" ;;
  esac
done

case $mode in
  print) echo "$BIN"; exit 0 ;;
  check) ready; exit ;;
esac

mkdir -p "$BIN" "$LOGS"
if [[ $mode == background ]]; then
  out=$LOGS/build-$(date -u +%Y%m%dT%H%M%SZ).log
  nohup "$0" >"$out" 2>&1 </dev/null &
  echo "building Helm in the background: pid $! (log: $out)"
  exit 0
fi

if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then
  PATH=/usr/local/go/bin:$PATH
fi
command -v go >/dev/null || die "go is not on PATH; Helm is built with the Go toolchain"

exec 9>"$HOME_DIR/.build.lock"
if ! flock -n 9; then
  log "another build holds $HOME_DIR/.build.lock; waiting for it"
  flock 9
fi
if ready; then
  log "helm3 $HELM3_VERSION and helm4 $HELM4_VERSION present in $BIN"
  exit 0
fi

export CGO_ENABLED=0
export GOFLAGS="-trimpath -buildvcs=false"
# build MAJOR VERSION: `go install` the helm command of that module version (its own go.mod and
# go.sum, checked against the checksum database), then name the binary helm3 / helm4.
build() {
  local major=$1 version=$2 tmp
  [[ $(helm_version "helm$major") == "$version" ]] && return 0
  tmp=$(mktemp -d)
  log "building helm $version (helm.sh/helm/v$major/cmd/helm)"
  # Helm prints this version; without the ldflag it would say "main" for a module build.
  GOBIN=$tmp go install \
    -ldflags "-s -w -X helm.sh/helm/v$major/internal/version.version=$version" \
    "helm.sh/helm/v$major/cmd/helm@$version"
  mv "$tmp/helm" "$BIN/helm$major"
  rmdir "$tmp"
  [[ $(helm_version "helm$major") == "$version" ]] \
    || die "helm$major reports '$(helm_version "helm$major")', expected $version"
  log "helm$major $version ready"
}
build 3 "$HELM3_VERSION"
build 4 "$HELM4_VERSION"
