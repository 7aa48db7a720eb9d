#!/usr/bin/env bash
# Fleet benchmark: many small releases, W at once, on one throw-away control plane, each tool with a
# client certificate of its own so the API server's audit log counts its requests. N releases of 6
# objects each (a Deployment of one replica reading its 3 ConfigMaps and its Secret, and a headless
# Service), every tool in a namespace of its own (fleet-TOOL), through 4 phases: install, no-op (the
# identical cast again), upgrade (each release's app ConfigMap and its Deployment's image changed:
# a rollout each) and uninstall. Within a phase the tools take turns, one after the other, each W
# releases at once, so a change in the machine's load reaches all of them alike; RUNS cycles.
#
#   fleet.sh [--releases 200] [--width 16] [--runs 1]
#            [--tools "capstan-lib capstan-fleet capstan capstan-daemon helm3 helm4 kubectl"]
#            [--dir DIR] [--keep] [--report-only]
#
#   --releases N     releases per tool (default 200)
#   --width W        releases at once (default 16)
#   --dir DIR        work folder (default ${TMPDIR:-/tmp}/capstan-fleet): the generated releases
#                    (DIR/objects), each command's output (DIR/out), DIR/windows.tsv (one line per
#                    phase of a tool: phase, tool, run, failed releases, start and end in µs),
#                    DIR/audit.log (kept), DIR/results.tsv (those lines with their requests:
#                    window_requests in lib.sh) and DIR/table.md
#   --keep           leave the control plane running (stop it with testing/control-plane/stop.sh)
#   --report-only    print the tables again from DIR/windows.tsv and DIR/audit.log; runs nothing
#
# The tools, each release a command of its own but for the library:
#   capstan-lib      the library embedded: one JVM (FleetDriver in benchmarks-all.jar) over one
#                    ReleaseController on the Kubernetes adapter, W threads, started before the
#                    warm-up and kept for every phase; a cast() per release
#   capstan-fleet    the same, a JVM of its own, casting each phase's releases with one
#                    ReleaseController.castAll (W at once), which leaves the releases already as
#                    asked alone after reads shared by all of them and casts the others in groups
#                    that read together under their leases; uninstalling them with one
#                    ReleaseController.uninstallAll, in groups alike
#   capstan          `capstan release cast REL -n NS -f DIR --yes` / `release uninstall REL -n NS
#                    --purge --yes`, a JVM per command (CAPSTAN_DAEMON=false), W at once (xargs -P)
#   capstan-daemon   the same commands through `./capstan daemon start --jobs W`: the daemon runs
#                    all W at once (past its bound a command would run in a JVM of its own)
#   helm3, helm4     `helm upgrade --install REL CHART --wait --qps 200 --burst-limit 1000` /
#                    `helm uninstall`, the chart's templates the same files as the manifests
#   kubectl          `kubectl apply --server-side` then `kubectl rollout status deployment/REL` /
#                    `kubectl delete -f`
#
# A release that fails is counted (the tables say how many) and the run goes on. Builds what is
# missing first: the control plane and kubectl, Helm 3 and 4, the CLI jar (./capstan) and
# benchmarks/target/benchmarks-all.jar. Capstan's class cache and daemon live in DIR/capstan-cache
# (CAPSTAN_CACHE_DIR), apart from other checkouts'. Not part of ./mvnw verify. The latest run and
# where the time goes: docs/benchmarks.md, "A fleet: many small releases, 16 at once".
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=lib.sh
source "$here/lib.sh"

releases=200 width=16 runs=1 tools="capstan-lib capstan-fleet capstan capstan-daemon helm3 helm4 kubectl"
dir=${TMPDIR:-/tmp}/capstan-fleet keep=false report_only=false
while (($# > 0)); do
  case $1 in
    --releases) releases=$2; shift ;;
    --width) width=$2; shift ;;
    --runs) runs=$2; shift ;;
    --tools) tools=$2; shift ;;
    --dir) dir=$2; shift ;;
    --keep) keep=true ;;
    --report-only) report_only=true ;;
    -h | --help) sed -n '2,41p' "$0"; exit 0 ;;
    *) echo "fleet.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
