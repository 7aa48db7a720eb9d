#!/usr/bin/env bash
# CPU of an identical re-cast of a large install bundle (bundle-gen.sh: 62 objects, 1.9 MB of YAML,
# CRDs near 0.85 MB, objects in four namespaces): Capstan with a JVM per command (`capstan`),
# Capstan through its daemon (`capstan-daemon`) and `kubectl apply --server-side` (`kubectl`), on
# a throw-away control plane this script starts, each tool with a client certificate of its own.
#
#   recast.sh [--runs 7] [--tools "capstan capstan-daemon kubectl"] [--dir DIR] [--cp DIR] [--keep]
#
#   --dir DIR   work folder (default ${TMPDIR:-/tmp}/capstan-recast): the fixtures, the raw runs
#               (DIR/runs.tsv: run, tool, CPU ms, wall ms, requests, PATCH requests) and the table
#               (DIR/table.md); Capstan's class cache and daemon live in DIR/capstan-cache
#               (CAPSTAN_CACHE_DIR), apart from other checkouts' launchers
#   --cp DIR    the control plane's folder (default DIR/cp); stopped and removed at the end
#   --keep      leave the control plane running (stop it with testing/control-plane/stop.sh)
#
# Each tool first installs its own copy of the bundle (namespaces rc-capstan-* and rc-kubectl-*,
# CRD groups of those names: the same bytes but for the names), untimed, and Capstan casts it 9
# times more, so its history is full (10 revisions, each recording the 1.9 MB), as a release's is
# after a while, and stays so (each cast trims one); then one untimed re-cast
# per tool (the daemon's first command is reported apart: it runs cold code), then RUNS rounds of
# one re-cast per tool, the tools in turn, so a change in the machine's load reaches all of them.
# CPU is user + system of the command's whole process tree (/usr/bin/time: the launcher, its
# children, the JVM or the Perl client) plus, for the daemon, the daemon's own CPU during the
# command (/proc/PID/stat); wall time and requests (from the audit log) are printed beside it. A
# Capstan re-cast must write no object: any PATCH, the verb of every object write, fails the run.
#
# Commands: `capstan --kubeconfig K release cast bundle -n rc-capstan-system -f FIXTURE --yes`
# (CAPSTAN_DAEMON=false for `capstan`); `kubectl --kubeconfig K apply --server-side
# --field-manager=bench -f FIXTURE`. Output: each run's line, then a Markdown table of medians and
# ranges, CPU as a multiple of kubectl's. Not part of ./mvnw verify.
#
# Latest run (7 December 2026, 4116a8a5, load average 1.8-2.2): medians of 7, a JVM per command
# 1.47 s of CPU (x1.69 kubectl's), the daemon 0.24 s (x0.28), kubectl 0.87 s.
# Where the time goes: docs/benchmarks.md, "Re-casting a large bundle: CPU seconds".
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

runs=7 tools="capstan capstan-daemon kubectl" dir=${TMPDIR:-/tmp}/capstan-recast cp= keep=false
while (($# > 0)); do
  case $1 in
    --runs) runs=$2; shift ;;
    --tools) tools=$2; shift ;;
    --dir) dir=$2; shift ;;
    --cp) cp=$2; shift ;;
    --keep) keep=true ;;
    -h | --help) sed -n '2,35p' "$0"; exit 0 ;;
    *) echo "recast.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
log() { printf '[recast %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
has() { [[ " $tools " == *" $1 "* ]]; }

"$root/testing/control-plane/build.sh" >&2
kubectl=$("$root/testing/control-plane/build.sh" --print-bin)/kubectl
capstan=$root/capstan
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[[ -n $cp ]] || cp=$dir/cp
export KUBECACHEDIR=$dir/kube-cache
unset KUBECONFIG

"$root/testing/control-plane/start.sh" --dir "$cp" --audit \
  --client capstan --client capstan-daemon --client kubectl >/dev/null
# after start.sh, which would look for the control plane's binaries there too
export CAPSTAN_CACHE_DIR=$dir/capstan-cache
daemon_pid=
finish() {
  [[ -z $daemon_pid ]] || "$capstan" daemon stop >&2 || true
  [[ $keep == true ]] || "$root/testing/control-plane/stop.sh" --dir "$cp" --purge >&2 || true
}
trap finish EXIT
audit=$cp/logs/audit.log
admin() { "$kubectl" --kubeconfig "$cp/kubeconfig" "$@"; }

"$here/bundle-gen.sh" "$dir/objects/capstan" rc-capstan
"$here/bundle-gen.sh" "$dir/objects/kubectl" rc-kubectl
log "fixture: $(du -cb "$dir/objects/capstan"/*.yaml | tail -n 1 | cut -f1) bytes of YAML per tool"

# command TOOL: sets cmd to that tool's re-cast of its copy of the bundle.
command_of() {
  case $1 in
    capstan | capstan-daemon)
      cmd=("$capstan" --kubeconfig "$cp/kubeconfig-$1" release cast bundle -n rc-capstan-system
        -f "$dir/objects/capstan" --yes) ;;
    kubectl)
      cmd=("$kubectl" --kubeconfig "$cp/kubeconfig-kubectl" apply --server-side --field-manager=bench
        -f "$dir/objects/kubectl") ;;
  esac
}
# the plain tool never uses a daemon; capstan-daemon only when one runs (else it says so)
daemon_env() { if [[ $1 == capstan-daemon ]]; then echo true; else echo false; fi; }

