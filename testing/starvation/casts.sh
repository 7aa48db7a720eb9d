#!/usr/bin/env bash
# Lone lease holders under CPU starvation (issue 22): N `./capstan release cast` commands at once,
# a JVM each (CAPSTAN_DAEMON=false), each of its own release in its own namespace, so no two ever
# want the same lease; ROUNDS times (round 1 installs, every later round changes every ConfigMap
# and the Secret, so each cast writes five batches and rolls its Deployment out). A cast that
# fails for its lease ("operation lease ... expired", "lost the operation lease") failed although
# nobody else wanted the lease. Prints one line per round and a summary (with how many casts kept
# a lease whose renewal ran late); exits 1 when any cast failed.
#
#   casts.sh [--casts 16] [--rounds 3] [--config-maps 10] [--dir DIR] [--kubeconfig FILE]
#            [--lease-duration DURATION]
#
#   --kubeconfig FILE   reuse a running control plane (default: start one under DIR/cp, stopped
#                       at the end)
#   --lease-duration    passed to every cast (default: the CLI's, 15s)
#
# Every process it starts is stopped by pid (the control plane by its own stop.sh). Not part of
# ./mvnw verify: a measurement, not a test (testing/starvation/README.md).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
casts=16 rounds=3 cms=10 dir=/tmp/capstan-starvation-$$ kubeconfig= lease=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --casts) casts=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    --config-maps) cms=$2; shift ;;
    --dir) dir=$2; shift ;;
    --kubeconfig) kubeconfig=$2; shift ;;
    --lease-duration) lease=(--lease-duration "$2"); shift ;;
    -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "casts.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
log() { echo "starvation: $*" >&2; }
mkdir -p "$dir"
started=
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do
    # only a launcher or CLI JVM this run started and that still runs (the pid may be reused)
    if kill -0 "$p" 2>/dev/null && grep -qs capstan "/proc/$p/cmdline"; then kill -9 "$p" 2>/dev/null || true; fi
  done
  if [[ -n $started ]]; then "$root/testing/control-plane/stop.sh" --dir "$dir/cp" --purge >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT
if [[ -z $kubeconfig ]]; then
  "$root/testing/control-plane/start.sh" --dir "$dir/cp" --owner-pid $$ >"$dir/cp.env"
  kubeconfig="$dir/cp/kubeconfig"
  started=1
fi
# build the jar once, before the clock starts (the launcher builds it when sources changed)
CAPSTAN_DAEMON=false "$root/capstan" --version >/dev/null

# manifests ROUND I: release I's objects, five ranks apart (so a cast writes five batches and
# waits for a rollout): a ServiceAccount, CMS ConfigMaps and a Secret holding the round's value, a
# Deployment of 2 replicas reading them (kwok runs its pods) and its Service
manifests() {
  local f="$dir/objects/r$1-$2"
  mkdir -p "$f"
  {
    printf -- '---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: app}\n'
    for ((c = 0; c < cms; c++)); do
      printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-%d}\ndata: {value: "round-%d"}\n' "$c" "$1"
    done
    printf -- '---\napiVersion: v1\nkind: Secret\nmetadata: {name: app}\nstringData: {token: "round-%d"}\n' "$1"
    printf -- '---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: app}}\n  template:\n    metadata: {labels: {app: app}}\n    spec:\n      serviceAccountName: app\n      containers:\n      - name: app\n        image: registry.example/app:1\n        envFrom: [{configMapRef: {name: cm-0}}, {secretRef: {name: app}}]\n'
    printf -- '---\napiVersion: v1\nkind: Service\nmetadata: {name: app}\nspec:\n  selector: {app: app}\n  ports: [{port: 80}]\n'
  } >"$f/objects.yaml"
  echo "$f"
}

total=0 failed=0 lease_failed=0 late=0
for ((r = 1; r <= rounds; r++)); do
  round_pids=()
  t0=$(date +%s%3N)
  for ((i = 1; i <= casts; i++)); do
    f=$(manifests "$r" "$i")
    CAPSTAN_DAEMON=false "$root/capstan" --kubeconfig "$kubeconfig" release cast "starve-$i" \
      -n "starve-$i" -f "$f" --create-namespace --yes "${lease[@]}" >"$dir/r$r-$i.log" 2>&1 &
    round_pids+=("$!")
    pids+=("$!")
  done
  round_failed=0 round_lease=0
  for ((i = 1; i <= casts; i++)); do
    code=0
    wait "${round_pids[$((i - 1))]}" || code=$?
    grep -q "renewed it late" "$dir/r$r-$i.log" && late=$((late + 1))
    total=$((total + 1))
    if [[ $code != 0 ]]; then
      round_failed=$((round_failed + 1))
      if grep -q "operation lease" "$dir/r$r-$i.log"; then
        round_lease=$((round_lease + 1))
        log "round $r, starve-$i: exit $code, failed for its lease: $(grep -m1 'operation lease' "$dir/r$r-$i.log")"
      else
        log "round $r, starve-$i: exit $code: $(tail -n 1 "$dir/r$r-$i.log")"
      fi
    fi
  done
  t1=$(date +%s%3N)
  failed=$((failed + round_failed))
  lease_failed=$((lease_failed + round_lease))
  echo "round $r: $casts casts at once in $(((t1 - t0) / 1000)) s: $round_failed failed, $round_lease of them for the lease (load $(cut -d' ' -f1-3 /proc/loadavg))"
done
echo "total: $total casts on $(nproc) cores, $failed failed, $lease_failed for their lease; $late kept a lease renewed late"
echo "logs: $dir"
[[ $failed == 0 ]]
