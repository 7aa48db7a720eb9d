#!/usr/bin/env bash
# Side-by-side benchmark: Capstan (`capstan-default`: the launcher as the README's user runs it,
# whose first command starts the daemon beside it; `capstan`: a JVM per command, --no-daemon; and
# `capstan-daemon`: the daemon started by hand before the tool's warm-up), Helm 3 and Helm 4 (tuned:
# --qps 200 --burst-limit 1000; and Helm 4 at its defaults) and kubectl server-side apply + kubectl
# wait, on one throw-away control
# plane, each tool with a client certificate of its own so the API server's audit log counts its
# requests. For each size M it runs install / no-op / 5 changed / uninstall, RUNS times per tool,
# and prints the medians as a Markdown table with ratios (Capstan's time ÷ the tool's; with two
# Capstan tools, "×JVM / ×default", or ×daemon without capstan-default) and the request floor.
# Run it without CI=true: under CI the default launcher starts no daemon.
#
#   compare.sh [--sizes "100 500"] [--runs 3]
#              [--tools "capstan-default capstan helm3 helm4 helm4-default kubectl"]
#              [--dir DIR] [--keep] [--report-only]
#
#   --dir DIR        work folder: generated objects, the control plane, raw results (default
#                    ${TMPDIR:-/tmp}/capstan-compare): DIR/windows.tsv (one line per run: size,
#                    step, tool, run, start and end in µs), DIR/audit.log (the API server's audit
#                    log, kept), DIR/results.tsv (with requests) and DIR/table.md
#   --keep           leave the control plane running (stop it with testing/control-plane/stop.sh)
#   --report-only    print the table again from DIR/windows.tsv and DIR/audit.log; runs nothing
#
# Builds what is missing first: the control plane and kubectl (testing/control-plane/build.sh),
# Helm 3 and 4 (testing/helm/build.sh), the Capstan CLI jar (./capstan). Not part of ./mvnw verify.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

sizes="100 500" runs=3 tools="capstan-default capstan helm3 helm4 helm4-default kubectl"
dir=${TMPDIR:-/tmp}/capstan-compare keep=false report_only=false
while (($# > 0)); do
  case $1 in
    --sizes) sizes=$2; shift ;;
    --runs) runs=$2; shift ;;
    --tools) tools=$2; shift ;;
    --dir) dir=$2; shift ;;
    --keep) keep=true ;;
    --report-only) report_only=true ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "compare.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
log() { printf '[compare %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

user_of() { case $1 in helm4-default) echo helm4 ;; *) echo "$1" ;; esac; }
name_of() { tool_name "$1"; }

