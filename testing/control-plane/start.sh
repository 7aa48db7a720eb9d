#!/usr/bin/env bash
# Starts a throw-away Kubernetes control plane on 127.0.0.1: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler and kwok (fake nodes and pods), on free ports.
#
#   start.sh [--k8s-version V] [--dir DIR] [--nodes N] [--owner-pid PID] [--no-build] [--audit]
#            [--client NAME]...
#
#   --k8s-version V  the Kubernetes version: 1.34, 1.34.4 or v1.34.4, one of the matrix in lib.sh
#                    (default: $CAPSTAN_K8S_VERSION, else the newest); built first if not cached
#   --dir DIR        state folder: PKI, kubeconfig, logs, etcd data, pid files
#                    (default: ${TMPDIR:-/tmp}/capstan-control-plane)
#   --nodes N        fake nodes to create (default 2)
#   --owner-pid PID  stop the control plane when process PID ends (the JVM running the tests)
#   --no-build       fail instead of building when the binaries are missing from the cache
#   --audit          write the API server's audit log (JSON lines, Metadata level, one event per
#                    request at ResponseComplete) to DIR/logs/audit.log for every user but the
#                    control plane's own components (capstan-admin, system:*)
#   --client NAME    (repeatable) issue a client certificate with CN=NAME in group system:masters,
#                    signed by the control plane's CA, and write DIR/kubeconfig-NAME using it, so the
#                    audit log names the tool that sent each request
#
# On success it prints `export KUBECONFIG=DIR/kubeconfig` as its last line of standard output and
# writes DIR/state.env (ports, pids, paths). Stop it with stop.sh --dir DIR. Every process it
# starts is recorded in DIR/pids/ and stopped by pid; on a failed start they are stopped at once.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

dir=${TMPDIR:-/tmp}/capstan-control-plane
nodes=2
owner_pid=
build=true
audit=false
clients=()
while (($# > 0)); do
  case $1 in
    --k8s-version) cp_select "${2:-}"; shift ;;
    --dir) dir=$2; shift ;;
    --nodes) nodes=$2; shift ;;
    --owner-pid) owner_pid=$2; shift ;;
    --no-build) build=false ;;
    --audit) audit=true ;;
    --client)
      [[ ${2:-} =~ ^[a-z0-9][a-z0-9-]{0,62}$ ]] || cp_die "--client: a name of a-z, 0-9 and '-' expected, got '${2:-}'"
      clients+=("$2"); shift ;;
    -h | --help) sed -n '2,27p' "$0"; exit 0 ;;
    *) cp_die "unknown argument: $1" ;;
  esac
  shift
done
export CAPSTAN_K8S_VERSION=$CP_K8S_VERSION # for build.sh

for tool in openssl curl base64 flock; do
  command -v "$tool" >/dev/null || cp_die "$tool is not installed (Debian: apt-get install -y ${tool/base64/coreutils})"
done

if ! cp_binaries_ready; then
  [[ $build == true ]] || cp_die "binaries missing in $CP_BIN; run $CP_DIR/build.sh"
  "$CP_DIR/build.sh"
fi

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [[ -d $dir/pids ]] && "$CP_DIR/stop.sh" --dir "$dir" --check-running 2>/dev/null; then
  cp_die "a control plane from $dir is still running; stop it first: $CP_DIR/stop.sh --dir $dir"
fi
rm -rf "$dir/pki" "$dir/etcd" "$dir/pids" "$dir/logs" "$dir/state.env" "$dir/kubeconfig" "$dir"/kubeconfig-*
mkdir -p "$dir/pki" "$dir/pids" "$dir/logs"
chmod 700 "$dir/pki"
started_at=$(date +%s%N)