# --- install, untimed ------------------------------------------------------------------------------
if has capstan || has capstan-daemon; then
  log "install: capstan (also trains the launcher's class cache)"
  CAPSTAN_DAEMON=false "$capstan" --kubeconfig "$cp/kubeconfig-capstan" \
    release cast bundle -n rc-capstan-system -f "$dir/objects/capstan" --yes --create-namespace >"$dir/install-capstan.out"
  # a release cast for a while: its history full (maxHistory 10), so every measured re-cast reads
  # as many records as the next one, and trims one
  log "history: 9 more casts, untimed"
  for ((i = 2; i <= 10; i++)); do
    command_of capstan
    CAPSTAN_DAEMON=false "${cmd[@]}" >"$dir/history.out"
  done
fi
if has kubectl; then
  log "install: kubectl (CRDs first: the custom resources need their kinds served)"
  "$kubectl" --kubeconfig "$cp/kubeconfig-kubectl" apply --server-side --field-manager=bench \
    -f "$dir/objects/kubectl/01-crds.yaml" >/dev/null
  admin wait --for=condition=Established crd -l app.kubernetes.io/part-of=rc-kubectl --timeout=2m >/dev/null
  command_of kubectl
  "${cmd[@]}" >"$dir/install-kubectl.out"
fi

# --- measured re-casts -----------------------------------------------------------------------------
hz=$(getconf CLK_TCK)
cpu_file=$(mktemp)
daemon_ticks() { if [[ -n $daemon_pid ]]; then awk '{print $14 + $15}' "/proc/$daemon_pid/stat"; else echo 0; fi; }
runs_tsv=$dir/runs.tsv
: >"$runs_tsv"
# measure RUN TOOL: one timed re-cast, appended to runs.tsv.
measure() {
  local run=$1 tool=$2 d0 d1 t0 t1 cpu n first last patches
  d0=0 d1=0
  [[ $tool != capstan-daemon ]] || d0=$(daemon_ticks)
  t0=$(now_us)
  command_of "$tool"
  if ! CAPSTAN_DAEMON=$(daemon_env "$tool") /usr/bin/time -f '%U %S' -o "$cpu_file" "${cmd[@]}" >"$dir/last.out" 2>&1; then
    log "$tool run $run failed:"; tail -n 20 "$dir/last.out" >&2; exit 1
  fi
  t1=$(now_us)
  [[ $tool != capstan-daemon ]] || d1=$(daemon_ticks)
  sleep 0.3 # the last audit event lands
  read -r n first last < <(audit_summary "$audit" "$tool" "$t0" "$t1")
  patches=$(audit_verbs "$audit" "$tool" "$t0" "$t1" | awk '$1 == "patch" {n += $3} END {print n + 0}')
  if [[ $tool == capstan* ]] && ((patches > 0)); then
    log "$tool run $run wrote $patches objects; an identical re-cast must write none:"; cat "$dir/last.out" >&2; exit 1
  fi
  cpu=$(awk -v d=$((d1 - d0)) -v hz="$hz" '{printf "%d", ($1 + $2) * 1000 + d * 1000 / hz}' "$cpu_file")
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$tool" "$cpu" "$(ms $((t1 - t0)))" "$n" "$patches" >>"$runs_tsv"
  log "$(printf 'run %s %-14s %6d ms CPU %6d ms wall %4d requests (%d PATCH)' "$run" "$tool" "$cpu" "$(ms $((t1 - t0)))" "$n" "$patches")"
}

for tool in $tools; do
  if [[ $tool == capstan-daemon ]]; then
    "$capstan" daemon start >&2
    daemon_pid=$("$capstan" daemon status | sed -n 's/.*running, pid \([0-9]*\),.*/\1/p')
    [[ -n $daemon_pid ]] || { log "the daemon did not start"; exit 1; }
  fi
  measure warm "$tool"
done
for ((r = 1; r <= runs; r++)); do
  for tool in $tools; do measure "$r" "$tool"; done
done

# --- the table -------------------------------------------------------------------------------------
col() { awk -F'\t' -v t="$1" -v c="$2" '$1 != "warm" && $2 == t {print $c}' "$runs_tsv"; }
range() { printf '%s\n' "$@" | sort -n | sed -n '1p;$p' | paste -sd'-'; }
k=
has kubectl && k=$(median $(col kubectl 3))
{
  echo "| re-cast, $(du -cb "$dir/objects/capstan"/*.yaml | tail -n 1 | cut -f1) bytes, 62 objects | CPU s, median (range) | × kubectl | wall s | requests |"
  echo "|---|---:|---:|---:|---:|"
  for tool in $tools; do
    c=$(median $(col "$tool" 3))
    printf '| %s | %s (%s) | %s | %s | %s |\n' "$tool" \
      "$(awk -v c="$c" 'BEGIN {printf "%.2f", c / 1000}')" \
      "$(range $(col "$tool" 3) | awk -F- '{printf "%.2f–%.2f", $1 / 1000, $2 / 1000}')" \
      "$(if [[ -n $k ]]; then awk -v c="$c" -v k="$k" 'BEGIN {printf "%.2f", c / k}'; else echo -; fi)" \
      "$(awk -v w="$(median $(col "$tool" 4))" 'BEGIN {printf "%.2f", w / 1000}')" \
      "$(median $(col "$tool" 5))"
  done
  echo
  echo "Medians of $runs runs; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
  if has capstan-daemon; then
    awk -F'\t' '$1 == "warm" && $2 == "capstan-daemon" {printf "The fresh daemon'"'"'s first re-cast (cold code): %.2f s CPU.\n", $3 / 1000}' "$runs_tsv"
  fi
} | tee "$dir/table.md"
rm -f "$cpu_file"
