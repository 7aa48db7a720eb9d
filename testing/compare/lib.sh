# Shared by compare.sh and startup.sh: timing a command and reading its requests from the API
# server's audit log (start.sh --audit). Sourced, not run.

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
# in µs since the epoch (tab-separated).
audit_events() {
  jq -r '
    def us: capture("(?<s>[^.]*)\\.(?<f>[0-9]{6})Z") | ((.s + "Z") | fromdateiso8601) * 1000000 + (.f | tonumber);
    [.user.username, .verb, (.requestReceivedTimestamp | us), (.stageTimestamp | us)] | @tsv' "$1"
}
