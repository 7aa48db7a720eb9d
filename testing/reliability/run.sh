#!/usr/bin/env bash
# Capstan's process-level reliability suite (testing/reliability/README.md): real `capstan` CLI
# JVMs against a real control plane (testing/control-plane), with kill -9, concurrent casters,
# a kube-apiserver restart, an API server outage longer than the retry budget and a stalled
# (SIGSTOP) holder. After each scenario it checks the
# invariants (check.py): no lost record, no stuck PENDING or held lease, no orphan, no object
# owned twice; and that the next cast converges (exit 0, then a plan that changes nothing).
#
#   run.sh [--rounds N] [--dir DIR] [--kubeconfig FILE] [--scenarios "kill concurrent race restart outage stall"]
#
# Prints figures at the end; exits 1 if any check failed. Every process it starts is stopped by
# pid (the control plane by its own stop.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rounds=1
dir=/tmp/capstan-reliability-$$
kubeconfig=
scenarios="kill concurrent race restart outage stall"
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
jar="$root/capstan-cli/target/capstan-cli-all.jar"
[[ -f $jar ]] || (cd "$root" && ./mvnw -q -B -DskipTests -Dspotless.check.skip=true -pl capstan-cli -am package)
kubectl="$("$root/testing/control-plane/build.sh" --print-bin)/kubectl"
started=
if [[ -z $kubeconfig ]]; then
  # the audit log and one client certificate per racing release let the race scenario check
  # that the losing release sent no write for the contested object
  "$root/testing/control-plane/start.sh" --dir "$dir/cp" --owner-pid $$ --audit \
    --client race-x --client race-y >"$dir/cp.env"
  kubeconfig="$dir/cp/kubeconfig"
  started=1
fi
export KUBECONFIG=$kubeconfig
capstan=(java -XX:TieredStopAtLevel=1 -jar "$jar" --kubeconfig "$kubeconfig")
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do
    # only a CLI JVM this run started (the pid may have been reused since)
    grep -qs capstan-cli-all "/proc/$p/cmdline" && kill -9 "$p" 2>/dev/null || true
  done
  if [[ -n $started ]]; then "$root/testing/control-plane/stop.sh" --dir "$dir/cp" --purge >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

converged=0 checks=0 runs=0 kills=0 races=0 restarts=0 stalls=0 failures=0
scenario=
declare -A rounds_of=() failed_of=() figures_of=()
log() { echo "reliability: $*" >&2; }
fail() {
  log "FAIL $scenario: $*"
  failures=$((failures + 1))
  failed_of[$scenario]=$((${failed_of[$scenario]:-0} + 1))
}
figure() { figures_of[$scenario]+="${figures_of[$scenario]:+; }$*"; } # a figure for the summary

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
# cast_bg LOG ENV NS RELEASE DIR [extra args]: starts the CLI JVM itself in the background (so
# its pid, in $bg, is the JVM's: kill -9 and SIGSTOP reach it), with ENV ("VAR=VALUE ...", or
# "-") in its environment and its output in LOG
cast_bg() {
  local log=$1 envs=$2 ns=$3 rel=$4 f=$5
  shift 5
  [[ $envs != - ]] || envs=
  local cmd=("${capstan[@]}")
  [[ -z ${KC:-} ]] || cmd=(java -XX:TieredStopAtLevel=1 -jar "$jar" --kubeconfig "$KC")
  runs=$((runs + 1))
  # emptied here, not by the background redirect: wait_for_hold must never read an earlier run's
  # hold line before the new JVM's shell has truncated the file
  : >"$log"
  # shellcheck disable=SC2086 # ENV is a list of words
  env $envs "${cmd[@]}" release cast "$rel" -n "$ns" -f "$f" --create-namespace --yes "$@" \
    >"$log" 2>&1 &
  bg=$!
  pids+=("$bg")
}
check() { # check NS RELEASE...: invariants, then the next cast converges
  local ns=$1
  shift
  python3 "$root/testing/reliability/check.py" "$kubectl" "${capstan[*]}" "$ns" "$@" || { fail "invariants in $ns"; return; }
  checks=$((checks + 1))
}
converges() { # converges NS RELEASE DIR: a cast exits 0 and the next plan changes nothing
  local ns=$1 rel=$2 f=$3
  cast "$ns" "$rel" "$f" --wait 60s >"$dir/converge.log" 2>&1 || { fail "next cast of $ns/$rel: $(tail -n 2 "$dir/converge.log")"; return; }
  "${capstan[@]}" release plan "$rel" -n "$ns" -f "$f" -o json 2>/dev/null |
    python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["changesNothing"] else 1)' ||
    { fail "plan of $ns/$rel after the next cast still changes something"; return; }
  converged=$((converged + 1))
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
  local ns=rel-kill-$1 f n t0 t1 slowest=0
  # the first cast writes 3 ServiceAccounts and 12 ConfigMaps, each later one the 12 ConfigMaps: kill
  # -9 after the first write, mid-way, and after the last write (before the deployed record)
  for n in 1 6 12; do
    # each kill point casts new values, so the killed cast has writes to do
    f=$(manifests "$ns" app 3 12 "r$1-$n")
    cast_bg "$dir/kill.log" "CAPSTAN_TEST_HOLD_AFTER_WRITES=$n" "$ns" app "$f"
    local pid=$bg
    wait_for_hold "$dir/kill.log" "$pid" || { fail "the caster did not reach write $n: $(tail -n 2 "$dir/kill.log")"; continue; }
    kill -9 "$pid"
    wait "$pid" 2>/dev/null || true
    kills=$((kills + 1))
    t0=$(now_ms)
    cast "$ns" app "$f" --wait 60s >"$dir/next.log" 2>&1 || fail "kill at $n: the next cast failed: $(tail -n 2 "$dir/next.log")"
    t1=$(now_ms)
    grep -q "taking over from" "$dir/next.log" || fail "kill at $n: the next cast did not take the dead caster's lease over"
    log "kill -9 after $n writes: the next cast with --wait took over and finished in $(((t1 - t0) / 1000)) s"
    # the 15 s lease, plus the next JVM's own plan and cast
    [[ $((t1 - t0)) -le 30000 ]] || fail "kill at $n: the next cast took $(((t1 - t0) / 1000)) s (lease 15 s)"
    [[ $((t1 - t0)) -le $slowest ]] || slowest=$((t1 - t0))
    check "$ns" app
  done
  converges "$ns" app "$f"
  figure "round $1: the next cast after each kill -9 took over and was done within $((slowest / 1000)) s"
}

