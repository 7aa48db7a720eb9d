#!/usr/bin/env bash
# Fills a namespace with many releases of several revisions each, for Capstan and for Helm 3, so
# `capstan release list|get|history` can be timed against `helm list|status|history` over the same
# numbers (startup.sh). Casting 500 × 5 releases one by one would take hours; instead one release
# of each tool is made for real (a ConfigMap, cast/upgraded REVISIONS times) and its record Secrets
# are copied under other release names: the record's name (and for Capstan its id, digest and size
# annotations) rewritten, so each tool reads them as releases of its own.
#
#   releases.sh --kubeconfig FILE [--namespace NS] [--releases N] [--revisions R]
#
# Defaults: namespace many, 500 releases, 5 revisions. Makes the seed and rel-0001 … rel-(N-1) for
# both tools, N releases of each (the Capstan records as capstan.release.v1.rel-NNNN.vR, Helm's as
# sh.helm.release.v1.rel-NNNN.vR) in one namespace; each tool lists only its own (owner label). Needs the CLI jar (./capstan), Helm 3
# (testing/helm/build.sh), the control plane's kubectl, jq and python3.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

kubeconfig= ns=many releases=500 revisions=5
while (($# > 0)); do
  case $1 in
    --kubeconfig) kubeconfig=$2; shift ;;
    --namespace) ns=$2; shift ;;
    --releases) releases=$2; shift ;;
    --revisions) revisions=$2; shift ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "releases.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done
[[ -n $kubeconfig ]] || { echo "usage: releases.sh --kubeconfig FILE [--namespace NS] [--releases N] [--revisions R]" >&2; exit 2; }
kubectl="$("$root/testing/control-plane/build.sh" --print-bin)/kubectl"
helm="$("$root/testing/helm/build.sh" --print-bin)/helm3"
export KUBECONFIG=$kubeconfig
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$kubectl" get namespace "$ns" >/dev/null 2>&1 || "$kubectl" create namespace "$ns" >/dev/null
mkdir -p "$work/manifests" "$work/chart/templates"
printf 'apiVersion: v2\nname: seed\nversion: 1.0.0\n' >"$work/chart/Chart.yaml"
for ((r = 1; r <= revisions; r++)); do
  cat >"$work/manifests/seed.yaml" <<YAML
apiVersion: v1
kind: ConfigMap
metadata:
  name: seed
data:
  revision: "$r"
YAML
  sed 's/name: seed/name: seed-helm/' "$work/manifests/seed.yaml" >"$work/chart/templates/seed.yaml"
  "$root/capstan" release --kubeconfig "$kubeconfig" cast seed -n "$ns" -f "$work/manifests" --yes >/dev/null 2>&1
  "$helm" upgrade --install seed "$work/chart" -n "$ns" >/dev/null
done
echo "releases.sh: seed releases cast, $revisions revisions each; copying them to $((releases - 1)) more releases" >&2

"$kubectl" get secrets -n "$ns" -l owner=capstan,name=seed -o json >"$work/capstan.json"
"$kubectl" get secrets -n "$ns" -l owner=helm,name=seed -o json >"$work/helm.json"
python3 - "$work" "$releases" <<'PY'
import base64, copy, gzip, hashlib, json, sys, uuid
work, n = sys.argv[1], int(sys.argv[2])
clean = lambda m: {k: v for k, v in m.items() if k in ("name", "namespace", "labels", "annotations")}
for tool in ("capstan", "helm"):
    seeds = json.load(open(f"{work}/{tool}.json"))["items"]
    out = []
    for i in range(1, n):  # with the seed, n releases
        name = f"rel-{i:04d}"
        rid = str(uuid.uuid4())
        for s in seeds:
            c = copy.deepcopy(s)
            c["metadata"] = clean(c["metadata"])
            c["metadata"]["name"] = c["metadata"]["name"].replace(".seed.", f".{name}.")
            c["metadata"]["labels"]["name"] = name
            if tool == "capstan":
                doc = json.loads(gzip.decompress(base64.b64decode(c["data"]["release"])))
                doc["release"]["name"] = name
                doc["release"]["id"] = rid
                raw = gzip.compress(json.dumps(doc, separators=(",", ":")).encode())
                c["data"]["release"] = base64.b64encode(raw).decode()
                ann = c["metadata"]["annotations"]
                for k in ann:
                    if k.endswith("sha256"):
                        ann[k] = hashlib.sha256(raw).hexdigest()
                    elif k.endswith("size"):
                        ann[k] = str(len(raw))
            else:
                inner = base64.b64decode(base64.b64decode(c["data"]["release"]))
                doc = json.loads(gzip.decompress(inner))
                doc["name"] = name
                raw = base64.b64encode(gzip.compress(json.dumps(doc).encode()))
                c["data"]["release"] = base64.b64encode(raw).decode()
            out.append(c)
    with open(f"{work}/{tool}-copies.json", "w") as f:
        json.dump({"apiVersion": "v1", "kind": "List", "items": out}, f)
PY
for tool in capstan helm; do
  "$kubectl" create -f "$work/$tool-copies.json" >/dev/null
done
echo "releases.sh: $releases releases × $revisions revisions in namespace $ns for capstan and helm3 (the seed release of each among them)" >&2
