# shellcheck shell=bash
# Shared by the benchmarks of this folder (compare.sh, fleet.sh, recast.sh, startup.sh): the tools
# they build, a control plane with an audit log and a client certificate per tool, timing a command,
# reading its requests from the API server's audit log (start.sh --audit), and the Markdown tables'
# helpers. Sourced, not run.

cmp_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

now_us() { local t; t=$(date +%s%N); echo $((t / 1000)); }

# audit_summary LOG USER FROM_US TO_US: prints "COUNT FIRST_RECEIVED_US LAST_COMPLETE_US" for the
# requests USER sent between FROM_US and TO_US (microseconds since the epoch, by
# requestReceivedTimestamp); watches are counted but do not end the window (they stay open until
# the client goes away). Prints "0 0 0" when there are none.
audit_summary() {
  local log=$1 user=$2 from=$3 to=$4
  jq -rn --arg u "$user" --argjson from "$from" --argjson to "$to" '
    def us: capture("(?<s>[^.]*)\\.(?<f>[0-9]{6})Z") | ((.s + "Z") | fromdateiso8601) * 1000000 + (.f | tonumber);
    [inputs | select(.user.username == $u)
      | {r: (.requestReceivedTimestamp | us), c: (.stageTimestamp | us), verb}
      | select(.r >= $from and .r <= $to)] as $e
    | if ($e | length) == 0 then "0 0 0"
      else "\($e | length) \($e | map(.r) | min) \([$e[] | select(.verb != "watch") | .c] | max // 0)" end
  ' "$log"
}

# audit_verbs LOG USER FROM_US TO_US: prints "verb resource count" lines, most frequent first.
audit_verbs() {
  local log=$1 user=$2 from=$3 to=$4
  jq -rn --arg u "$user" --argjson from "$from" --argjson to "$to" '
    def us: capture("(?<s>[^.]*)\\.(?<f>[0-9]{6})Z") | ((.s + "Z") | fromdateiso8601) * 1000000 + (.f | tonumber);
    [inputs | select(.user.username == $u) | select((.requestReceivedTimestamp | us) as $r | $r >= $from and $r <= $to)
      | "\(.verb) \(.objectRef.resource // .requestURI)"]
    | group_by(.) | map("\(.[0]) \(length)") | .[]' "$log" | sort -k3 -nr
}

# median N...: the median of integers (the lower middle one for an even count).
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }

# ms US: microseconds as milliseconds, rounded.
ms() { echo $((($1 + 500) / 1000)); }