# --- N concurrent casters of one release --------------------------------------------------------
scenario_concurrent() {
  local ns=rel-conc-$1 f i g codes=() cpids=() c
  f=$(manifests "$ns" app 2 10 "c$1")
  cast "$ns" app "$f" >"$dir/conc-0.log" 2>&1 || fail "first install: $(tail -n 2 "$dir/conc-0.log")"
  for i in 1 2 3 4; do
    g=$(manifests "$ns" app 2 10 "c$1-$i")
    cast_bg "$dir/conc-$i.log" - "$ns" app "$g" --wait 120s
    cpids+=("$bg")
  done
  for i in 0 1 2 3; do
    c=0
    wait "${cpids[$i]}" || c=$?
    codes+=("$c")
  done
  races=$((races + 1))
  log "4 concurrent casters of $ns/app with --wait: exit codes ${codes[*]}; re-planned $(cat "$dir"/conc-[1-4].log | grep -c 'planning again' || true) time(s)"
  for i in 0 1 2 3; do
    [[ ${codes[$i]} == 0 ]] || fail "caster $((i + 1)) exited ${codes[$i]}: $(grep -m1 '^capstan: release' "$dir/conc-$((i + 1)).log" || true)"
  done
  local revs
  revs=$("${capstan[@]}" release history app -n "$ns" -o json | python3 -c 'import json,sys; print(" ".join(str(r["revision"]) + "=" + r["status"] for r in json.load(sys.stdin)))')
  log "history of $ns/app (newest first): $revs"
  [[ $revs == "5=deployed 4=superseded 3=superseded 2=superseded 1=superseded" ]] || fail "history is '$revs', not 5 revisions in a row, each cast once"
  check "$ns" app
  converges "$ns" app "$f"
  figure "round $1: 4 casters with --wait all exit 0, $(cat "$dir"/conc-[1-4].log | grep -c 'planning again' || true) re-plan(s)"
}