report() {
  # the second Capstan column of the ratios: the default launcher, else the daemon started by hand
  second=capstan-daemon
  [[ " $tools " != *" capstan-default "* ]] || second=capstan-default
  # --- requests from the audit log, then the table ----------------------------------------------------
  # One pass over the audit log (user, verb, received and completed in µs), then each run's window.
  audit_events "$audit" >"$dir/events.tsv"
  window_requests "$windows" "$dir/events.tsv" 3 helm4-default=helm4 >"$results"

  med() { col_median "$results" "$4" "$1" "$2" "$3"; } # med M STEP TOOL COLUMN (5 = µs, 6 = requests, 7, 8)
  floor() { # floor M STEP: object writes + one LIST per kind (2) + watches while waiting (2) + 4 record/lease
    case $2 in
      install) echo $(($1 + 8)) ;; no-op) echo 6 ;; 5-changed) echo 13 ;; uninstall) echo $(($1 + 6)) ;;
    esac
  }
  {
    header=(step)
    for tool in $tools; do header+=("$(name_of "$tool")"); done
    md_row "${header[@]}" "floor (requests)"
    md_rule $((${#header[@]} + 1))
    for m in $sizes; do
      for s in install no-op 5-changed uninstall; do
        printf '| M=%s %s |' "$m" "$s"
        c=$(med "$m" "$s" capstan 5 || true) d=$(med "$m" "$s" "$second" 5 || true)
        for tool in $tools; do
          t=$(med "$m" "$s" "$tool" 5) n=$(med "$m" "$s" "$tool" 6)
          cell=$(awk -v t="$t" -v n="$n" 'BEGIN {printf "%.2f s, %d req", t / 1e6, n}')
          if [[ $tool != capstan* ]]; then # (×JVM / ×default), or the one Capstan tool's ratio
            cell+=$(awk -v c="$c" -v d="$d" -v t="$t" 'BEGIN {
              if (c != "" && d != "") printf " (×%.2f / ×%.2f)", c / t, d / t
              else if (c != "" || d != "") printf " (×%.2f)", (c != "" ? c : d) / t }')
          fi
          printf ' %s |' "$cell"
        done
        f=$(floor "$m" "$s")
        base=capstan
        [[ -n $c ]] || base="$second"
        if [[ -n $c || -n $d ]]; then
          printf ' %s (Capstan ×%s) |\n' "$f" "$(awk -v n="$(med "$m" "$s" "$base" 6)" -v f="$f" 'BEGIN {printf "%.2f", n / f}')"
        else
          printf ' %s |\n' "$f"
        fi
      done
    done
    echo
    echo "Medians of $runs runs; (×R) = Capstan's time ÷ that tool's time (below 1: Capstan is ahead);"
    echo "with two Capstan tools, (×JVM / ×${second#capstan-})."
    for tool in capstan-default capstan capstan-daemon; do
      [[ " $tools " == *" $tool "* ]] || continue
      for m in $sizes; do
        printf '%s M=%s, first request after exec / exit after last response (ms):' "$(name_of "$tool")" "$m"
        for s in install no-op 5-changed uninstall; do
          printf ' %s %s/%s' "$s" "$(ms "$(med "$m" "$s" "$tool" 7)")" "$(ms "$(med "$m" "$s" "$tool" 8)")"
        done
        echo
      done
    done
  } | tee "$dir/table.md"
}

if [[ $report_only == true ]]; then
  dir=$(cd "$dir" && pwd)
  results=$dir/results.tsv windows=$dir/windows.tsv audit=$dir/audit.log
  sizes=$(cut -f1 "$windows" | awk '!seen[$0]++' | xargs)
  tools=$(cut -f3 "$windows" | awk '!seen[$0]++' | xargs)
  runs=$(cut -f4 "$windows" | sort -n | tail -n 1)
  report
  exit 0
fi

# --- tools ----------------------------------------------------------------------------------------
need_tools helm
capstan=$root/capstan

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cp=$dir/cp
# kwok nodes take 110 pods each: room for the largest size's pods, a rollout's surge and one spare.
# shellcheck disable=SC2086 # the sizes are words
max_m=$(printf '%s\n' $sizes | sort -n | tail -n 1)
nodes=$(((max_m / 2 + 10 + 109) / 110 + 1))
((nodes >= 2)) || nodes=2
start_audited "$cp" "$dir" "$nodes" capstan capstan-default capstan-daemon helm3 helm4 kubectl
stop_cp() {
  [[ " $tools " != *" capstan-daemon "* && " $tools " != *" capstan-default "* ]] || "$capstan" daemon stop >&2 || true
  [[ $keep == true ]] || stop_audited "$cp"
}
trap stop_cp EXIT
audit=$dir/audit.log
tool_homes "$dir"

# step TOOL STEP NS OBJECTS: runs one step of one tool (OBJECTS: the generated folder).
step() {
  local tool=$1 step=$2 ns=$3 objects=$4
  local kc
  kc=$cp/kubeconfig-$(user_of "$tool")
  case $tool in
    capstan | capstan-daemon | capstan-default)
      # capstan never uses a daemon; capstan-daemon only the one started by hand (it starts none:
      # CAPSTAN_DAEMON=true with CI=true); capstan-default as the README's user runs it
      local run=("$capstan")
      case $tool in
        capstan) run=(env CAPSTAN_DAEMON=false "$capstan") ;;
        capstan-daemon) run=(env CAPSTAN_DAEMON=true CI=true "$capstan") ;;
      esac
      if [[ $step == uninstall ]]; then
        "${run[@]}" --kubeconfig "$kc" release uninstall bench -n "$ns" --purge --yes
      else
        "${run[@]}" --kubeconfig "$kc" release cast bench -n "$ns" -f "$objects/manifests" --yes
      fi ;;
    helm3 | helm4 | helm4-default)
      local h=$helm_bin/${tool%-default} flags=(--kubeconfig "$kc" -n "$ns")
      [[ $tool == *-default ]] || flags+=(--qps 200 --burst-limit 1000)
      case $step in
        install) "$h" install bench "$objects/chart" "${flags[@]}" --wait --timeout 10m ;;
        uninstall) "$h" uninstall bench "${flags[@]}" ;;
        *) "$h" upgrade bench "$objects/chart" "${flags[@]}" --wait --timeout 10m ;;
      esac ;;
    kubectl)
      if [[ $step == uninstall ]]; then
        "$kubectl" --kubeconfig "$kc" delete -n "$ns" -f "$objects/manifests"
      else
        "$kubectl" --kubeconfig "$kc" apply --server-side --field-manager=bench -n "$ns" -f "$objects/manifests" &&
          "$kubectl" --kubeconfig "$kc" wait --for=condition=Available deployment --all -n "$ns" --timeout=10m
      fi ;;
  esac
}

