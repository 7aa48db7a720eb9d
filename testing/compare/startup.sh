#!/usr/bin/env bash
# Start-up harness: runs a command several times against a control plane started with
# `start.sh --audit --client USER` and reports, from the API server's audit log, how long after
# the exec the first request arrived and how long after the last response the process exited.
#
#   startup.sh --cp DIR --user NAME [--runs N] [--daemon] -- COMMAND...
#
# --daemon: the command runs in the Capstan daemon (./capstan daemon start); its CPU time during
# each run is added to the command's own (the CPU column is then client + daemon).
#
# COMMAND runs with KUBECONFIG=DIR/kubeconfig-NAME; pass it to tools that take a flag instead
# (the placeholder {kubeconfig} in COMMAND is replaced by that path). Output: one line per run and
# the medians, in milliseconds.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

cp_dir= user= runs=5 daemon_pid=
while (($# > 0)); do
  case $1 in
    --cp) cp_dir=$2; shift ;;
    --user) user=$2; shift ;;
    --runs) runs=$2; shift ;;
    --daemon)
      daemon_pid=$("$here/../../capstan" daemon status | sed -n 's/.*running, pid \([0-9]*\),.*/\1/p')
      [[ -n $daemon_pid ]] || { echo "startup.sh: no Capstan daemon runs (./capstan daemon start)" >&2; exit 2; } ;;
    --) shift; break ;;
    -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
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

firsts=() lasts=() totals=() cpus=()
cpu_file=$(mktemp)
trap 'rm -f "$cpu_file"' EXIT
# daemon_ticks: the daemon's user + system CPU in clock ticks (0 without one).
daemon_ticks() { if [[ -n $daemon_pid ]]; then awk '{print $14 + $15}' "/proc/$daemon_pid/stat"; else echo 0; fi; }
hz=$(getconf CLK_TCK)
for ((i = 1; i <= runs; i++)); do
  d0=$(daemon_ticks)
  t0=$(now_us)
  KUBECONFIG=$kubeconfig /usr/bin/time -f '%U %S' -o "$cpu_file" "${cmd[@]}" >/dev/null 2>&1 ||
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