# --- two releases racing for one new object -----------------------------------------------------
# free: both JVMs started at once; fenced: both held as their first writes start (after planning
# and re-observing, under their leases) and released at once, so both send their
# create of configmap `shared` together and only the fence decides
race() { # race ROUND MODE
  local ns=rel-race-$2-$1 fx fy px py cx=0 cy=0 holds=- resume="$dir/resume-race-$2-$1" kx ky
  fx=$(manifests "$ns" x 0 3 "x$1" shared)
  fy=$(manifests "$ns" y 0 3 "y$1" shared)
  "$kubectl" create namespace "$ns" >/dev/null
  [[ $2 == free ]] || holds="CAPSTAN_TEST_HOLD_AFTER_WRITES=0 CAPSTAN_TEST_RESUME_FILE=$resume"
  kx="$dir/cp/kubeconfig-race-x" ky="$dir/cp/kubeconfig-race-y"
  [[ -n $started ]] || { kx=$kubeconfig; ky=$kubeconfig; }
  KC=$kx cast_bg "$dir/race-x.log" "$holds" "$ns" x "$fx"
  px=$bg
  KC=$ky cast_bg "$dir/race-y.log" "$holds" "$ns" y "$fy"
  py=$bg
  if [[ $2 == fenced ]]; then
    wait_for_hold "$dir/race-x.log" "$px" || fail "$2: x did not reach its first write: $(tail -n 2 "$dir/race-x.log")"
    wait_for_hold "$dir/race-y.log" "$py" || fail "$2: y did not reach its first write: $(tail -n 2 "$dir/race-y.log")"
    touch "$resume"
  fi
  wait "$px" || cx=$?
  wait "$py" || cy=$?
  races=$((races + 1))
  log "two releases racing for configmap $ns/shared ($2): exit codes x=$cx y=$cy; $(grep -h -m1 -o 'owned by release [^;]*\|fenced [^:]*' "$dir"/race-[xy].log | head -n 1 || true)"
  local audit=()
  [[ -z $started ]] || audit=(--audit "$dir/cp/logs/audit.log" --user x=race-x --user y=race-y)
  python3 "$root/testing/reliability/check.py" "$kubectl" "${capstan[*]}" "$ns" x y \
    --shared shared --outcome "x=$cx:$dir/race-x.log" --outcome "y=$cy:$dir/race-y.log" "${audit[@]}" ||
    { fail "race ($2) in $ns: x said: $(grep -m1 '^capstan: release' "$dir/race-x.log" || tail -n 1 "$dir/race-x.log"); y said: $(grep -m1 '^capstan: release' "$dir/race-y.log" || tail -n 1 "$dir/race-y.log")"
      cp "$dir/race-x.log" "$dir/race-x-$2-$1.log"; cp "$dir/race-y.log" "$dir/race-y-$2-$1.log"; return; }
  checks=$((checks + 1))
  local winner=x wf=$fx
  [[ $cx == 0 ]] || { winner=y; wf=$fy; }
  figure "round $1 $2: $winner owns it, the other exited $([[ $winner == x ]] && echo "$cy" || echo "$cx")"
  converges "$ns" "$winner" "$wf"
}
scenario_race() {
  race "$1" free
  race "$1" fenced
}