# audit_events LOG: one line per request: user, verb, requestReceivedTimestamp and stageTimestamp
# in µs since the epoch, the resource (with /SUBRESOURCE; the path for a request of no resource)
# and the object's name ("-" for none), tab-separated.
audit_events() {
  jq -r '
    def us: capture("(?<s>[^.]*)\\.(?<f>[0-9]{6})Z") | ((.s + "Z") | fromdateiso8601) * 1000000 + (.f | tonumber);
    [.user.username, .verb, (.requestReceivedTimestamp | us), (.stageTimestamp | us),
     ((.objectRef.resource // null) as $r | if $r then $r + (if .objectRef.subresource then "/" + .objectRef.subresource else "" end)
      else .requestURI end),
     (.objectRef.name // "-")] | @tsv' "$1"
}

# window_requests WINDOWS EVENTS USER_FIELD [ALIAS=USER]...: one line per line of WINDOWS (tab-
# separated, its last two fields a window's start and end in µs since the epoch) with the requests
# EVENTS (audit_events' lines) has of the user named in field USER_FIELD (or, for a field ALIAS, of
# USER: a tool that sends as another) received in that window: the window's fields but the last two,
# then its length in µs, the requests, µs from its start to the first request and from the last
# response to its end (0 when there is none; watches, open until the client goes, do not count for
# the last), then the requests by what they do: object writes (create, update, patch, delete), Lease
# writes, release-record writes (Secrets named capstan.release.* or sh.helm.release.*, and a
# DELETECOLLECTION of Secrets: Capstan's purge of a release's records), LISTs, WATCHes, GETs and
# the others.
window_requests() {
  local windows=$1 events=$2 field=$3
  shift 3
  awk -F'\t' -v OFS='\t' -v field="$field" -v aliases="$*" '
    BEGIN { n = split(aliases, a, " "); for (i = 1; i <= n; i++) { split(a[i], kv, "="); alias[kv[1]] = kv[2] } }
    NR == FNR { w[NR] = $0; u[NR] = ($field in alias) ? alias[$field] : $field; t0[NR] = $(NF - 1); t1[NR] = $NF
      keep[NR] = NF - 2; nw = NR; next }
    { for (i = 1; i <= nw; i++) if (u[i] == $1 && $3 >= t0[i] && $3 <= t1[i]) {
        c[i]++; if (!(i in first) || $3 < first[i]) first[i] = $3
        if ($2 != "watch" && $4 > last[i]) last[i] = $4
        if ($2 ~ /^(create|update|patch|delete|deletecollection)$/) {
          if ($5 ~ /^leases/) lease[i]++
          else if ($5 ~ /^secrets/ && ($6 ~ /^(capstan\.release\.|sh\.helm\.release\.)/ || $2 == "deletecollection")) record[i]++
          else write[i]++
        } else if ($2 == "list") list[i]++
        else if ($2 == "watch") watch[i]++
        else if ($2 == "get") get[i]++
        else other[i]++
        break } }
    END { for (i = 1; i <= nw; i++) {
        split(w[i], f, "\t"); line = f[1]; for (j = 2; j <= keep[i]; j++) line = line OFS f[j]
        print line, t1[i] - t0[i], c[i] + 0, (i in first) ? first[i] - t0[i] : 0, (i in last) ? t1[i] - last[i] : 0,
          write[i] + 0, lease[i] + 0, record[i] + 0, list[i] + 0, watch[i] + 0, get[i] + 0, other[i] + 0 } }
  ' "$windows" "$events"
}

# col_median FILE COLUMN KEY...: the median of field COLUMN over FILE's tab-separated lines whose
# first fields are KEY...; prints nothing (and fails) when no line matches.
col_median() {
  local file=$1 col=$2 v
  shift 2
  v=$(awk -F'\t' -v c="$col" -v keys="$*" '
    BEGIN { n = split(keys, k, " ") }
    { for (i = 1; i <= n; i++) if ($i != k[i]) next; print $c }' "$file")
  # shellcheck disable=SC2086 # one value a line, each an argument
  [[ -n $v ]] && median $v
}

# --- tools and the control plane -------------------------------------------------------------------

# need_tools [helm]: builds what is missing (the control plane and its kubectl; with `helm`, Helm 3
# and 4: testing/helm/build.sh) and sets kubectl (the binary) and helm_bin (the folder of helm3 and
# helm4). The builds serialise on a lock, so a build under way elsewhere is waited for, not repeated.
# shellcheck disable=SC2034 # kubectl and helm_bin are the caller's
need_tools() {
  "$cmp_root/testing/control-plane/build.sh" >&2
  kubectl=$("$cmp_root/testing/control-plane/build.sh" --print-bin)/kubectl
  if [[ ${1:-} == helm ]]; then
    "$cmp_root/testing/helm/build.sh" >&2
    helm_bin=$("$cmp_root/testing/helm/build.sh" --print-bin)
  fi
}

# start_audited CP WORK NODES CLIENT...: starts a throw-away control plane in CP with an audit log,
# NODES kwok nodes and a client certificate per CLIENT (CP/kubeconfig-CLIENT), so the audit log
# names the tool of every request, and links the audit log to WORK/audit.log (a hard link where it
# can), so it outlives CP. Stop it with stop_audited.
start_audited() {
  local cp=$1 work=$2 nodes=$3 c args=()
  shift 3
  for c in "$@"; do args+=(--client "$c"); done
  "$cmp_root/testing/control-plane/start.sh" --dir "$cp" --audit --nodes "$nodes" "${args[@]}" >/dev/null
  rm -f "$work/audit.log"
  ln "$cp/logs/audit.log" "$work/audit.log" 2>/dev/null || ln -s "$cp/logs/audit.log" "$work/audit.log"
}

# stop_audited CP: stops that control plane and removes its folder (WORK/audit.log stays).
stop_audited() { "$cmp_root/testing/control-plane/stop.sh" --dir "$1" --purge >&2 || true; }

# tool_homes WORK: Helm and kubectl homes of their own under WORK/home, so no user's configuration
# or cache takes part; KUBECONFIG unset (every command names its kubeconfig).
tool_homes() {
  export HELM_CONFIG_HOME=$1/home/helm/config HELM_CACHE_HOME=$1/home/helm/cache HELM_DATA_HOME=$1/home/helm/data
  export KUBECACHEDIR=$1/home/kube-cache
  unset KUBECONFIG
}

# admin ARGS...: kubectl as the control plane's admin ($kubectl, $cp: set by the caller).
admin() { "$kubectl" --kubeconfig "$cp/kubeconfig" "$@"; }

# settle NS: untimed, as admin: every Deployment Available, no Pod terminating, a moment of quiet.
settle() {
  admin wait --for=condition=Available deployment --all -n "$1" --timeout=10m >/dev/null 2>&1 || true
  local i
  for ((i = 0; i < 300; i++)); do
    [[ -z $(admin get pods -n "$1" -o jsonpath='{range .items[?(@.metadata.deletionTimestamp)]}x{end}') ]] && break
    sleep 0.2
  done
  sleep 1
}

# drain NS: untimed, as admin: wait until the namespace has no pods left, then a moment of quiet.
drain() {
  local i
  for ((i = 0; i < 600; i++)); do
    [[ -z $(admin get pods -n "$1" -o name) ]] && break
    sleep 0.2
  done
  sleep 1
}

# --- tables ----------------------------------------------------------------------------------------

# tool_name TOOL: the name the tables give a tool.
tool_name() {
  case $1 in
    capstan-lib) echo "Capstan library" ;; capstan-fleet) echo "Capstan castAll/uninstallAll" ;; capstan) echo "Capstan (JVM)" ;; capstan-daemon) echo "Capstan daemon" ;; capstan-default) echo "Capstan (default)" ;;
    helm3) echo "Helm 3 tuned" ;; helm4) echo "Helm 4 tuned" ;; helm4-default) echo "Helm 4 default" ;;
    kubectl) echo "kubectl SSA" ;; *) echo "$1" ;;
  esac
}

# ratio A B: A ÷ B with two decimals; nothing when either is empty or B is 0.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b != "" && b != 0) printf "%.2f", a / b }'; }

# secs US: µs as seconds with two decimals.
secs() { awk -v t="$1" 'BEGIN {printf "%.2f", t / 1e6}'; }

# md_row CELL...: one row of a Markdown table.
md_row() { local c; printf '|'; for c in "$@"; do printf ' %s |' "$c"; done; printf '\n'; }

# md_rule N: the rule under a Markdown table's header of N columns.
md_rule() { local i; printf '|'; for ((i = 0; i < $1; i++)); do printf -- '---|'; done; printf '\n'; }
