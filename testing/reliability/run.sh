#!/usr/bin/env bash
# Capstan's process-level reliability suite (testing/reliability/README.md): real `capstan` CLI
# JVMs against a real control plane (testing/control-plane), with kill -9, concurrent casters,
# a kube-apiserver restart and a stalled (SIGSTOP) holder. After each scenario it checks the
# invariants (check.py): no lost record, no stuck PENDING or held lease, no orphan, no object
# owned twice; and that the next cast converges (exit 0, then a plan that changes nothing).
#
#   run.sh [--rounds N] [--dir DIR] [--kubeconfig FILE] [--scenarios "kill concurrent race restart stall"]
#
# Prints figures at the end; exits 1 if any check failed. Every process it starts is stopped by
# pid (the control plane by its own stop.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rounds=1
dir=/tmp/capstan-reliability-$$
kubeconfig=
scenarios="kill concurrent race restart stall"
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) rounds=$2; shift ;;
    --dir) dir=$2; shift ;;
    --kubeconfig) kubeconfig=$2; shift ;;
    --scenarios) scenarios=$2; shift ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
mkdir -p "$dir"
jar="$root/examples/target/capstan-examples-all.jar"
[[ -f $jar ]] || (cd "$root" && ./mvnw -q -B -DskipTests -Dspotless.check.skip=true -pl examples -am package)
kubectl="$("$root/testing/control-plane/build.sh" --print-bin)/kubectl"
started=
if [[ -z $kubeconfig ]]; then
  "$root/testing/control-plane/start.sh" --dir "$dir/cp" --owner-pid $$ >"$dir/cp.env"
  kubeconfig="$dir/cp/kubeconfig"
  started=1
fi
export KUBECONFIG=$kubeconfig
capstan=(java -XX:TieredStopAtLevel=1 -jar "$jar" --kubeconfig "$kubeconfig")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  if [[ -n $started ]]; then "$root/testing/control-plane/stop.sh" --dir "$dir/cp" --purge >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

runs=0 kills=0 races=0 restarts=0 stalls=0 failures=0
held=()
log() { echo "reliability: $*" >&2; }
fail() { log "FAIL $*"; failures=$((failures + 1)); }

