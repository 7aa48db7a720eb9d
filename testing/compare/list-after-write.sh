#!/usr/bin/env bash
# How long the API server takes to answer a LIST sent right after a write, against a GET and a LIST
# with no write before them: each pair on one connection (curl --next), the write a ConfigMap
# create, the read of Secrets in the same namespace. With consistent reads served from the watch
# cache (Kubernetes 1.31+), a LIST must wait until that cache has seen the write's revision, which
# for a kind nobody wrote means waiting for etcd's next progress notification; a GET with no
# resourceVersion is read from etcd and does not wait. docs/benchmarks.md, "Where an uninstall's
# time goes", says what this costs a cast or an uninstall, which LIST their records under the lease
# they have just written. A LIST of the kind just written (same-kind-list-after-write: ConfigMaps
# after the ConfigMap) does not wait: its cache has seen the write.
#
#   list-after-write.sh --cp DIR [--runs 15]
#
#   --cp DIR    a running control plane of testing/control-plane/start.sh (its pki and state.env)
#   --runs N    pairs of each kind (default 15); prints the median and range in milliseconds
set -euo pipefail
cp_dir="" runs=15
while (($# > 0)); do
  case $1 in
    --cp) cp_dir=$2; shift ;;
    --runs) runs=$2; shift ;;
    -h | --help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "list-after-write.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
[[ -n $cp_dir && -f $cp_dir/state.env ]] || { echo "list-after-write.sh: --cp DIR of a running control plane" >&2; exit 2; }
# shellcheck disable=SC1091
source "$cp_dir/state.env"
url=$CP_APISERVER_URL
tls=(--cacert "$cp_dir/pki/ca.crt" --cert "$cp_dir/pki/admin.crt" --key "$cp_dir/pki/admin.key" -s -o /dev/null)
ns=list-after-write-$$
curl "${tls[@]}" -X POST -H 'Content-Type: application/json' \
  -d "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$ns\"}}" "$url/api/v1/namespaces"
trap 'curl "${tls[@]}" -X DELETE "$url/api/v1/namespaces/$ns"' EXIT

# pair KIND I: the second request's time in microseconds
pair() {
  local read=$url/api/v1/namespaces/$ns/secrets first
  case $1 in
    *-after-write)
      first=(-X POST -H 'Content-Type: application/json' "$url/api/v1/namespaces/$ns/configmaps"
        -d "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"w$2\"}}") ;;
    *) first=("$url/api/v1/namespaces/$ns/secrets?limit=1") ;;
  esac
  case $1 in
    get-*) read+="/absent" ;;
    same-kind-*) read=$url/api/v1/namespaces/$ns/configmaps?limit=500 ;;
    *) read+="?limit=500" ;;
  esac
  curl "${tls[@]}" "${first[@]}" --next "${tls[@]}" -w '%{time_total}\n' "$read" | awk '{printf "%d\n", $1 * 1000000}'
}
printf '| request (%s runs each) | median ms | range ms |\n|---|---:|---:|\n' "$runs"
for kind in list-after-write same-kind-list-after-write get-after-write list-after-read; do
  times=()
  for ((i = 0; i < runs; i++)); do times+=("$(pair "$kind" "$kind-$i")"); done
  printf '%s\n' "${times[@]}" | sort -n | awk -v k="$kind" '{a[NR]=$1} END {
    printf "| %s | %.1f | %.1f–%.1f |\n", k, a[int((NR + 1) / 2)] / 1000, a[1] / 1000, a[NR] / 1000 }'
done