for tool in $tools; do
  case $tool in
    capstan-lib | capstan-fleet | capstan | capstan-daemon | helm3 | helm4 | kubectl) ;;
    *) echo "fleet.sh: unknown tool: $tool" >&2; exit 2 ;;
  esac
done
phases="install no-op upgrade uninstall"
log() { printf '[fleet %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
has() { [[ " $tools " == *" $1 "* ]]; }

report() {
  audit_events "$audit" >"$dir/events.tsv"
  # phase, tool, run, failed, then µs, requests, first, last, object writes, Lease writes, record
  # writes, LISTs, WATCHes, GETs, others (columns 5-15)
  window_requests "$windows" "$dir/events.tsv" 2 >"$results"
  med() { col_median "$results" "$3" "$1" "$2"; } # med PHASE TOOL COLUMN
  # The floor: what a fleet in one namespace cannot do without, whatever the tool: one write per
  # object that changes (install 6 creates, upgrade 2 updates, uninstall 6 deletes per release) and
  # one LIST per kind and namespace (4: Deployments, Services, ConfigMaps, Secrets), no record, no
  # lease, no watch.
  floor() {
    case $1 in
      install | uninstall) echo $((6 * releases + 4)) ;; no-op) echo 4 ;; upgrade) echo $((2 * releases + 4)) ;;
    esac
  }
  # The floor with each release's bookkeeping: the floor, plus the 3 writes a release that records
  # its revision cannot do without (take its lease, give it up, write its record: the "+ 3" of
  # issue 26's writes line) on every phase that changes it; none on the no-op, which records
  # nothing.
  bookkept_floor() {
    case $1 in
      no-op) floor "$1" ;; *) echo $(($(floor "$1") + 3 * releases)) ;;
    esac
  }
  # The per-release floor (RequestCountIT's, release-k8s/README.md): what each release costs on its
  # own: one LIST per kind (4), one write per changed object, one WATCH per kind waited for (the
  # Deployment and its Pods, when it rolls out) and its bookkeeping (read the record, take the
  # lease, give it up, write the record: 4).
  release_floor() {
    case $1 in
      install) echo $(((4 + 6 + 2 + 4) * releases)) ;; no-op) echo $(((4 + 4) * releases)) ;;
      upgrade) echo $(((4 + 2 + 2 + 4) * releases)) ;; uninstall) echo $(((4 + 6 + 4) * releases)) ;;
    esac
  }
  capstans=() short=()
  for tool in capstan-lib capstan-fleet capstan capstan-daemon; do
    has "$tool" || continue
    capstans+=("$tool")
    case $tool in
      capstan-lib) short+=(lib) ;; capstan-fleet) short+=(fleet) ;; capstan) short+=(JVM) ;; capstan-daemon) short+=(daemon) ;;
    esac
  done
  per() { awk -v n="$1" -v r="$releases" 'BEGIN {v = n / r; if (v == int(v)) printf "%d", v; else printf "%.1f", v}'; }
  {
    echo "Wall time, exec to exit of the phase's last command ($releases releases, $width at once):"
    echo
    header=(phase)
    for tool in $tools; do header+=("$(tool_name "$tool")"); done
    md_row "${header[@]}"
    md_rule ${#header[@]}
    for phase in $phases; do
      row=("$phase")
      for tool in $tools; do
        t=$(med "$phase" "$tool" 5)
        cell="$(secs "$t") s"
        if [[ $tool != capstan* && ${#capstans[@]} -gt 0 ]]; then
          rs=()
          for c in "${capstans[@]}"; do rs+=("×$(ratio "$(med "$phase" "$c" 5)" "$t")"); done
          joined=$(IFS=/; echo "${rs[*]}")
          cell+=" (${joined//\// / })"
        fi
        row+=("$cell")
      done
      md_row "${row[@]}"
    done
    echo
    if ((${#capstans[@]} > 0)); then
      joined=$(IFS=/; echo "${short[*]}")
      echo "(×${joined//\// / ×}): that Capstan's time ÷ the tool's; below 1, Capstan is ahead."
      echo
    fi
    echo "Requests (the tool's own, from the audit log), and their multiples of the fleet floor (object writes + one LIST per kind and namespace) / of that floor with each changed release's 3 bookkeeping writes (lease taken and given up, record) / of the per-release floor (each release's own LISTs, writes, WATCHes while waiting, record and lease):"
    echo
    header=(phase floor "floor + bookkeeping" "per-release floor")
    for tool in $tools; do header+=("$(tool_name "$tool")"); done
    md_row "${header[@]}"
    md_rule ${#header[@]}
    times() { awk -v n="$1" -v f="$2" 'BEGIN {printf "%.2f", n / f}'; }
    for phase in $phases; do
      f=$(floor "$phase") b=$(bookkept_floor "$phase") g=$(release_floor "$phase")
      row=("$phase" "$f" "$b" "$g")
      for tool in $tools; do
        n=$(med "$phase" "$tool" 6)
        row+=("$n (×$(times "$n" "$f") / ×$(times "$n" "$b") / ×$(times "$n" "$g"))")
      done
      md_row "${row[@]}"
    done
    echo
    if ((${#capstans[@]} > 0)); then
      echo "Capstan's requests per release: object writes + Lease writes + record writes; reads (LIST / WATCH / GET):"
      echo
      header=(phase)
      for tool in "${capstans[@]}"; do header+=("$(tool_name "$tool")"); done
      md_row "${header[@]}"
      md_rule ${#header[@]}
      for phase in $phases; do
        row=("$phase")
        for tool in "${capstans[@]}"; do
          row+=("$(per "$(med "$phase" "$tool" 9)") + $(per "$(med "$phase" "$tool" 10)") + $(per "$(med "$phase" "$tool" 11)"); $(per "$(med "$phase" "$tool" 12)") / $(per "$(med "$phase" "$tool" 13)") / $(per "$(med "$phase" "$tool" 14)")")
        done
        md_row "${row[@]}"
      done
      echo
    fi
    awk -F'\t' -v runs="$runs" -v n="$releases" '
      { total++; failed += $4; if ($4 > 0) bad = bad sprintf("%s%s %s run %s: %d", (bad == "" ? "" : ", "), $2, $1, $3, $4) }
      END { printf "%d failed of %d commands (%d phases of %d releases); medians of %d run(s).%s\n", failed, total * n, total, n, runs,
              bad == "" ? "" : " Failed: " bad "." }' "$windows"
  } | tee "$dir/table.md"
}

if [[ $report_only == true ]]; then
  dir=$(cd "$dir" && pwd)
  results=$dir/results.tsv windows=$dir/windows.tsv audit=$dir/audit.log
  tools=$(cut -f2 "$windows" | awk '!seen[$0]++' | xargs)
  runs=$(cut -f3 "$windows" | sort -n | tail -n 1)
  releases=$(cat "$dir/releases")
  width=$(cat "$dir/width")
  report
  exit 0
fi

# --- tools ----------------------------------------------------------------------------------------
if has helm3 || has helm4; then need_tools helm; else need_tools; fi
capstan=$root/capstan
bench_jar=$root/benchmarks/target/benchmarks-all.jar
if { has capstan-lib || has capstan-fleet; } && { [[ ! -f $bench_jar ]] ||
  [[ -n $(find "$root"/*/src/main "$root"/*/pom.xml "$root/pom.xml" -newer "$bench_jar" \( -name '*.java' -o -name pom.xml \) -print -quit) ]]; }; then
  log "building $bench_jar"
  (cd "$root" && ./mvnw -q -B -DskipTests -Dspotless.check.skip=true -pl benchmarks -am package) >&2
fi
if has capstan || has capstan-daemon; then "$capstan" --version >/dev/null; fi # builds the CLI jar when stale

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cp=$dir/cp
echo "$releases" >"$dir/releases"
echo "$width" >"$dir/width"
# kwok nodes take 110 pods each: every tool's releases stand at once between phases, and an upgrade
# surges one pod per release
# shellcheck disable=SC2086 # the tools are words
set -- $tools
nodes=$((($# * releases + releases + 10 + 109) / 110 + 1))
# shellcheck disable=SC2086 # one client certificate per tool
start_audited "$cp" "$dir" "$nodes" $tools
audit=$dir/audit.log
tool_homes "$dir"
# after start.sh and need_tools, which look for their binaries there too
export CAPSTAN_CACHE_DIR=$dir/capstan-cache
declare -A driver_pid driver_in driver_out
finish() {
  local tool i
  for tool in "${!driver_pid[@]}"; do
    # the end of its input ends the driver; a driver stuck in a command is stopped
    [[ -z ${driver_in[$tool]:-} ]] || exec {driver_in[$tool]}>&-
    for ((i = 0; i < 50; i++)); do kill -0 "${driver_pid[$tool]}" 2>/dev/null || break; sleep 0.1; done
    kill "${driver_pid[$tool]}" 2>/dev/null || true
    wait "${driver_pid[$tool]}" 2>/dev/null || true
  done
  ! has capstan-daemon || "$capstan" daemon stop >&2 || true
  [[ $keep == true ]] || stop_audited "$cp"
}
trap finish EXIT

# --- the releases ---------------------------------------------------------------------------------
# gen_release OUT NAME VERSION: release NAME at VERSION (1, or 2: the app ConfigMap and the image
# changed) as OUT/manifests/release.yaml and as the chart OUT/chart (the same file its template).
gen_release() {
  local out=$1 name=$2 version=$3 image=1.0.0 mode=blue
  if ((version == 2)); then image=1.1.0 mode=green; fi
  mkdir -p "$out/manifests" "$out/chart/templates"
  printf 'apiVersion: v2\nname: fleet\ndescription: Capstan fleet benchmark, one release\ntype: application\nversion: 1.0.0\n' \
    >"$out/chart/Chart.yaml"
  cat >"$out/manifests/release.yaml" <<YAML
apiVersion: v1
kind: ConfigMap
metadata:
  name: $name-app
  labels:
    app: $name
data:
  app.properties: |
    mode=$mode
    threads=8
    queue.capacity=1000
    cache.ttl=300s
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: $name-env
  labels:
    app: $name
data:
  LOG_LEVEL: info
  REGION: local-1
  FEATURE_FLAGS: search,export
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: $name-files
  labels:
    app: $name
data:
  nginx.conf: |
    server {
      listen 8080;
      location / { proxy_pass http://127.0.0.1:9000; }
    }
---
apiVersion: v1
kind: Secret
metadata:
  name: $name-credentials
  labels:
    app: $name
type: Opaque
data:
  username: $(printf 'app-%s' "$name" | base64 -w0)
  password: $(printf 'pw-%s' "$name" | sha256sum | cut -c1-24 | base64 -w0)
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $name
  labels:
    app: $name
spec:
  replicas: 1
  selector:
    matchLabels:
      app: $name
  template:
    metadata:
      labels:
        app: $name
    spec:
      containers:
      - name: app
        image: registry.example/fleet/app:$image
        envFrom:
        - configMapRef:
            name: $name-env
        env:
        - name: DB_PASSWORD
          valueFrom:
            secretKeyRef:
              name: $name-credentials
              key: password
        ports:
        - containerPort: 8080
        volumeMounts:
        - name: app
          mountPath: /etc/app
        - name: files
          mountPath: /etc/files
      volumes:
      - name: app
        configMap:
          name: $name-app
      - name: files
        configMap:
          name: $name-files
---
apiVersion: v1
kind: Service
metadata:
  name: $name
  labels:
    app: $name
spec:
  clusterIP: None
  selector:
    app: $name
  ports:
  - name: http
    port: 80
    targetPort: 8080
YAML
  cp "$out/manifests/release.yaml" "$out/chart/templates/"
}
gen=$dir/objects
rm -rf "$gen"
names=()
for ((i = 1; i <= releases; i++)); do
  name=$(printf 'rel-%04d' "$i")
  names+=("$name")
  gen_release "$gen/v1/$name" "$name" 1
  gen_release "$gen/v2/$name" "$name" 2
done
gen_release "$gen/warm/warm-0001" warm-0001 1
gen_release "$gen/warm/warm-0002" warm-0002 1
log "generated $releases releases of 6 objects, v1 and v2 (app ConfigMap and image changed), in $gen"

# --- running a phase ------------------------------------------------------------------------------
# one TOOL PHASE NS VDIR REL: release REL's command of TOOL in PHASE (VDIR/REL: its manifests and
# chart), its output in $out_dir/REL.log; when it fails, "REL EXIT" appended to $failed_file. Run by
# xargs, W at once; always exits 0.
one() {
  local tool=$1 phase=$2 ns=$3 rel=$5 rc=0
  local objects=$4/$5 kc=$cp/kubeconfig-$1
  {
    case $tool in
      capstan | capstan-daemon)
        # the plain tool never uses a daemon; capstan-daemon does when one runs (else a JVM)
        local use=false
        [[ $tool == capstan ]] || use=true
        if [[ $phase == uninstall ]]; then
          CAPSTAN_DAEMON=$use "$capstan" --kubeconfig "$kc" release uninstall "$rel" -n "$ns" --purge --yes
        else
          CAPSTAN_DAEMON=$use "$capstan" --kubeconfig "$kc" release cast "$rel" -n "$ns" -f "$objects/manifests" --yes
        fi ;;
      helm3 | helm4)
        local flags=(--kubeconfig "$kc" -n "$ns" --qps 200 --burst-limit 1000)
        if [[ $phase == uninstall ]]; then
          "$helm_bin/$tool" uninstall "$rel" "${flags[@]}"
        else
          "$helm_bin/$tool" upgrade --install "$rel" "$objects/chart" "${flags[@]}" --wait --timeout 10m
        fi ;;
      kubectl)
        if [[ $phase == uninstall ]]; then
          "$kubectl" --kubeconfig "$kc" delete -n "$ns" -f "$objects/manifests"
        else
          "$kubectl" --kubeconfig "$kc" apply --server-side --field-manager=bench -n "$ns" -f "$objects/manifests" &&
            "$kubectl" --kubeconfig "$kc" rollout status "deployment/$rel" -n "$ns" --timeout=10m
        fi ;;
    esac
  } >"$out_dir/$rel.log" 2>&1 || rc=$?
  ((rc == 0)) || echo "$rel $rc" >>"$failed_file"
  return 0
}
export -f one
export capstan kubectl cp
export helm_bin=${helm_bin:-}

# The library's drivers: a JVM per tool for the whole benchmark, commands through a pair of FIFOs.
for tool in capstan-lib capstan-fleet; do
  has "$tool" || continue
  fifo=$dir/driver-$tool
  rm -f "$fifo.in" "$fifo.out"
  mkfifo "$fifo.in" "$fifo.out"
  java -cp "$bench_jar" dev.capstan.benchmarks.FleetDriver --kubeconfig "$cp/kubeconfig-$tool" \
    --width "$width" <"$fifo.in" >"$fifo.out" 2>>"$dir/$tool.err" &
  driver_pid[$tool]=$!
  exec {fd_in}>"$fifo.in" {fd_out}<"$fifo.out"
  driver_in[$tool]=$fd_in driver_out[$tool]=$fd_out
done

# phase TOOL PHASE NS VDIR REL...: runs the releases' commands of TOOL in PHASE, W at once; sets
# failed to how many failed (their output: $out_dir).
phase() {
  local tool=$1 phase=$2 ns=$3 vdir=$4 word ok ms
  shift 4
  : >"$failed_file"
  if [[ $tool == capstan-lib || $tool == capstan-fleet ]]; then
    local verb=cast
    [[ $tool != capstan-fleet ]] || verb=cast-all
    if [[ $phase == uninstall ]]; then
      verb=uninstall
      [[ $tool != capstan-fleet ]] || verb=uninstall-all
    fi
    echo "$verb $ns $vdir" >&"${driver_in[$tool]}"
    read -r word ok failed ms <&"${driver_out[$tool]}" || { log "the library's driver stopped: $dir/$tool.err"; exit 1; }
    [[ $word == "done" ]] || { log "the library's driver answered: $word $ok $failed $ms"; exit 1; }
    return 0
  fi
  # shellcheck disable=SC2016 # expanded by the shell xargs starts
  printf '%s\n' "$@" | xargs -P "$width" -n 1 bash -c 'one "$@"' one "$tool" "$phase" "$ns" "$vdir"
  failed=$(wc -l <"$failed_file")
}

# --- warm-up, untimed: two releases per tool (kubectl's discovery cache, Helm's first run, the CLI's
# class cache, trained by its first cluster command, the driver's first casts) ------------------------
out_dir=$dir/out/warm failed_file=$dir/out/warm/failed
mkdir -p "$out_dir"
export out_dir failed_file
for tool in $tools; do
  admin create namespace "warm-$tool" >/dev/null
  admin create namespace "fleet-$tool" >/dev/null
  if [[ $tool == capstan-daemon ]]; then
    "$capstan" daemon stop >/dev/null
    "$capstan" daemon start --jobs "$width" >&2
  fi
  log "warm-up: $tool"
  for p in install uninstall; do
    phase "$tool" "$p" "warm-$tool" "$gen/warm" warm-0001 warm-0002
    ((failed == 0)) || { log "warm-up $p failed for $tool: $out_dir"; cat "$failed_file" >&2; exit 1; }
  done
done

# --- the measured phases --------------------------------------------------------------------------
results=$dir/results.tsv
windows=$dir/windows.tsv
: >"$windows"
read -ra order <<<"$tools"
for ((r = 1; r <= runs; r++)); do
  # each run starts one tool later, so no tool is always first after a phase change
  k=$(((r - 1) % ${#order[@]}))
  turn=("${order[@]:k}" "${order[@]:0:k}")
  for p in $phases; do
    vdir=$gen/v1
    [[ $p != upgrade ]] || vdir=$gen/v2
    for tool in "${turn[@]}"; do
      ns=fleet-$tool
      if [[ $tool == capstan-daemon ]] && ! "$capstan" daemon status >/dev/null; then
        log "the Capstan daemon stopped: its log is in $CAPSTAN_CACHE_DIR/daemon"; exit 1
      fi
      out_dir=$dir/out/r$r-$p-$tool failed_file=$dir/out/r$r-$p-$tool/failed
      mkdir -p "$out_dir"
      t0=$(now_us)
      phase "$tool" "$p" "$ns" "$vdir" "${names[@]}"
      t1=$(now_us)
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$p" "$tool" "$r" "$failed" "$t0" "$t1" >>"$windows"
      log "run $r $p $tool: $(secs $((t1 - t0))) s, $failed failed"
      if [[ $p == uninstall ]]; then drain "$ns"; else settle "$ns"; fi
    done
  done
done

sleep 1 # the last audit events land
report