# manifests NS RELEASE SAS CMS VALUE [SHARED]: SAS service accounts, then CMS config maps
manifests() {
  local ns=$1 rel=$2 sas=$3 cms=$4 value=$5 shared=${6:-} f="$dir/$1-$2-$5"
  mkdir -p "$f"
  : >"$f/objects.yaml"
  for ((i = 0; i < sas; i++)); do
    printf -- '---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: %s-sa-%d, namespace: %s}\n' "$rel" "$i" "$ns" >>"$f/objects.yaml"
  done
  for ((i = 0; i < cms; i++)); do
    printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s-cm-%d, namespace: %s}\ndata: {value: "%s"}\n' "$rel" "$i" "$ns" "$value" >>"$f/objects.yaml"
  done
  if [[ -n $shared ]]; then
    printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared, namespace: %s}\ndata: {value: "%s"}\n' "$ns" "$rel" >>"$f/objects.yaml"
  fi
  echo "$f"
}
cast() { # cast NS RELEASE DIR [extra args]: runs the CLI, returns its exit code
  local ns=$1 rel=$2 f=$3
  shift 3
  runs=$((runs + 1))
  "${capstan[@]}" release cast "$rel" -n "$ns" -f "$f" --create-namespace --yes "$@"
}
check() { # check NS RELEASE...: invariants, then the next cast converges
  local ns=$1
  shift
  python3 "$root/testing/reliability/check.py" "$kubectl" "${capstan[*]}" "$ns" "$@" || { fail "invariants in $ns"; return; }
}
converges() { # converges NS RELEASE DIR: a cast exits 0 and the next plan changes nothing
  local ns=$1 rel=$2 f=$3
  cast "$ns" "$rel" "$f" --wait 60s >"$dir/converge.log" 2>&1 || { fail "next cast of $ns/$rel: $(tail -n 2 "$dir/converge.log")"; return; }
  "${capstan[@]}" release plan "$rel" -n "$ns" -f "$f" -o json 2>/dev/null |
    python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["changesNothing"] else 1)' ||
    fail "plan of $ns/$rel after the next cast still changes something"
}
wait_for_hold() { # wait_for_hold LOG PID: until the CLI says it holds (or died)
  local i
  for ((i = 0; i < 1200; i++)); do
    grep -q "test hold after" "$1" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
now_ms() { date +%s%3N; }

# --- kill -9 at chosen points, then the next cast with --wait -----------------------------------
scenario_kill() {
  local ns=rel-kill-$1 f n
  f=$(manifests "$ns" app 3 12 "r$1")
  for n in 2 9 15; do
    CAPSTAN_TEST_HOLD_AFTER_WRITES=$n cast "$ns" app "$f" >"$dir/kill.log" 2>&1 &
    local pid=$!
    pids+=("$pid")
    wait_for_hold "$dir/kill.log" "$pid" || { fail "kill: the caster did not reach write $n: $(tail -n 2 "$dir/kill.log")"; continue; }
    kill -9 "$pid"
    wait "$pid" 2>/dev/null || true
    kills=$((kills + 1))
    local t0 t1
    t0=$(now_ms)
    cast "$ns" app "$f" --wait 60s >"$dir/next.log" 2>&1 || fail "kill at $n: the next cast failed: $(tail -n 2 "$dir/next.log")"
    t1=$(now_ms)
    log "kill -9 after $n writes: the next cast with --wait finished in $(((t1 - t0) / 1000)) s"
    [[ $((t1 - t0)) -le 30000 ]] || fail "kill at $n: the next cast took $(((t1 - t0) / 1000)) s (lease 15 s)"
    check "$ns" app
  done
  converges "$ns" app "$f"
  held+=("kill")
}

# --- N concurrent casters of one release --------------------------------------------------------
scenario_concurrent() {
  local ns=rel-conc-$1 f i codes=() cpids=()
  f=$(manifests "$ns" app 2 10 "c$1")
  cast "$ns" app "$f" >/dev/null 2>&1 || fail "concurrent: first install"
  for i in 1 2 3 4; do
    local g
    g=$(manifests "$ns" app 2 10 "c$1-$i")
    cast "$ns" app "$g" --wait 120s >"$dir/conc-$i.log" 2>&1 &
    cpids+=($!)
    pids+=($!)
  done
  for i in 0 1 2 3; do
    wait "${cpids[$i]}" && codes+=(0) || codes+=($?)
  done
  races=$((races + 1))
  log "4 concurrent casters of $ns/app with --wait: exit codes ${codes[*]}"
  for c in "${codes[@]}"; do [[ $c == 0 ]] || fail "concurrent: a caster exited $c ($(cat "$dir"/conc-*.log | grep -m1 'capstan: release' || true))"; done
  check "$ns" app
  converges "$ns" app "$f"
  held+=("concurrent")
}

# --- two releases racing for one new object -----------------------------------------------------
scenario_race() {
  local ns=rel-race-$1 fx fy px py cx=0 cy=0
  fx=$(manifests "$ns" x 0 3 "x$1" shared)
  fy=$(manifests "$ns" y 0 3 "y$1" shared)
  "$kubectl" create namespace "$ns" >/dev/null
  cast "$ns" x "$fx" >"$dir/race-x.log" 2>&1 &
  px=$!
  cast "$ns" y "$fy" >"$dir/race-y.log" 2>&1 &
  py=$!
  pids+=("$px" "$py")
  wait "$px" || cx=$?
  wait "$py" || cy=$?
  races=$((races + 1))
  log "two releases racing for configmap shared: exit codes x=$cx y=$cy"
  if [[ $cx == 0 && $cy == 0 ]]; then fail "race: both releases claim configmap $ns/shared"; fi
  check "$ns" x y
}

# --- kube-apiserver stopped and restarted mid-cast ----------------------------------------------
restart_apiserver() { # stops the API server by pid, waits DOWN s, starts it again with its argv
  local down=$1 pidfile="$dir/cp/pids/kube-apiserver.pid" pid argv=()
  pid=$(cat "$pidfile")
  mapfile -d '' argv <"/proc/$pid/cmdline"
  kill "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  sleep "$down"
  HOME="$dir/cp" nohup "${argv[@]}" >>"$dir/cp/logs/kube-apiserver.log" 2>&1 </dev/null &
  echo $! >"$pidfile"
  local i
  for ((i = 0; i < 600; i++)); do
    "$kubectl" get --raw /readyz >/dev/null 2>&1 && break
    sleep 0.2
  done
  restarts=$((restarts + 1))
}
scenario_restart() {
  [[ -n $started ]] || { log "restart: skipped (needs a control plane this run started)"; return; }
  local ns=rel-restart-$1 f code=0
  f=$(manifests "$ns" app 2 20 "s$1")
  local resume="$dir/resume-restart-$1"
  CAPSTAN_TEST_HOLD_AFTER_WRITES=5 CAPSTAN_TEST_RESUME_FILE=$resume cast "$ns" app "$f" >"$dir/restart.log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  wait_for_hold "$dir/restart.log" "$pid" || { fail "restart: caster did not reach write 5"; return; }
  ( sleep 0.5; touch "$resume" ) &
  restart_apiserver 10
  wait "$pid" || code=$?
  log "kube-apiserver down 10 s mid-cast: the cast exited $code; retries: $(grep -c 'retrying' "$dir/restart.log" || true)"
  [[ $code == 0 || $code == 1 ]] || fail "restart: exit code $code: $(tail -n 2 "$dir/restart.log")"
  check "$ns" app
  converges "$ns" app "$f"
  held+=("restart")
}

# --- a stalled holder (SIGSTOP past its lease) wakes after a takeover --------------------------
scenario_stall() {
  local ns=rel-stall-$1 f g code=0
  f=$(manifests "$ns" app 3 6 "a$1")
  g=$(manifests "$ns" app 3 6 "b$1")
  local resume="$dir/resume-stall-$1"
  # hold after the 3 service accounts: the config maps are the next write batch
  CAPSTAN_TEST_HOLD_AFTER_WRITES=3 CAPSTAN_TEST_RESUME_FILE=$resume cast "$ns" app "$f" --lease-duration 6s >"$dir/stall-a.log" 2>&1 &
  local pid=$!
  pids+=("$pid")
  wait_for_hold "$dir/stall-a.log" "$pid" || { fail "stall: caster A did not reach write 3"; return; }
  kill -STOP "$pid"
  stalls=$((stalls + 1))
  cast "$ns" app "$g" --wait 60s >"$dir/stall-b.log" 2>&1 || fail "stall: caster B failed: $(tail -n 2 "$dir/stall-b.log")"
  local before after
  before=$("$kubectl" get serviceaccounts,configmaps -n "$ns" -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}')
  touch "$resume"
  kill -CONT "$pid"
  wait "$pid" || code=$?
  after=$("$kubectl" get serviceaccounts,configmaps -n "$ns" -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}')
  [[ $before == "$after" ]] || fail "stall: the woken holder wrote after the takeover"
  [[ $code == 1 ]] || fail "stall: the woken holder exited $code, not 1 (failed)"
  local status
  status=$("${capstan[@]}" release history app -n "$ns" -o json | python3 -c 'import json,sys; print(" ".join(r["status"] for r in json.load(sys.stdin)))')
  log "stalled holder woke after takeover: exit $code, wrote nothing; history (newest first): $status"
  [[ $status == "deployed failed" ]] || fail "stall: history is '$status', not 'deployed failed'"
  check "$ns" app
  held+=("stall")
}

start=$(date +%s)
for ((round = 1; round <= rounds; round++)); do
  for s in $scenarios; do "scenario_$s" "$round"; done
done
echo "reliability: $rounds round(s) in $(($(date +%s) - start)) s: $runs casts, $kills kills (-9), $races races, $restarts API server restarts, $stalls stalls; $failures failure(s)"
echo "reliability: held: ${held[*]:-nothing}"
[[ $failures == 0 ]]
