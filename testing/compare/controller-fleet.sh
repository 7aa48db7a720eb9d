#!/usr/bin/env bash
# Controller fleet benchmark: N Release resources of 6 objects each (3 ConfigMaps, a Secret, a
# Deployment of one replica, a Service) applied at once to a throw-away control plane with an audit
# log, one `capstan controller run --workers W` reconciling them, its own client certificate so
# the audit log counts its requests. Measures:
#   - cold: from the apply of the N Releases to every one Ready (kubectl wait on all of them),
#     and the controller's requests in that window, per release, by kind (object writes, Lease
#     writes, record writes, LIST, WATCH, GET, others) and the status/finalizer/Event writes;
#   - idle: IDLE seconds after, the controller's requests per second and its writes (0 expected:
#     an unchanged release is planned every --interval and costs reads only).
#
#   controller-fleet.sh [--releases 200] [--workers 16] [--interval 1m] [--idle 120] [--dir DIR] [--keep]
#
# Builds what is missing first (the control plane, kubectl, the CLI jar). Not part of ./mvnw
# verify; the latest figures: docs/benchmarks.md, "The controller: a fleet of Release resources".
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

releases=200 workers=16 interval=1m idle=120 dir=${TMPDIR:-/tmp}/capstan-controller-fleet keep=false
while (($# > 0)); do
  case $1 in
    --releases) releases=$2; shift ;;
    --workers) workers=$2; shift ;;
    --interval) interval=$2; shift ;;
    --idle) idle=$2; shift ;;
    --dir) dir=$2; shift ;;
    --keep) keep=true ;;
    -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "controller-fleet.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
log() { printf '[controller-fleet %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

need_tools
capstan=$root/capstan
"$capstan" --version >/dev/null # builds the CLI jar when stale
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cp=$dir/cp
nodes=$(((releases + 10 + 109) / 110 + 1))
start_audited "$cp" "$dir" "$nodes" capstan-controller
audit=$dir/audit.log
tool_homes "$dir"
export CAPSTAN_CACHE_DIR=$dir/capstan-cache CAPSTAN_DAEMON=false
controller_pid=
finish() {
  [[ -z $controller_pid ]] || kill "$controller_pid" 2>/dev/null || true
  [[ -z $controller_pid ]] || wait "$controller_pid" 2>/dev/null || true
  [[ $keep == true ]] || stop_audited "$cp"
}
trap finish EXIT

log "installing the Release CRD with capstan"
"$capstan" controller crd >"$dir/crd.yaml"
"$capstan" --kubeconfig "$cp/kubeconfig" release cast capstan-crd -n default -f "$dir/crd.yaml" --yes >"$dir/crd.out"
admin create namespace fleet >/dev/null

# gen NAME: one Release of 6 objects, inline
gen() {
  local n=$1
  cat <<YAML
---
apiVersion: capstan.dev/v1alpha1
kind: Release
metadata: {name: $n, namespace: fleet}
spec:
  interval: $interval
  manifests:
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: $n-app, labels: {app: $n}}
    data: {app.properties: "mode=blue\nthreads=8\n"}
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: $n-env, labels: {app: $n}}
    data: {LOG_LEVEL: info, REGION: local-1}
  - apiVersion: v1
    kind: ConfigMap
    metadata: {name: $n-files, labels: {app: $n}}
    data: {nginx.conf: "server { listen 8080; }\n"}
  - apiVersion: v1
    kind: Secret
    metadata: {name: $n-credentials, labels: {app: $n}}
    type: Opaque
    data: {username: $(printf 'app-%s' "$n" | base64 -w0)}
  - apiVersion: apps/v1
    kind: Deployment
    metadata: {name: $n, labels: {app: $n}}
    spec:
      replicas: 1
      selector: {matchLabels: {app: $n}}
      template:
        metadata: {labels: {app: $n}}
        spec:
          containers:
          - name: app
            image: registry.example/fleet/app:1.0.0
            envFrom: [{configMapRef: {name: $n-env}}, {secretRef: {name: $n-credentials}}]
  - apiVersion: v1
    kind: Service
    metadata: {name: $n, labels: {app: $n}}
    spec:
      clusterIP: None
      selector: {app: $n}
      ports: [{name: http, port: 8080}]
YAML
}
for ((i = 1; i <= releases; i++)); do gen "$(printf 'rel-%03d' "$i")"; done >"$dir/releases.yaml"

log "starting the controller ($workers workers)"
: >"$dir/controller.out"
"$capstan" --kubeconfig "$cp/kubeconfig-capstan-controller" controller run --workers "$workers" \
  >"$dir/controller.out" 2>&1 &
controller_pid=$!
for ((i = 0; i < 600; i++)); do
  grep -q 'controller running' "$dir/controller.out" && break
  kill -0 "$controller_pid" 2>/dev/null || { cat "$dir/controller.out" >&2; exit 1; }
  sleep 0.1
done
sleep 2 # its informers' first lists

log "applying $releases Releases"
t0=$(now_us)
admin apply -f "$dir/releases.yaml" >/dev/null
admin wait --for=condition=Ready releases.capstan.dev --all -n fleet --timeout=30m >/dev/null
t1=$(now_us)
log "all Ready in $(secs $((t1 - t0))) s"
not_ready=$(admin get releases.capstan.dev -n fleet \
  -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -cv '^True$' || true)

log "idle for $idle s"
sleep "$idle"
t2=$(now_us)

audit_events "$audit" >"$dir/events.tsv"
# the windows: phase, the user whose requests count, start and end (µs)
printf 'cold\tcapstan-controller\t%s\t%s\nidle\tcapstan-controller\t%s\t%s\n' "$t0" "$t1" "$t1" "$t2" >"$dir/windows.tsv"
window_requests "$dir/windows.tsv" "$dir/events.tsv" 2 >"$dir/results.tsv"
# the controller's writes to the Release resources themselves, and its Events, in each window
crwrites() {
  awk -F'\t' -v a="$1" -v b="$2" '$1 == "capstan-controller" && $3 >= a && $3 <= b && $2 ~ /^(create|update|patch|delete)$/ && ($5 ~ /^releases/ || $5 ~ /^events/) { n[$5]++ }
    END { for (k in n) printf "%s %d; ", k, n[k] }' "$dir/events.tsv"
}
per() { awk -v n="$1" -v r="$releases" 'BEGIN {printf "%.1f", n / r}'; }
{
  echo "$releases Releases of 6 objects each, one controller with $workers workers, interval $interval:"
  echo
  echo "| window | seconds | requests | per release | object writes | Lease writes | record writes | LIST | WATCH | GET | other |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  while IFS=$'\t' read -r phase _ us n _ _ w l r li wa g o; do
    echo "| $phase | $(secs "$us") | $n | $(per "$n") | $w | $l | $r | $li | $wa | $g | $o |"
  done <"$dir/results.tsv"
  echo
  echo "Writes to Releases and Events: cold: $(crwrites "$t0" "$t1") idle: $(crwrites "$t1" "$t2")"
  idle_n=$(awk -F'\t' '$1 == "idle" {print $4}' "$dir/results.tsv")
  echo "Idle request rate: $(awk -v n="$idle_n" -v s="$idle" 'BEGIN {printf "%.2f", n / s}') requests/s over $idle s; Releases not Ready: $not_ready."
} | tee "$dir/table.md"
