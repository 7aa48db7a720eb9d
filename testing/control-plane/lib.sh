# shellcheck shell=bash
# Shared settings for build.sh, start.sh, stop.sh and wrap.sh. Source it; do not run it.
#
# The version matrix: every supported Kubernetes minor, with the etcd and kwok it runs with. Each
# version has a wrapper module under go/ (go/kubernetes/MINOR, go/etcd/MINOR, go/kwok/MINOR);
# build.sh checks that the module pins the version named here. The cache folder's name carries
# all three versions, so each row is built and cached on its own.
#
#   kubernetes  etcd     kwok     why this etcd
CP_MATRIX=(
  "v1.34.4 v3.6.16 v0.8.0" # 1.34.4 pins etcd 3.6.4; the newest 3.6.x the proxy serves
  "v1.35.4 v3.6.16 v0.8.0" # 1.35.4 pins etcd 3.6.5
  "v1.36.3 v3.6.16 v0.8.0" # 1.36.3 pins etcd 3.6.8
  "v1.37.2 v3.7.3 v0.8.0"  # 1.37.2 pins etcd 3.7.0 (its RangeStream needs 3.7); the newest 3.7.x
)
# The version used when none is chosen: the newest (what README's `./mvnw verify` runs). CI also
# runs the ITs on the oldest, CP_MATRIX[0].
CP_DEFAULT_K8S_VERSION=v1.37.2

CP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

cp_log() { printf '[control-plane %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2 || true; }
cp_die() { cp_log "ERROR: $*"; exit 1; }

# The supported versions as people write them: "1.34 (v1.34.4), 1.36 (v1.36.3), ...".
cp_supported() {
  local row out=
  for row in "${CP_MATRIX[@]}"; do
    set -- $row
    local m=${1#v}
    out+="${out:+, }${m%.*} ($1)"
  done
  echo "$out"
}

# cp_select VERSION: sets CP_K8S_VERSION, CP_ETCD_VERSION, CP_KWOK_VERSION and the paths from the
# matrix row of VERSION: a minor (1.34), a patch release (1.34.4) or a tag (v1.34.4). An empty
# VERSION is the default. Anything not in the matrix is refused, naming what is.
cp_select() {
  local want=${1:-$CP_DEFAULT_K8S_VERSION} row k8s etcd kwok
  want=${want#v}
  [[ $want =~ ^1\.[0-9]+(\.[0-9]+)?$ ]] ||
    cp_die "Kubernetes version must look like 1.37 or 1.37.2, got '$1'; supported: $(cp_supported)"
  for row in "${CP_MATRIX[@]}"; do
    read -r k8s etcd kwok <<<"$row"
    if [[ ${k8s#v} == "$want" || ${k8s#v} == "$want".* ]]; then
      CP_K8S_VERSION=$k8s CP_ETCD_VERSION=$etcd CP_KWOK_VERSION=$kwok
      CP_K8S_MINOR=$(cut -d. -f1,2 <<<"${k8s#v}")
      CP_ETCD_MODULE=go/etcd/$(cut -d. -f1,2 <<<"${etcd#v}")
      CP_KWOK_MODULE=go/kwok/$(cut -d. -f1,2 <<<"${kwok#v}")
      CP_K8S_MODULE=go/kubernetes/$CP_K8S_MINOR
      CP_CACHE_ROOT=${CAPSTAN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/capstan}
      CP_HOME=${CAPSTAN_CP_HOME:-$CP_CACHE_ROOT/control-plane/k8s${k8s#v}-etcd${etcd#v}-kwok${kwok#v}}
      CP_BIN=$CP_HOME/bin
      CP_LOGS=$CP_HOME/logs
      return 0
    fi
  done
  cp_die "Kubernetes $1 is not in the test matrix (testing/control-plane/lib.sh); supported: $(cp_supported)"
}

# The version comes from CAPSTAN_K8S_VERSION unless a script's --k8s-version selects another.
cp_select "${CAPSTAN_K8S_VERSION:-}"

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
