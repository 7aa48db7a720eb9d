#!/usr/bin/env bash
# Start-up harness: runs a command several times against a control plane started with
# `start.sh --audit --client USER` and reports, from the API server's audit log, how long after
# the exec the first request arrived, how long after the last response the process exited, and the
# CPU it used (with the CPU of the build's Capstan daemon during the run, when one runs: the CPU
# column is then client + daemon).
#
#   startup.sh --cp DIR --user NAME [--runs N] [--fresh] -- COMMAND...
#
# --fresh: as the README's user, after one earlier command: a Capstan cache folder of its own
# (CAPSTAN_CACHE_DIR), so the build's class cache and daemon start from nothing; one untimed run of
# COMMAND first (it trains the class cache and, unless CI=true, --no-daemon or CAPSTAN_DAEMON=false,
# starts the daemon beside it), then a wait until that daemon listens and the class cache is
# assembled (in the background, seconds after that run); then the timed runs. The daemon is stopped
# at the end.
#
# COMMAND runs with KUBECONFIG=DIR/kubeconfig-NAME (and nothing else set: the default CLI honours
# it as kubectl does); pass it to tools that take a flag instead (the placeholder {kubeconfig} in
# COMMAND is replaced by that path). Output: one line per run and the medians, in milliseconds.
#
# The figures of the issue's done-when (docs/cli.md, "Start-up"), on a control plane of its own:
#   eval "$(testing/control-plane/start.sh --dir /tmp/cp-startup --audit --client capstan | tail -n 1)"
#   testing/compare/startup.sh --cp /tmp/cp-startup --user capstan --fresh -- ./capstan release list
#   testing/compare/startup.sh --cp /tmp/cp-startup --user capstan --fresh -- ./capstan --no-daemon release list
#   testing/control-plane/stop.sh --dir /tmp/cp-startup
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

cp_dir= user= runs=5 daemon_pid= fresh=false
while (($# > 0)); do
  case $1 in
    --cp) cp_dir=$2; shift ;;
    --user) user=$2; shift ;;
    --runs) runs=$2; shift ;;
    --fresh) fresh=true ;;
    --) shift; break ;;
    -h | --help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "startup.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
[[ -n $cp_dir && -n $user && $# -gt 0 ]] || { echo "usage: startup.sh --cp DIR --user NAME [--runs N] -- COMMAND..." >&2; exit 2; }
kubeconfig=$cp_dir/kubeconfig-$user
log=$cp_dir/logs/audit.log
[[ -f $kubeconfig ]] || { echo "startup.sh: no $kubeconfig (start.sh --client $user)" >&2; exit 2; }
[[ -f $log ]] || { echo "startup.sh: no $log (start.sh --audit)" >&2; exit 2; }
cmd=("${@//\{kubeconfig\}/$kubeconfig}")
if $fresh; then
  export CAPSTAN_CACHE_DIR
  CAPSTAN_CACHE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/capstan-startup-cache.XXXXXX")
  trap '"$here/../../capstan" daemon stop >/dev/null 2>&1 || true; rm -rf "$CAPSTAN_CACHE_DIR"' EXIT
  env -u CAPSTAN_STATE KUBECONFIG="$kubeconfig" "${cmd[@]}" >/dev/null 2>&1 || { echo "startup.sh: the earlier run failed: ${cmd[*]}" >&2; exit 1; }
  # the daemon the earlier run started, once it listens and has warmed up (a person types the next
  # command seconds later)
  pidfile=$(compgen -G "$CAPSTAN_CACHE_DIR/builds/*/daemon.pid" || true)
  for ((i = 0; i < 600; i++)); do
    [[ -n $pidfile ]] || break
    grep -qs "capstan daemon: warmed up\|capstan daemon: warm-up skipped" "${pidfile%.pid}.sock.log" && break
    sleep 0.05
  done
  # and the class cache the earlier run trained, once assembled in the background (3-6 s after it)
  for ((i = 0; i < 1200; i++)); do
    compgen -G "$CAPSTAN_CACHE_DIR/builds/*/classes-*" >/dev/null &&
      ! compgen -G "$CAPSTAN_CACHE_DIR/builds/*/.assembling-*" >/dev/null && break
    sleep 0.05
  done
fi
# The daemon of the build the command runs (./capstan keeps the jar's key beside it), when one runs:
# its CPU during each run is the command's too.
key=$(cut -d' ' -f2 "$here/../../capstan-cli/target/capstan-cli-all.jar.key" 2>/dev/null || true)
build="${CAPSTAN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/capstan}/builds/$key"
if [[ -n $key && -S $build/daemon.sock ]] && read -r p <"$build/daemon.pid" && [[ -d /proc/$p ]]; then
  daemon_pid=$p
fi
cpu_file=$(mktemp)
trap 'rm -f "$cpu_file"; if $fresh; then "$here/../../capstan" daemon stop >/dev/null 2>&1 || true; rm -rf "$CAPSTAN_CACHE_DIR"; fi' EXIT
# daemon_ticks: the daemon's user + system CPU in clock ticks (0 without one).
daemon_ticks() { if [[ -n $daemon_pid ]]; then awk '{print $14 + $15}' "/proc/$daemon_pid/stat"; else echo 0; fi; }
hz=$(getconf CLK_TCK)
for ((i = 1; i <= runs; i++)); do
  d0=$(daemon_ticks)
  t0=$(now_us)
  env -u CAPSTAN_STATE KUBECONFIG="$kubeconfig" /usr/bin/time -f '%U %S' -o "$cpu_file" "${cmd[@]}" >/dev/null 2>&1 ||
    { echo "startup.sh: run $i failed: ${cmd[*]}" >&2; exit 1; }
  t1=$(now_us)
  d1=$(daemon_ticks)
  sleep 0.3 # the audit event of the last response is written as it completes; let it land
  read -r n first last < <(audit_summary "$log" "$user" "$t0" "$t1")
  ((n > 0)) || { echo "startup.sh: no request from $user in run $i" >&2; exit 1; }
  cpu=$(awk -v d=$((d1 - d0)) -v hz="$hz" '{printf "%d", ($1 + $2) * 1000 + d * 1000 / hz}' "$cpu_file")
  firsts+=($((first - t0))) lasts+=($((t1 - last))) totals+=($((t1 - t0))) cpus+=("$cpu")
  printf 'run %d: first request %4d ms after exec, exit %4d ms after the last response, %d requests, %d ms in all, %d ms CPU\n' \
    "$i" "$(ms $((first - t0)))" "$(ms $((t1 - last)))" "$n" "$(ms $((t1 - t0)))" "$cpu"
done
printf 'median: first request %d ms, exit %d ms after the last response, %d ms in all, %d ms CPU (load average %s)\n' \
  "$(ms "$(median "${firsts[@]}")")" "$(ms "$(median "${lasts[@]}")")" "$(ms "$(median "${totals[@]}")")" \
  "$(median "${cpus[@]}")" "$(cut -d' ' -f1 /proc/loadavg)"