# --- failure handling: stop what was started, show where the logs are -------------------------
ok=false
failed=    # the component whose failure stopped the start, if known
on_exit() {
  if [[ $ok != true ]]; then
    cp_log "start failed; stopping what was started. Logs: $dir/logs"
    local f
    for f in "$dir"/logs/*.log; do
      [[ -s $f && $f != */openssl.log ]] || continue
      [[ -z $failed || $f == */$failed.log ]] || continue
      echo "----- last lines of $f" >&2
      tail -n 25 "$f" >&2
    done
    "$CP_DIR/stop.sh" --dir "$dir" --keep-logs >&2 || true
  fi
}
trap on_exit EXIT

# --- free loopback ports --------------------------------------------------------------------------
# A port is taken when any socket in /proc/net/tcp{,6} uses it locally; picking from 20000-32767
# keeps clear of the kernel's ephemeral range (32768+), so outgoing connections cannot take it.
declare -A taken=()
for f in /proc/net/tcp /proc/net/tcp6; do
  [[ -r $f ]] || continue
  while read -r _ local _; do
    [[ $local == *:* ]] && taken[$((16#${local##*:}))]=1
  done < <(tail -n +2 "$f")
done
pick_port() { # pick_port VAR: sets VAR to a free port
  local p
  while :; do
    p=$((20000 + RANDOM % 12768))
    [[ -z ${taken[$p]:-} ]] && break
  done
  taken[$p]=1
  printf -v "$1" '%s' "$p"
}
pick_port etcd_port
pick_port etcd_peer_port
pick_port apiserver_port
pick_port kcm_port
pick_port scheduler_port

# --- PKI (openssl; own config so the host's openssl.cnf does not matter) ------------------------
pki=$dir/pki
cat >"$pki/openssl.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca]
basicConstraints = critical,CA:true
keyUsage = critical,keyCertSign,cRLSign,digitalSignature
subjectKeyIdentifier = hash
[server]
basicConstraints = critical,CA:false
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:127.0.0.1,IP:10.0.0.1
[client]
basicConstraints = critical,CA:false
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
EOF
ossl() { openssl "$@" 2>>"$dir/logs/openssl.log" >/dev/null; }
ossl req -config "$pki/openssl.cnf" -x509 -newkey rsa:2048 -nodes -days 3650 \
  -subj "/CN=capstan-test-ca" -extensions ca -keyout "$pki/ca.key" -out "$pki/ca.crt"
issue() { # name subject extensions
  ossl req -config "$pki/openssl.cnf" -new -newkey rsa:2048 -nodes -subj "$2" \
    -keyout "$pki/$1.key" -out "$pki/$1.csr"
  ossl x509 -req -in "$pki/$1.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days 3650 -extfile "$pki/openssl.cnf" -extensions "$3" -out "$pki/$1.crt"
}
issue apiserver "/CN=kube-apiserver" server
issue admin "/O=system:masters/CN=capstan-admin" client
for c in ${clients[@]+"${clients[@]}"}; do
  issue "client-$c" "/O=system:masters/CN=$c" client
done
ossl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$pki/sa.key"
ossl pkey -in "$pki/sa.key" -pubout -out "$pki/sa.pub"
rm -f "$pki"/*.csr "$pki/ca.srl"

b64() { base64 -w0 <"$1"; }
write_kubeconfig() { # write_kubeconfig FILE USER CERT-BASENAME
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: capstan-test
  cluster:
    server: https://127.0.0.1:$apiserver_port
    certificate-authority-data: $(b64 "$pki/ca.crt")
users:
- name: $2
  user:
    client-certificate-data: $(b64 "$pki/$3.crt")
    client-key-data: $(b64 "$pki/$3.key")
contexts:
- name: capstan-test
  context:
    cluster: capstan-test
    user: $2
    namespace: default
current-context: capstan-test
EOF
  chmod 600 "$1"
}
kubeconfig=$dir/kubeconfig
write_kubeconfig "$kubeconfig" capstan-admin admin
for c in ${clients[@]+"${clients[@]}"}; do
  write_kubeconfig "$dir/kubeconfig-$c" "$c" "client-$c"
done

# --- audit log (optional) -----------------------------------------------------------------------
audit_args=()
audit_log=
if [[ $audit == true ]]; then
  audit_log=$dir/logs/audit.log
  # One event per request, written when the response is complete (its stageTimestamp is when the
  # last byte left); the control plane's own traffic is left out.
  cat >"$dir/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived, ResponseStarted]
rules:
- level: None
  users: [capstan-admin, system:apiserver, system:kube-controller-manager, system:kube-scheduler]
- level: None
  userGroups: [system:nodes, system:serviceaccounts]
- level: Metadata
EOF
  audit_args=(--audit-policy-file="$dir/audit-policy.yaml" --audit-log-path="$audit_log"
    --audit-log-format=json --audit-log-maxsize=0 --audit-log-maxbackup=0)
fi

# --- processes ----------------------------------------------------------------------------------
# launch NAME ARGS...: runs $CP_BIN/NAME in the background, output to logs/NAME.log, pid recorded.
# HOME points into the state folder, so no component reads a user's dot-files (kwok would merge
# ~/.kwok/kwok.yaml into its configuration).
launch() {
  local name=$1
  shift
  HOME=$dir nohup "$CP_BIN/$name" "$@" >"$dir/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/pids/$name.pid"
}
alive() { kill -0 "$(cat "$dir/pids/$1.pid")" 2>/dev/null; }
# wait_for NAME WHAT SECONDS COMMAND...: polls COMMAND until it succeeds while NAME runs; fails if
# NAME died (an answer while NAME is dead came from another process on its port).
wait_for() {
  local name=$1 what=$2 limit=$3 i
  shift 3
  for ((i = 0; i < limit * 5; i++)); do
    "$@" >/dev/null 2>&1 && alive "$name" && return 0
    alive "$name" || { failed=$name; cp_die "$name exited while waiting for $what (see $dir/logs/$name.log)"; }
    sleep 0.2
  done
  failed=$name
  cp_die "$what not reached within $limit s (see $dir/logs/$name.log)"
}
# serve NAME PORT_VAR ARGS...: launches NAME serving HTTPS on the port PORT_VAR names.
serve() {
  local name=$1 var=$2
  shift 2
  launch "$name" --secure-port="${!var}" "$@"
}
# wait_serving NAME PORT_VAR SECONDS ARGS...: waits for the /healthz of NAME (started by serve with
# ARGS) while NAME runs. Another process can take the port between pick_port and NAME's bind (a
# control plane starting beside this one, as CI's side passes do): NAME then exits with "address
# already in use" and is served again on another port, three times at most.
wait_serving() {
  local name=$1 var=$2 limit=$3 i tries=0
  shift 3
  for ((i = 0; i < limit * 5; i++)); do
    if alive "$name"; then
      curl -sfk "https://127.0.0.1:${!var}/healthz" >/dev/null 2>&1 && alive "$name" && return 0
    elif grep -q "address already in use" "$dir/logs/$name.log" && ((++tries <= 3)); then
      echo "[control-plane] port ${!var} of $name was taken meanwhile; serving it on another" >&2
      pick_port "$var"
      serve "$name" "$var" "$@"
    else
      failed=$name
      cp_die "$name exited while waiting for $name /healthz (see $dir/logs/$name.log)"
    fi
    sleep 0.2
  done
  failed=$name
  cp_die "$name /healthz not reached within $limit s (see $dir/logs/$name.log)"
}
api() { # api METHOD PATH [curl args...]: the API server with the admin client certificate
  local method=$1 path=$2
  shift 2
  curl -sS --fail -A capstan-control-plane -X "$method" --cacert "$pki/ca.crt" \
    --cert "$pki/admin.crt" --key "$pki/admin.key" "https://127.0.0.1:$apiserver_port$path" "$@"
}

launch etcd --name=capstan --data-dir="$dir/etcd" \
  --listen-client-urls="http://127.0.0.1:$etcd_port" \
  --advertise-client-urls="http://127.0.0.1:$etcd_port" \
  --listen-peer-urls="http://127.0.0.1:$etcd_peer_port" \
  --initial-advertise-peer-urls="http://127.0.0.1:$etcd_peer_port" \
  --initial-cluster="capstan=http://127.0.0.1:$etcd_peer_port" \
  --unsafe-no-fsync=true --auto-compaction-retention=1 --log-level=warn
wait_for etcd "etcd health" 30 curl -sf "http://127.0.0.1:$etcd_port/health"

launch kube-apiserver --etcd-servers="http://127.0.0.1:$etcd_port" \
  --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$apiserver_port" \
  --tls-cert-file="$pki/apiserver.crt" --tls-private-key-file="$pki/apiserver.key" \
  --client-ca-file="$pki/ca.crt" \
  --service-account-issuer=https://kubernetes.default.svc.cluster.local \
  --service-account-key-file="$pki/sa.pub" --service-account-signing-key-file="$pki/sa.key" \
  --service-cluster-ip-range=10.0.0.0/24 --authorization-mode=Node,RBAC \
  --allow-privileged=true --endpoint-reconciler-type=none ${audit_args[@]+"${audit_args[@]}"}
wait_for kube-apiserver "kube-apiserver /readyz" 120 \
  curl -sf --cacert "$pki/ca.crt" "https://127.0.0.1:$apiserver_port/readyz"

# Client rate limits: the defaults (controller-manager 20 QPS / burst 30, scheduler 50 / 100) make
# a benchmark of 500 Deployments measure the controllers' throttling, not the tool that wrote
# them; these are the values kwokctl sets for --disable-qps-limits (see README).
kcm_args=(--kubeconfig="$kubeconfig" --kube-api-qps=5000 --kube-api-burst=10000
  --bind-address=127.0.0.1 --cert-dir="$pki/kube-controller-manager"
  --leader-elect=false --root-ca-file="$pki/ca.crt"
  --service-account-private-key-file="$pki/sa.key")
serve kube-controller-manager kcm_port "${kcm_args[@]}"
scheduler_args=(--kubeconfig="$kubeconfig" --kube-api-qps=5000 --kube-api-burst=10000
  --bind-address=127.0.0.1 --cert-dir="$pki/kube-scheduler" --leader-elect=false)
serve kube-scheduler scheduler_port "${scheduler_args[@]}"
launch kwok --kubeconfig="$kubeconfig" --config="$CP_DIR/stages.yaml" \
  --manage-all-nodes=false --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
  --node-ip=127.0.0.1 --cidr=10.244.0.0/16 --node-lease-duration-seconds=40

# --- no dial-out (no-dial-out.yaml, README): admission policies in the API server ------------------
"$CP_BIN/kubectl" --kubeconfig="$kubeconfig" apply --server-side --field-manager=capstan-control-plane \
  -f "$CP_DIR/no-dial-out.yaml" >"$dir/logs/no-dial-out.log" 2>&1 ||
  { failed=no-dial-out; cp_die "could not install the admission policies of $CP_DIR/no-dial-out.yaml (see $dir/logs/no-dial-out.log)"; }
# A policy is enforced once the API server has loaded and type-checked it. Probe each with a
# request it must refuse and that could never dial even when let through: a dry-run create
# (nothing is stored) and a proxy request to a pod that does not exist.
refused_by() { # refused_by POLICY METHOD PATH [BODY]
  local out
  out=$(curl -sS -A capstan-control-plane -X "$2" --cacert "$pki/ca.crt" --cert "$pki/admin.crt" \
    --key "$pki/admin.key" -H 'Content-Type: application/json' ${4:+-d "$4"} \
    "https://127.0.0.1:$apiserver_port$3" 2>&1) || true
  [[ $out == *"ValidatingAdmissionPolicy '$1'"* ]]
}
wait_for kube-apiserver "admission policy capstan-no-dial-out enforced" 60 refused_by capstan-no-dial-out \
  POST '/apis/apiregistration.k8s.io/v1/apiservices?dryRun=All' \
  '{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.probe.capstan.invalid"},"spec":{"group":"probe.capstan.invalid","version":"v1","groupPriorityMinimum":1,"versionPriority":1,"service":{"namespace":"default","name":"probe","port":443}}}'
wait_for kube-apiserver "admission policy capstan-loopback-services enforced" 60 refused_by capstan-loopback-services \
  POST '/api/v1/namespaces/capstan-loopback/services?dryRun=All' \
  '{"apiVersion":"v1","kind":"Service","metadata":{"name":"probe"},"spec":{"ports":[{"port":443}]}}'
wait_for kube-apiserver "admission policy capstan-no-proxy enforced" 60 refused_by capstan-no-proxy \
  GET /api/v1/namespaces/default/pods/capstan-probe/proxy/
wait_serving kube-controller-manager kcm_port 60 "${kcm_args[@]}"
wait_serving kube-scheduler scheduler_port 60 "${scheduler_args[@]}"

for ((n = 0; n < nodes; n++)); do
  api POST /api/v1/nodes -H 'Content-Type: application/json' -o /dev/null -d @- <<EOF
{"apiVersion": "v1", "kind": "Node",
 "metadata": {"name": "kwok-node-$n",
   "annotations": {"node.alpha.kubernetes.io/ttl": "0", "kwok.x-k8s.io/node": "fake"},
   "labels": {"kubernetes.io/hostname": "kwok-node-$n", "kubernetes.io/os": "linux",
              "kubernetes.io/arch": "amd64", "type": "kwok"}},
 "status": {"allocatable": {"cpu": "32", "memory": "256Gi", "pods": "110"},
            "capacity": {"cpu": "32", "memory": "256Gi", "pods": "110"}}}
EOF
done
# The API server answers compact JSON to this user agent; a condition is {"type":...,"status":...}.
node_ready() { api GET "/api/v1/nodes/kwok-node-$1" | grep -q '"type":"Ready","status":"True"'; }
for ((n = 0; n < nodes; n++)); do
  wait_for kwok "node kwok-node-$n Ready" 60 node_ready "$n"
done
wait_for kube-controller-manager "serviceaccount default/default" 60 \
  api GET /api/v1/namespaces/default/serviceaccounts/default

if [[ -n $owner_pid ]]; then
  # Stops the control plane when the owner (the test JVM) is gone, however it ended.
  nohup bash -c 'while kill -0 "$1" 2>/dev/null; do sleep 2; done
                 CP_FROM_WATCHDOG=1 exec "$2/stop.sh" --dir "$3"' \
    capstan-watchdog "$owner_pid" "$CP_DIR" "$dir" >"$dir/logs/watchdog.log" 2>&1 </dev/null &
  echo $! >"$dir/pids/watchdog.pid"
fi

elapsed_ms=$((($(date +%s%N) - started_at) / 1000000))
cat >"$dir/state.env" <<EOF
CP_DIR=$dir
CP_BIN=$CP_BIN
KUBECONFIG=$kubeconfig
CP_APISERVER_URL=https://127.0.0.1:$apiserver_port
CP_ETCD_PORT=$etcd_port
CP_APISERVER_PORT=$apiserver_port
CP_KCM_PORT=$kcm_port
CP_SCHEDULER_PORT=$scheduler_port
CP_NODES=$nodes
CP_NEVER_READY_IMAGE=registry.invalid/never-ready:1
CP_START_MILLIS=$elapsed_ms
CP_AUDIT_LOG=$audit_log
CP_CLIENTS="${clients[*]+${clients[*]}}"
CP_K8S_VERSION=$CP_K8S_VERSION
CP_ETCD_VERSION=$CP_ETCD_VERSION
CP_KWOK_VERSION=$CP_KWOK_VERSION
EOF
ok=true
cp_log "control plane up in ${elapsed_ms} ms: https://127.0.0.1:$apiserver_port, $nodes node(s) Ready; logs in $dir/logs"
cp_log "stop it with: $CP_DIR/stop.sh --dir $dir"
echo "export KUBECONFIG=$kubeconfig"
