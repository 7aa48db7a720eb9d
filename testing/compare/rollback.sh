#!/usr/bin/env bash
# Memory and time of a big rollback against the casts it undoes (issue 45): a release of N
# ConfigMaps (default 5,000, ~500 bytes of YAML each: a 2.5 MB manifest, a record of three chunk
# Secrets) is cast (revision 1), every ConfigMap changed and cast again (revision 2), then rolled
# back to 1 (revision 3), each a `./capstan --no-daemon` under /usr/bin/time -v on a control plane
# of its own, with the launcher's default JVM settings as users get them.
#
#   rollback.sh [--objects 5000] [--dir DIR] [--cp DIR] [--histogram SECONDS] [--capstan FILE] [--keep]
#
#   --capstan FILE     the launcher to run (default: this checkout's ./capstan); a copy of the
#                      launcher beside capstan-cli/target/capstan-cli-all.jar measures a build kept
#                      aside, as the "before" of a change
#   --dir DIR          work folder (default ${TMPDIR:-/tmp}/capstan-rollback): the manifests, each
#                      step's output and time -v report, runs.tsv and table.md
#   --cp DIR           the control plane's folder (default DIR/cp); stopped and removed at the end
#   --histogram S      S seconds into the rollback, a heap histogram of its JVM
#                      (jcmd PID GC.class_histogram) to DIR/rollback-histogram.txt
#   --keep             leave the control plane running (stop it with testing/control-plane/stop.sh)
#
# Like for like: the cast of revision 2 and the rollback to 1 each change every ConfigMap (N
# PATCHes) and read one earlier record of the same size; the table compares the rollback with
# both casts. Requests come from the API server's audit log. Not part of ./mvnw verify.
#
# Latest run (5 December 2026, the 2-core machine shared, load average 5.6): the rollback 361 MB
# peak RSS, 14.5 s, 6.12 s CPU against the revision-2 cast's 317 MB, 12.8 s, 6.08 s (x1.14, x1.13,
# x1.01); before rollback --yes cast unreviewed and decoded one record, 439 MB, 44.7 s, 12.87 s.
# docs/benchmarks.md, "A large rollback".
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

objects=5000 dir=${TMPDIR:-/tmp}/capstan-rollback cp= keep=false histogram= capstan=$root/capstan
while (($# > 0)); do
  case $1 in
    --objects) objects=$2; shift ;;
    --dir) dir=$2; shift ;;
    --cp) cp=$2; shift ;;
    --histogram) histogram=$2; shift ;;
    --capstan) capstan=$2; shift ;;
    --keep) keep=true ;;
    -h | --help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "rollback.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
log() { printf '[rollback %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

"$root/testing/control-plane/build.sh" >&2
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
[[ -n $cp ]] || cp=$dir/cp
unset KUBECONFIG
"$root/testing/control-plane/start.sh" --dir "$cp" --audit --client capstan >/dev/null
# after start.sh, which would look for the control plane's binaries there too
export CAPSTAN_CACHE_DIR=$dir/capstan-cache
finish() { [[ $keep == true ]] || "$root/testing/control-plane/stop.sh" --dir "$cp" --purge >&2 || true; }
trap finish EXIT
audit=$cp/logs/audit.log

# manifest REV FILE: N ConfigMaps in namespace rb, their data naming the revision (~500 bytes each).
manifest() {
  awk -v n="$objects" -v rev="$1" 'BEGIN {
    pad = sprintf("%0300d", 0); gsub(/0/, "x", pad)
    for (i = 0; i < n; i++) {
      printf "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%05d\n  namespace: rb\n", i
      printf "  labels:\n    app.kubernetes.io/part-of: rollback-bench\ndata:\n"
      printf "  revision: \"%s\"\n  index: \"%d\"\n  payload: \"%s-%s-%d\"\n", rev, i, pad, rev, i
    } }' >"$2"
}
mkdir -p "$dir/rev1" "$dir/rev2"
manifest 1 "$dir/rev1/configmaps.yaml"
manifest 2 "$dir/rev2/configmaps.yaml"
log "fixture: $objects ConfigMaps, $(wc -c <"$dir/rev1/configmaps.yaml") bytes of YAML per revision"

