# shellcheck shell=bash
# Shared settings for build.sh, start.sh and stop.sh. Source it; do not run it.
#
# The versions below must match the wrapper modules under go/: build.sh checks that they do.
# The cache folder's name carries all three versions, so changing one builds a fresh set.

CP_K8S_VERSION=v1.36.3
CP_ETCD_VERSION=v3.6.16
CP_KWOK_VERSION=v0.8.0

CP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CP_CACHE_ROOT=${CAPSTAN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/capstan}
CP_HOME=${CAPSTAN_CP_HOME:-$CP_CACHE_ROOT/control-plane/k8s${CP_K8S_VERSION#v}-etcd${CP_ETCD_VERSION#v}-kwok${CP_KWOK_VERSION#v}}
CP_BIN=$CP_HOME/bin
CP_LOGS=$CP_HOME/logs

cp_log() { printf '[control-plane %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2 || true; }
cp_die() { cp_log "ERROR: $*"; exit 1; }

# Prints the version a binary reports, or nothing if it is missing or broken.
cp_binary_version() {
  local bin=$CP_BIN/$1
  [[ -x $bin ]] || return 0
  case $1 in
    etcd) "$bin" --version 2>/dev/null | sed -n 's/^etcd Version: \(.*\)$/v\1/p' ;;
    kwok) "$bin" --version 2>/dev/null | sed -n 's/^kwok version \(v[^ ]*\).*/\1/p' ;;
    kubectl) "$bin" version --client 2>/dev/null | sed -n 's/^Client Version: \(v[^ ]*\)$/\1/p' ;;
    *) "$bin" --version 2>/dev/null | sed -n 's/^Kubernetes \(v[^ ]*\)$/\1/p' ;;
  esac
}

# The binaries start.sh needs, each with the version it must report.
cp_required_binaries() {
  printf '%s %s\n' \
    etcd "$CP_ETCD_VERSION" \
    kube-apiserver "$CP_K8S_VERSION" \
    kube-controller-manager "$CP_K8S_VERSION" \
    kube-scheduler "$CP_K8S_VERSION" \
    kubectl "$CP_K8S_VERSION" \
    kwok "$CP_KWOK_VERSION"
}

# Succeeds when every required binary is present and reports the expected version.
cp_binaries_ready() {
  local name want
  while read -r name want; do
    [[ $(cp_binary_version "$name") == "$want" ]] || return 1
  done < <(cp_required_binaries)
}
