#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok from the Go module
# proxy into the cache folder (see lib.sh), once per Kubernetes version. A second call is a no-op
# that only checks `--version` of each binary. Only the wrapper go.mod/go.sum under go/ live in
# the repository.
#
#   build.sh               build what is missing, in the foreground (log also in $CP_LOGS)
#   build.sh --background  start the same build with nohup and return at once; prints the log path
#   build.sh --check       exit 0 when every binary is present with the right version, 1 otherwise
#   build.sh --print-bin   print the folder the binaries live in
#   build.sh --list        print the version matrix (kubernetes etcd kwok), the default marked
#   --k8s-version V        with any of the above: the Kubernetes version (1.34, 1.34.4 or
#                          v1.34.4; default $CAPSTAN_K8S_VERSION, else the newest in lib.sh)
#
# Concurrent calls are serialised with a lock in the cache folder, so a build started in the
# background and a later one (from Maven, say) never compile twice.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mode=build
while (($# > 0)); do
  case $1 in
    --background) mode=background ;;
    --check) mode=check ;;
    --print-bin) mode=print ;;
    --list) mode=list ;;
    --k8s-version)
      [[ $# -ge 2 ]] || cp_die "--k8s-version needs a version; supported: $(cp_supported)"
      cp_select "$2"; export CAPSTAN_K8S_VERSION=$CP_K8S_VERSION; shift ;;
    -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
    *) cp_die "unknown argument: $1" ;;
  esac
  shift
done

case $mode in
  print) echo "$CP_BIN"; exit 0 ;;
  check) cp_binaries_ready; exit ;;
  list)
    for row in "${CP_MATRIX[@]}"; do
      read -r k8s etcd kwok <<<"$row"
      printf '%s %s %s%s\n' "$k8s" "$etcd" "$kwok" "$([[ $k8s == "$CP_DEFAULT_K8S_VERSION" ]] && echo ' (default)')"
    done
    exit 0 ;;
esac

mkdir -p "$CP_BIN" "$CP_LOGS"

if [[ $mode == background ]]; then
  log=$CP_LOGS/build-$(date -u +%Y%m%dT%H%M%SZ).log
  CAPSTAN_K8S_VERSION=$CP_K8S_VERSION CP_BUILD_LOG=$log nohup "$0" >"$log" 2>&1 </dev/null &
  echo "building in the background: pid $! (log: $log)"
  echo "poll with: $0 --k8s-version $CP_K8S_VERSION --check && echo done; tail -f $log"
  exit 0
fi

if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then
  PATH=/usr/local/go/bin:$PATH # the Go tarball's default place, when a non-login shell lacks it
fi
command -v go >/dev/null || cp_die "go is not on PATH; the control plane is built with the Go toolchain"

exec 9>"$CP_HOME/.build.lock"
if ! flock -n 9; then
  cp_log "another build holds $CP_HOME/.build.lock; waiting for it"
  flock 9
fi

if cp_binaries_ready; then
  cp_log "binaries present in $CP_BIN"
  exit 0
fi

# Everything below is also written to a log in the cache folder.
log=${CP_BUILD_LOG:-$CP_LOGS/build-$(date -u +%Y%m%dT%H%M%SZ).log}
if [[ -z ${CP_BUILD_LOG:-} ]]; then
  exec > >(tee -a "$log") 2>&1
fi
# wait_up_to SECONDS PID: succeeds once PID has ended, fails if it still runs after SECONDS.
wait_up_to() {
  local i
  for ((i = 0; i < $1; i++)); do
    kill -0 "$2" 2>/dev/null || return 0
    sleep 1
  done
  ! kill -0 "$2" 2>/dev/null
}

export CGO_ENABLED=0
export GOFLAGS="${GOFLAGS:-} -mod=readonly -trimpath"
go_version=$(go env GOVERSION)
cp_log "building Kubernetes $CP_K8S_VERSION, etcd $CP_ETCD_VERSION and kwok $CP_KWOK_VERSION into $CP_BIN with $go_version ($(nproc) cores); about 12 min on 2 cores when fully cold"

# Checks that a wrapper module pins the version lib.sh names, so the cache folder's name is true.
check_pin() {
  local dir=$1 module=$2 want=$3 got
  [[ -f $CP_DIR/$dir/go.mod ]] || cp_die "no wrapper module $dir for $module $want; write it with: $CP_DIR/wrap.sh"
  got=$(cd "$CP_DIR/$dir" && go list -m -f '{{.Version}}' "$module")
  [[ $got == "$want" ]] || cp_die "$dir pins $module $got, but lib.sh says $want"
}

# Runs one `go build` and records its wall-clock time in the log. A failed build is tried once
# more: what it already compiled and downloaded is cached, and a module download can fail once.
timed_build() {
  local what=$1 dir=$2 start end attempt pid
  shift 2
  start=$(date +%s)
  for attempt in 1 2; do
    cp_log "go build $what (module $dir, attempt $attempt of 2)"
    (cd "$CP_DIR/$dir" && exec go build "$@") &
    pid=$!
    while ! wait_up_to 60 "$pid"; do
      cp_log "still building $what: $((($(date +%s) - start) / 60)) min so far (log: $log)"
    done
    if wait "$pid"; then
      end=$(date +%s)
      cp_log "built $what in $((end - start)) s"
      return 0
    fi
    cp_log "go build of $what failed (attempt $attempt of 2; log: $log)"
  done
  cp_die "go build of $what failed twice (log: $log)"
}

build_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)

if [[ $(cp_binary_version etcd) != "$CP_ETCD_VERSION" ]]; then
  check_pin "$CP_ETCD_MODULE" go.etcd.io/etcd/server/v3 "$CP_ETCD_VERSION"
  timed_build etcd "$CP_ETCD_MODULE" \
    -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=$CP_ETCD_VERSION" \
    -o "$CP_BIN/etcd" go.etcd.io/etcd/server/v3
fi

if [[ $(cp_binary_version kwok) != "$CP_KWOK_VERSION" ]]; then
  check_pin "$CP_KWOK_MODULE" sigs.k8s.io/kwok "$CP_KWOK_VERSION"
  timed_build kwok "$CP_KWOK_MODULE" \
    -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=$CP_KWOK_VERSION" \
    -o "$CP_BIN/kwok" sigs.k8s.io/kwok/cmd/kwok
fi

k8s_ldflags="-s -w"
minor=$(echo "$CP_K8S_VERSION" | cut -d. -f2)
for p in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
  k8s_ldflags+=" -X $p.gitVersion=$CP_K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor"
  k8s_ldflags+=" -X $p.gitTreeState=clean -X $p.buildDate=$build_date"
done
k8s_missing=()
for cmd in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
  [[ $(cp_binary_version "$cmd") == "$CP_K8S_VERSION" ]] || k8s_missing+=("k8s.io/kubernetes/cmd/$cmd")
done
if ((${#k8s_missing[@]} > 0)); then
  check_pin "$CP_K8S_MODULE" k8s.io/kubernetes "$CP_K8S_VERSION"
  timed_build "${k8s_missing[*]##*/}" "$CP_K8S_MODULE" -ldflags "$k8s_ldflags" -o "$CP_BIN/" "${k8s_missing[@]}"
fi

cp_binaries_ready || cp_die "a binary in $CP_BIN does not report the expected version after the build"
for name in etcd kube-apiserver kube-controller-manager kube-scheduler kwok kubectl; do
  [[ -x $CP_BIN/$name ]] && cp_log "$name $(cp_binary_version "$name")"
done
cp_log "done: $CP_BIN"