# --- kube-apiserver stopped and restarted mid-cast ----------------------------------------------
# The API server is stopped with SIGKILL, as a crash or a lost node stops it: with SIGTERM it
# drains for about a minute (answering 503 "apiserver is shutting down"), which is not the outage
# of at most 15 s the scenario is about.
restart_apiserver() { # restart_apiserver DOWN [TERM]: stops the API server by pid (SIGKILL, then
  # DOWN s; or SIGTERM: it drains, and stays down until DOWN s after the signal), starts it again
  # with its argv
  local down=$1 signal=${2:-KILL} pidfile="$dir/cp/pids/kube-apiserver.pid" pid argv=() t0 i left
  pid=$(cat "$pidfile")
  mapfile -d '' argv <"/proc/$pid/cmdline"
  t0=$(now_ms)
  kill "-$signal" "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  if [[ $signal == KILL ]]; then
    sleep "$down"
  else
    left=$((down * 1000 - ($(now_ms) - t0)))
    if ((left > 0)); then sleep "$((left / 1000)).$(printf %03d $((left % 1000)))"; fi
  fi
  HOME="$dir/cp" nohup "${argv[@]}" >>"$dir/cp/logs/kube-apiserver.log" 2>&1 </dev/null &
  echo $! >"$pidfile"
  for ((i = 0; i < 600; i++)); do
    "$kubectl" get --raw /readyz >/dev/null 2>&1 && break
    sleep 0.2
  done
  outage=$(((($(now_ms) - t0)) / 1000))
  restarts=$((restarts + 1))
}
scenario_restart() {
  [[ -n $started ]] || { log "restart: skipped (needs a control plane this run started)"; figure "skipped"; return; }
  local ns=rel-restart-$1 f code=0 status
  f=$(manifests "$ns" app 2 20 "s$1")
  local resume="$dir/resume-restart-$1"
  cast_bg "$dir/restart-$1.log" "CAPSTAN_TEST_HOLD_AFTER_WRITES=5 CAPSTAN_TEST_RESUME_FILE=$resume" "$ns" app "$f"
  local pid=$bg
  wait_for_hold "$dir/restart-$1.log" "$pid" || { fail "caster did not reach write 5"; return; }
  (sleep 0.5; touch "$resume") &
  restart_apiserver 5
  wait "$pid" || code=$?
  status=$("${capstan[@]}" release get app -n "$ns" -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')
  log "kube-apiserver down $outage s mid-cast (stop to ready): the cast exited $code, revision 1 $status; $(grep -c 'retrying' "$dir/restart-$1.log" || true) retries"
  [[ $outage -le 15 ]] || fail "the API server was down $outage s, more than 15 s"
  [[ ($code == 0 && $status == deployed) || ($code == 1 && $status == failed) ]] ||
    fail "exit code $code with revision 1 $status: $(grep -v retrying "$dir/restart-$1.log" | tail -n 3)"
  check "$ns" app
  converges "$ns" app "$f"
  figure "round $1: API server down ${outage} s, the cast exited $code, revision 1 $status"
}

# --- kube-apiserver stopped with SIGTERM for longer than the retry budget, mid-cast ------------
# SIGTERM makes kube-apiserver drain, then exit; it stays down until 70 s after the signal, longer
# than the retry budget (30 s of pauses) of a write and then of the failure's record. The cast
# cannot record its outcome: its lease must keep its intent, and the next cast (no --adopt) must
# record the interrupted revision failed and converge.
outage_cast() { # outage_cast ROUND WHAT NS DIR: one cast held after 10 writes, the outage, the next cast
  local ns=$3 f=$4 code=0 resume="$dir/resume-outage-$1-$2" intent revs restart_pid
  cast_bg "$dir/outage-$1-$2.log" "CAPSTAN_TEST_HOLD_AFTER_WRITES=10 CAPSTAN_TEST_RESUME_FILE=$resume" "$ns" app "$f"
  local pid=$bg
  wait_for_hold "$dir/outage-$1-$2.log" "$pid" || { fail "$2: the caster did not reach write 10: $(tail -n 2 "$dir/outage-$1-$2.log")"; return 1; }
  # in a subshell: its outage figure comes back through a file
  (restart_apiserver 70 TERM; echo "$outage" >"$dir/outage-seconds") &
  restart_pid=$!
  # let the cast go on once the API server no longer answers
  for ((i = 0; i < 300; i++)); do
    "$kubectl" get --raw /readyz >/dev/null 2>&1 || break
    sleep 0.2
  done
  touch "$resume"
  wait "$pid" || code=$?
  wait "$restart_pid" || true
  restarts=$((restarts + 1))
  outage=$(cat "$dir/outage-seconds" 2>/dev/null || echo "?")
  intent=$("$kubectl" get lease capstan.release.v1.app -n "$ns" -o jsonpath='{.metadata.annotations.capstan\.dev/lease-intent}' 2>/dev/null || true)
  log "outage ($2): the cast exited $code; its lease $([[ -n $intent ]] && echo "kept its intent" || echo "is GONE")"
  [[ $code == 1 ]] || fail "$2: the cast exited $code, not 1: $(grep -v retrying "$dir/outage-$1-$2.log" | tail -n 3)"
  [[ $intent == *'"operation":"cast"'* ]] || fail "$2: the lease no longer names the cast after the outage (intent '$intent')"
  cast "$ns" app "$f" --wait 60s >"$dir/outage-next.log" 2>&1 || { fail "$2: the next cast failed: $(tail -n 2 "$dir/outage-next.log")"; return 1; }
  grep -q "taking over from" "$dir/outage-next.log" || fail "$2: the next cast did not take the lease over"
  return 0
}
scenario_outage() {
  [[ -n $started ]] || { log "outage: skipped (needs a control plane this run started)"; figure "skipped"; return; }
  local ns=rel-outage-$1 f g revs
  f=$(manifests "$ns" app 3 40 "o$1")
  outage_cast "$1" install "$ns" "$f" || return
  revs=$("${capstan[@]}" release history app -n "$ns" -o json | python3 -c 'import json,sys; print(" ".join(str(r["revision"]) + "=" + r["status"] for r in json.load(sys.stdin)))')
  log "outage during a first install: API server down ${outage} s; history after the next cast: $revs"
  [[ $revs == "2=deployed 1=failed" ]] || fail "install: history is '$revs', not '2=deployed 1=failed'"
  check "$ns" app
  g=$(manifests "$ns" app 3 40 "o$1-b")
  outage_cast "$1" upgrade "$ns" "$g" || return
  revs=$("${capstan[@]}" release history app -n "$ns" -o json | python3 -c 'import json,sys; print(" ".join(str(r["revision"]) + "=" + r["status"] for r in json.load(sys.stdin)))')
  log "outage during an upgrade: API server down ${outage} s; history after the next cast: $revs"
  [[ $revs == "4=deployed 3=failed 2=superseded 1=failed" ]] || fail "upgrade: history is '$revs', not '4=deployed 3=failed 2=superseded 1=failed'"
  check "$ns" app
  converges "$ns" app "$g"
  figure "round $1: API server down ${outage} s twice (install, upgrade); each interrupted revision recorded failed by the next cast, no --adopt"
}

# --- a stalled holder (SIGSTOP past its lease) wakes after a takeover --------------------------
scenario_stall() {
  local ns=rel-stall-$1 f g code=0
  f=$(manifests "$ns" app 3 6 "a$1")
  g=$(manifests "$ns" app 3 6 "b$1")
  local resume="$dir/resume-stall-$1"
  # hold after the 3 service accounts: the config maps are the next write batch
  cast_bg "$dir/stall-a.log" "CAPSTAN_TEST_HOLD_AFTER_WRITES=3 CAPSTAN_TEST_RESUME_FILE=$resume" "$ns" app "$f" --lease-duration 6s
  local pid=$bg
  wait_for_hold "$dir/stall-a.log" "$pid" || { fail "caster A did not reach write 3"; return; }
  kill -STOP "$pid"
  stalls=$((stalls + 1))
  cast "$ns" app "$g" --wait 60s >"$dir/stall-b.log" 2>&1 || fail "caster B failed: $(tail -n 2 "$dir/stall-b.log")"
  local before after
  before=$("$kubectl" get serviceaccounts,configmaps -n "$ns" -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}')
  touch "$resume"
  kill -CONT "$pid"
  wait "$pid" || code=$?
  after=$("$kubectl" get serviceaccounts,configmaps -n "$ns" -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}')
  [[ $before == "$after" ]] || fail "the woken holder wrote after the takeover: $before -> $after"
  [[ $code == 1 ]] || fail "the woken holder exited $code, not 1 (failed)"
  local status
  status=$("${capstan[@]}" release history app -n "$ns" -o json | python3 -c 'import json,sys; print(" ".join(r["status"] for r in json.load(sys.stdin)))')
  log "stalled holder woke after takeover: exit $code, $([[ $before == "$after" ]] && echo wrote nothing || echo WROTE); history (newest first): $status; $(grep -m1 -o 'lost the operation lease on [^(]*' "$dir/stall-a.log" || true)"
  [[ $status == "deployed failed" ]] || fail "history is '$status', not 'deployed failed'"
  check "$ns" app
  converges "$ns" app "$g"
  figure "round $1: the woken holder exited $code, wrote $([[ $before == "$after" ]] && echo nothing || echo SOMETHING), history $status"
}

# what a scenario's rounds proved when none of its checks failed (the summary prints it)
inv="no lost record, no PENDING record or held lease, no orphan, no object owned twice, the next cast converged"
declare -A what=(
  [kill]="after kill -9 at writes 1, 6 and 12 the next cast with --wait took the lease over within the lease duration; $inv"
  [concurrent]="4 casters of one release with --wait all deployed, one revision each; $inv"
  [race]="exactly one release owns configmap shared; the other failed naming the owner and wrote nothing to it; $inv"
  [restart]="the cast completed after the API server came back, or failed with its record FAILED and the lease released; $inv"
  [outage]="with the API server down 70 s (SIGTERM) mid-install and mid-upgrade, the cast exited 1 keeping its lease's intent, and the next cast (no --adopt) recorded the revision failed and converged; $inv"
  [stall]="the woken holder wrote nothing after the takeover, exited 1, its revision recorded FAILED; $inv"
)
start=$(date +%s)
for ((round = 1; round <= rounds; round++)); do
  for scenario in $scenarios; do
    rounds_of[$scenario]=$((${rounds_of[$scenario]:-0} + 1))
    "scenario_$scenario" "$round"
  done
done
scenario=
echo "reliability: $rounds round(s) in $(($(date +%s) - start)) s: $runs casts, $kills kills (-9), $races races, $restarts API server restarts, $stalls stalls; $checks invariant checks, $converged converged next casts; $failures failure(s)"
for scenario in $scenarios; do
  if [[ ${failed_of[$scenario]:-0} == 0 ]]; then
    echo "reliability: held  $scenario (${rounds_of[$scenario]} round(s)): ${what[$scenario]}"
    echo "reliability:       $scenario figures: ${figures_of[$scenario]:-}"
  else
    echo "reliability: FAILED $scenario (${rounds_of[$scenario]} round(s)): ${failed_of[$scenario]} failure(s)"
  fi
done
[[ $failures == 0 ]]