runs_tsv=$dir/runs.tsv
: >"$runs_tsv"
# step NAME ARGS...: one timed capstan command; appends NAME, peak RSS KiB, wall ms, CPU ms,
# requests, PATCHes to runs.tsv.
step() {
  local name=$1 t0 t1 n first last patches rss wall cpu pid
  shift
  t0=$(now_us)
  /usr/bin/time -v -o "$dir/$name.time" "$capstan" --no-daemon --kubeconfig "$cp/kubeconfig-capstan" "$@" \
    >"$dir/$name.out" 2>&1 &
  pid=$!
  if [[ -n $histogram && $name == rollback ]]; then
    sleep "$histogram"
    local jvm
    jvm=$(pgrep -P "$pid" | head -n 1 || true)
    if [[ -n $jvm ]]; then
      jcmd "$jvm" GC.class_histogram >"$dir/rollback-histogram.txt" 2>&1 || true
      log "heap histogram at ${histogram}s: $dir/rollback-histogram.txt"
    fi
  fi
  if ! wait "$pid"; then log "$name failed:"; tail -n 30 "$dir/$name.out" >&2; exit 1; fi
  t1=$(now_us)
  sleep 0.5 # the last audit event lands
  read -r n first last < <(audit_summary "$audit" capstan "$t0" "$t1")
  patches=$(audit_verbs "$audit" capstan "$t0" "$t1" | awk '$1 == "patch" {n += $3} END {print n + 0}')
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$dir/$name.time")
  cpu=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {printf "%d", (u + s) * 1000}' "$dir/$name.time")
  # the command's own wall time (time -v): t1 also waits out --histogram's sleep
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0
    for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%d", s * 1000}' "$dir/$name.time")
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$rss" "$wall" "$cpu" "$n" "$patches" >>"$runs_tsv"
  log "$(printf '%-9s peak RSS %5d MB, %7d ms wall, %7d ms CPU, %5d requests (%d PATCH)' \
    "$name" $((rss / 1024)) "$wall" "$cpu" "$n" "$patches")"
}

# untimed: the launcher's class cache written by a first command, so no step pays for it
CAPSTAN_DAEMON=false "$capstan" --no-daemon --kubeconfig "$cp/kubeconfig-capstan" release list -A >/dev/null
step cast1 release cast rb -n rb -f "$dir/rev1" --yes --create-namespace
step cast2 release cast rb -n rb -f "$dir/rev2" --yes
step rollback release rollback rb -n rb --to 1 --yes

col() { awk -F'\t' -v s="$1" -v c="$2" '$1 == s {print $c}' "$runs_tsv"; }
{
  echo "| $objects ConfigMaps, $(wc -c <"$dir/rev1/configmaps.yaml") bytes | peak RSS MB | wall s | CPU s | requests | PATCH |"
  echo "|---|---:|---:|---:|---:|---:|"
  for s in cast1 cast2 rollback; do
    printf '| %s | %d | %s | %s | %s | %s |\n' "$s" $(($(col "$s" 2) / 1024)) \
      "$(secs $(($(col "$s" 3) * 1000)))" "$(secs $(($(col "$s" 4) * 1000)))" "$(col "$s" 5)" "$(col "$s" 6)"
  done
  for s in cast1 cast2; do
    printf '| rollback ÷ %s | %s | %s | %s | | |\n' "$s" "$(ratio "$(col rollback 2)" "$(col "$s" 2)")" \
      "$(ratio "$(col rollback 3)" "$(col "$s" 3)")" "$(ratio "$(col rollback 4)" "$(col "$s" 4)")"
  done
  echo
  echo "Load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
} | tee "$dir/table.md"