results=$dir/results.tsv
windows=$dir/windows.tsv
: >"$windows"

# Warm-up, untimed: one small install and uninstall per tool (kubectl's discovery cache, Helm's
# first run, Capstan's class-data sharing archive, written by its launcher on a first run).
gen_dir=$dir/objects
"$here/gen.sh" "$gen_dir/warm" 2
for tool in $tools; do
  ns=warm-$tool
  admin create namespace "$ns" >/dev/null
  case $tool in
    capstan-daemon) "$capstan" daemon stop >/dev/null; "$capstan" daemon start >&2 ;;
    capstan-default) "$capstan" daemon stop >/dev/null ;; # its first command starts it
  esac
  log "warm-up: $tool"
  step "$tool" install "$ns" "$gen_dir/warm" >/dev/null 2>&1 || { log "warm-up install failed for $tool"; step "$tool" install "$ns" "$gen_dir/warm"; }
  step "$tool" uninstall "$ns" "$gen_dir/warm" >/dev/null 2>&1
  if [[ $tool == capstan-default ]]; then # the daemon its first command started, warmed up
    for ((i = 0; i < 600; i++)); do "$capstan" daemon status >/dev/null 2>&1 && break; sleep 0.05; done
    [[ ${CI:-} == true ]] && log "CI=true: the default launcher starts no daemon; capstan-default runs a JVM per command"
  fi
done

for m in $sizes; do
  "$here/gen.sh" "$gen_dir/m$m-v1" "$m"
  "$here/gen.sh" "$gen_dir/m$m-v2" "$m" 5
  for tool in $tools; do
    ns=bench-$tool-m$m
    admin create namespace "$ns" >/dev/null
    for ((r = 1; r <= runs; r++)); do
      for s in install no-op 5-changed uninstall; do
        objects=$gen_dir/m$m-v1
        [[ $s == 5-changed ]] && objects=$gen_dir/m$m-v2
        if [[ $tool == capstan-daemon || ($tool == capstan-default && ${CI:-} != true) ]] && ! "$capstan" daemon status >/dev/null; then
          log "the Capstan daemon stopped: its log is in ${CAPSTAN_CACHE_DIR:-$HOME/.cache/capstan}/daemon"; exit 1
        fi
        t0=$(now_us)
        if ! step "$tool" "$s" "$ns" "$objects" >"$dir/last.out" 2>&1; then
          log "$tool $s (M=$m, run $r) failed:"; tail -n 20 "$dir/last.out" >&2; exit 1
        fi
        t1=$(now_us)
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$m" "$s" "$tool" "$r" "$t0" "$t1" >>"$windows"
        log "M=$m $tool $s run $r: $(ms $((t1 - t0))) ms"
        if [[ $s == uninstall ]]; then drain "$ns"; else settle "$ns"; fi
      done
    done
  done
done

sleep 1 # the last audit events land
report
