#!/usr/bin/env bash
# Stops a control plane started by start.sh: every process recorded in DIR/pids, by pid, in
# reverse start order (watchdog, kwok, scheduler, controller-manager, apiserver, etcd).
# A pid is only signalled while it still runs the binary start.sh launched, so a reused pid
# is never hit. SIGTERM first, SIGKILL after 10 s.
#
#   stop.sh [--dir DIR] [--keep-logs | --purge] [--check-running]
#
#   --dir DIR          state folder given to start.sh (default: ${TMPDIR:-/tmp}/capstan-control-plane)
#   --keep-logs        keep DIR/logs (the default; etcd data and keys are always removed)
#   --purge            remove DIR entirely
#   --check-running    stop nothing; exit 0 if any recorded process still runs, 1 otherwise
set -euo pipefail
trap "" PIPE # a closed output (e.g. `| head`) must not cut the stopping short
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dir=${TMPDIR:-/tmp}/capstan-control-plane
purge=false
check=false
while (($# > 0)); do
  case $1 in
    --dir) dir=$2; shift ;;
    --keep-logs) purge=false ;;
    --purge) purge=true ;;
    --check-running) check=true ;;
    -h | --help) sed -n '2,13p' "$0"; exit 0 ;;
    *) cp_die "unknown argument: $1" ;;
  esac
  shift
done
[[ -d $dir/pids ]] || { [[ $check == true ]] && exit 1; cp_log "nothing to stop in $dir"; exit 0; }

order=(watchdog kwok kube-scheduler kube-controller-manager kube-apiserver etcd)

# ours NAME PID: the pid still runs what start.sh launched under NAME.
ours() {
  local name=$1 pid=$2 exe
  [[ -r /proc/$pid/cmdline ]] || return 1
  if [[ $name == watchdog ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q capstan-watchdog
  else
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
    [[ ${exe% (deleted)} == */"$name" ]]
  fi
}

if [[ $check == true ]]; then
  for name in "${order[@]}"; do
    [[ -f $dir/pids/$name.pid ]] && ours "$name" "$(cat "$dir/pids/$name.pid")" && exit 0
  done
  exit 1
fi

for name in "${order[@]}"; do
  f=$dir/pids/$name.pid
  [[ -f $f ]] || continue
  pid=$(cat "$f")
  if [[ $name == watchdog && -n ${CP_FROM_WATCHDOG:-} ]]; then
    rm -f "$f"
    continue
  fi
  if ours "$name" "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
      ours "$name" "$pid" || break
      sleep 0.1
    done
    if ours "$name" "$pid"; then
      cp_log "$name (pid $pid) ignored SIGTERM for 10 s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    cp_log "stopped $name (pid $pid)"
  fi
  rm -f "$f"
done

rm -rf "$dir/etcd" "$dir/pki" "$dir/kubeconfig" "$dir/state.env"
rmdir "$dir/pids" 2>/dev/null || true
if [[ $purge == true ]]; then
  rm -rf "$dir"
else
  cp_log "logs kept in $dir/logs"
fi
