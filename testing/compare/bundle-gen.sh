#!/usr/bin/env bash
# Generates a large install bundle in the shapes real projects publish (an operator with its CRDs,
# RBAC, a node agent and a monitoring stack), for the re-cast CPU benchmark (recast.sh):
#
#   bundle-gen.sh OUT PREFIX
#
# writes OUT/*.yaml, one folder for `kubectl apply --server-side -f OUT` and `capstan release cast
# NAME -n PREFIX-system -f OUT`; every namespaced object names its namespace, as published
# manifests do. PREFIX (a DNS label, at most 20 characters) names the namespaces and the CRDs' API
# group, so two copies (one per tool) share no object and are the same size.
#
#   00-namespaces.yaml   3 Namespaces: PREFIX-system (pod-security labels for a host-network
#                        DaemonSet), PREFIX-monitoring, PREFIX-apps
#   01-crds.yaml         one bundle file of 6 CRDs, 1.8 MB: two near 0.85 MB (one schema of
#                        thousands of small nested properties, as controller-gen writes them; one
#                        of few properties with long descriptions, InstallBundles' shape in
#                        release-k8s' tests) and four of ~25 KB
#   02-rbac.yaml         a `kind: List`: ServiceAccount, ClusterRole, ClusterRoleBinding, and a
#                        Role and RoleBinding in kube-system
#   03-operator.yaml     the operator: Deployment, Service, ConfigMap, Secret, Role, RoleBinding,
#                        PodDisruptionBudget, NetworkPolicy, a PriorityClass, and its Validating-
#                        and MutatingWebhookConfiguration (3 webhooks each, on a loopback URL and
#                        an object selector nothing matches: the API server never calls them)
#   04-agent.yaml        a host-network DaemonSet and its ServiceAccount
#   05-monitoring.yaml   8 components, each ServiceAccount, ConfigMap, Deployment and Service
#   06-resources.yaml    3 custom resources of the CRDs, in PREFIX-apps
#
# 62 objects in 58 documents (the List holds 5), 1.9 MB of YAML: the size of the 59 objects and
# 1.9 MB of the bundle issue 22 measured. Deterministic: the same PREFIX gives the same bytes.
set -euo pipefail
(($# == 2)) || { echo "usage: bundle-gen.sh OUT PREFIX" >&2; exit 2; }
out=$1 p=$2
[[ $p =~ ^[a-z]([a-z0-9-]{0,18}[a-z0-9])?$ ]] ||
  { echo "bundle-gen.sh: PREFIX must be a DNS label of at most 20 characters, got '$p'" >&2; exit 2; }
group=$p.bench.example
rm -rf "$out"
mkdir -p "$out"

cat >"$out/00-namespaces.yaml" <<YAML
apiVersion: v1
kind: Namespace
metadata:
  name: $p-system
  labels:
    pod-security.kubernetes.io/enforce: privileged
    pod-security.kubernetes.io/audit: privileged
    pod-security.kubernetes.io/warn: privileged
---
apiVersion: v1
kind: Namespace
metadata:
  name: $p-monitoring
  labels:
    app.kubernetes.io/part-of: $p
---
apiVersion: v1
kind: Namespace
metadata:
  name: $p-apps
YAML

# crd KIND PLURAL SHAPE SIZE: one CRD document on standard output. SHAPE nested: SIZE bytes of
# groups of small properties (description, type, format, enum, arrays of objects); described:
# SIZE bytes of string properties with long descriptions.
crd() {
  local kind=$1 plural=$2 shape=$3 size=$4
  cat <<YAML
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: $plural.$group
  annotations:
    controller-gen.kubebuilder.io/version: v0.19.0
  labels:
    app.kubernetes.io/part-of: $p
spec:
  group: $group
  names:
    categories: [$p]
    kind: $kind
    listKind: ${kind}List
    plural: $plural
    singular: ${kind,,}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    additionalPrinterColumns:
    - {jsonPath: .status.phase, name: Phase, type: string}
    - {jsonPath: .metadata.creationTimestamp, name: Age, type: date}
    schema:
      openAPIV3Schema:
        description: $kind is the Schema for the $plural API.
        type: object
        properties:
          apiVersion:
            description: APIVersion defines the versioned schema of this representation of an object.
            type: string
          kind:
            description: Kind is a string value representing the REST resource this object represents.
            type: string
          metadata:
            type: object
          status:
            description: Most recently observed status of the $kind.
            type: object
            x-kubernetes-preserve-unknown-fields: true
          spec:
            description: Desired state of the $kind.
            type: object
            properties:
YAML
  awk -v shape="$shape" -v size="$size" 'BEGIN {
    d = "Configures how the controller reconciles this part of the resource; see the project documentation for the defaults and the values accepted."
    n = 0
    if (shape == "described") {
      long = d " " d " " d " " d
      for (i = 0; n < size; i++) {
        s = sprintf("              setting%d:\n                type: string\n                description: \"%s\"\n", i, long)
        printf "%s", s; n += length(s)
      }
      exit
    }
    for (g = 0; n < size; g++) {
      s = sprintf("              group%d:\n                description: \"Group %d of the settings. %s\"\n                type: object\n                properties:\n", g, g, d)
      for (f = 0; f < 16; f++) {
        t = f % 4
        s = s sprintf("                  field%d:\n                    description: \"Field %d of group %d. %s\"\n", f, f, g, substr(d, 1, 60 + f * 4))
        if (t == 0) s = s "                    type: string\n"
        else if (t == 1) s = s "                    type: integer\n                    format: int32\n                    minimum: 0\n"
        else if (t == 2) s = s "                    type: string\n                    enum: [Always, IfNotPresent, Never]\n"
        else s = s "                    type: array\n                    items:\n                      type: object\n                      required: [name]\n                      properties:\n                        name: {type: string, description: \"The name of the item.\"}\n                        value: {type: string, description: \"The value of the item.\"}\n                    x-kubernetes-list-type: map\n                    x-kubernetes-list-map-keys: [name]\n"
      }
      printf "%s", s; n += length(s)
    }
  }'
}
{
  crd Cluster clusters nested 850000
  crd Pipeline pipelines described 850000
  crd Probe probes nested 25000
  crd Rule rules nested 25000
  crd Route routes described 25000
  crd Policy policies nested 25000
} >"$out/01-crds.yaml"

cat >"$out/02-rbac.yaml" <<YAML
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ServiceAccount
  metadata: {name: operator, namespace: $p-system}
- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRole
  metadata: {name: $p-operator}
  rules:
  - apiGroups: [""]
    resources: [configmaps, secrets, services, serviceaccounts, pods, events]
    verbs: [get, list, watch, create, update, patch, delete]
  - apiGroups: [apps]
    resources: [deployments, daemonsets, statefulsets]
    verbs: [get, list, watch, create, update, patch, delete]
  - apiGroups: [$group]
    resources: ["*"]
    verbs: ["*"]
- apiVersion: rbac.authorization.k8s.io/v1
  kind: ClusterRoleBinding
  metadata: {name: $p-operator}
  roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: $p-operator}
  subjects: [{kind: ServiceAccount, name: operator, namespace: $p-system}]
- apiVersion: rbac.authorization.k8s.io/v1
  kind: Role
  metadata: {name: $p-auth-reader, namespace: kube-system}
  rules: [{apiGroups: [""], resources: [configmaps], resourceNames: [extension-apiserver-authentication], verbs: [get, list, watch]}]
- apiVersion: rbac.authorization.k8s.io/v1
  kind: RoleBinding
  metadata: {name: $p-auth-reader, namespace: kube-system}
  roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: $p-auth-reader}
  subjects: [{kind: ServiceAccount, name: operator, namespace: $p-system}]
YAML

# deployment NS NAME SA IMAGE: a Deployment as operators publish them (probes, resources,
# security context, env, a config volume).
deployment() {
  local ns=$1 name=$2 sa=$3 image=$4
  cat <<YAML
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $name
  namespace: $ns
  labels:
    app.kubernetes.io/name: $name
    app.kubernetes.io/part-of: $p
    app.kubernetes.io/version: 2.14.1
spec:
  replicas: 1
  revisionHistoryLimit: 10
  selector:
    matchLabels:
      app.kubernetes.io/name: $name
  template:
    metadata:
      labels:
        app.kubernetes.io/name: $name
        app.kubernetes.io/part-of: $p
      annotations:
        kubectl.kubernetes.io/default-container: $name
    spec:
      serviceAccountName: $sa
      automountServiceAccountToken: true
      securityContext:
        runAsNonRoot: true
        seccompProfile: {type: RuntimeDefault}
      containers:
      - name: $name
        image: $image
        imagePullPolicy: IfNotPresent
        args:
        - --config=/etc/$name/config.yaml
        - --metrics-bind-address=:8080
        - --health-probe-bind-address=:8081
        - --leader-elect
        - --log-level=info
        env:
        - name: POD_NAMESPACE
          valueFrom: {fieldRef: {fieldPath: metadata.namespace}}
        - name: POD_NAME
          valueFrom: {fieldRef: {fieldPath: metadata.name}}
        - name: GOMAXPROCS
          valueFrom: {resourceFieldRef: {resource: limits.cpu}}
        ports:
        - {name: metrics, containerPort: 8080, protocol: TCP}
        - {name: health, containerPort: 8081, protocol: TCP}
        livenessProbe:
          httpGet: {path: /healthz, port: health}
          initialDelaySeconds: 15
          periodSeconds: 20
        readinessProbe:
          httpGet: {path: /readyz, port: health}
          initialDelaySeconds: 5
          periodSeconds: 10
        resources:
          requests: {cpu: 10m, memory: 64Mi}
          limits: {cpu: 500m, memory: 256Mi}
        securityContext:
          allowPrivilegeEscalation: false
          readOnlyRootFilesystem: true
          capabilities: {drop: [ALL]}
        volumeMounts:
        - {name: config, mountPath: /etc/$name, readOnly: true}
        - {name: tmp, mountPath: /tmp}
      volumes:
      - name: config
        configMap: {name: $name-config}
      - name: tmp
        emptyDir: {}
      tolerations:
      - {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}
YAML
}
# service NS NAME: a ClusterIP Service in front of NAME's metrics port.
service() {
  cat <<YAML
---
apiVersion: v1
kind: Service
metadata:
  name: $2
  namespace: $1
  labels: {app.kubernetes.io/name: $2, app.kubernetes.io/part-of: $p}
spec:
  selector: {app.kubernetes.io/name: $2}
  ports:
  - {name: metrics, port: 8080, targetPort: metrics, protocol: TCP}
YAML
}
# config NS NAME LINES: a ConfigMap holding a config file of LINES lines.
config() {
  printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-config\n  namespace: %s\n  labels: {app.kubernetes.io/name: %s, app.kubernetes.io/part-of: %s}\ndata:\n  config.yaml: |\n' "$2" "$1" "$2" "$p"
  awk -v n="$3" -v name="$2" 'BEGIN { for (i = 0; i < n; i++) printf "    %s.rule%03d: {match: \"namespace=~%s-.*\", interval: %ds, action: keep}\n", name, i, name, 10 + i % 50 }'
}

{
  deployment "$p-system" operator operator "registry.example/$p/operator:2.14.1"
  service "$p-system" operator
  config "$p-system" operator 40
  cat <<YAML
---
apiVersion: v1
kind: Secret
metadata:
  name: operator-webhook-cert
  namespace: $p-system
type: Opaque
data:
  ca.crt: $(printf 'not a certificate, %.0s' {1..40} | base64 -w0)
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: operator-leader-election, namespace: $p-system}
rules:
- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, list, watch, create, update, patch, delete]}
- {apiGroups: [""], resources: [events], verbs: [create, patch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: operator-leader-election, namespace: $p-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: operator-leader-election}
subjects: [{kind: ServiceAccount, name: operator, namespace: $p-system}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: operator, namespace: $p-system}
spec:
  maxUnavailable: 1
  selector: {matchLabels: {app.kubernetes.io/name: operator}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: operator, namespace: $p-system}
spec:
  podSelector: {matchLabels: {app.kubernetes.io/name: operator}}
  policyTypes: [Ingress]
  ingress:
  - ports: [{port: 8080, protocol: TCP}, {port: 9443, protocol: TCP}]
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: $p-node-critical}
value: 1000000
globalDefault: false
description: Node agents of $p.
YAML
  # the operator's admission webhooks, as cert-manager and operator SDKs publish them; a URL on
  # loopback (never a Service: the test control plane refuses those), and an object selector no
  # object carries, so the API server never calls them
  for kind in Validating Mutating; do
    lower=$(tr '[:upper:]' '[:lower:]' <<<"$kind")
    cat <<YAML
---
apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}WebhookConfiguration
metadata:
  name: $p-operator-$lower
  annotations: {cert-manager.io/inject-ca-from: $p-system/operator-webhook-cert}
  labels: {app.kubernetes.io/name: operator, app.kubernetes.io/part-of: $p}
webhooks:
YAML
    for plural in clusters pipelines policies; do
      cat <<YAML
- name: $lower-$plural.$group
  admissionReviewVersions: [v1]
  sideEffects: None
  failurePolicy: Ignore
  timeoutSeconds: 1
  clientConfig: {url: "https://127.0.0.1:9443/$lower-$plural"}
  objectSelector: {matchLabels: {$group/webhook: enabled}}
  rules:
  - {apiGroups: [$group], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [$plural], scope: "*"}
YAML
    done
  done
} | tail -n +2 >"$out/03-operator.yaml"

cat >"$out/04-agent.yaml" <<YAML
apiVersion: v1
kind: ServiceAccount
metadata: {name: agent, namespace: $p-system}
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  namespace: $p-system
  labels: {app.kubernetes.io/name: agent, app.kubernetes.io/part-of: $p}
spec:
  selector: {matchLabels: {app.kubernetes.io/name: agent}}
  updateStrategy: {type: RollingUpdate, rollingUpdate: {maxUnavailable: 1}}
  template:
    metadata: {labels: {app.kubernetes.io/name: agent}}
    spec:
      serviceAccountName: agent
      hostNetwork: true
      dnsPolicy: ClusterFirstWithHostNet
      tolerations: [{operator: Exists}]
      containers:
      - name: agent
        image: registry.example/$p/agent:2.14.1
        args: [--node-name=\$(NODE_NAME), --port=9100]
        env:
        - name: NODE_NAME
          valueFrom: {fieldRef: {fieldPath: spec.nodeName}}
        securityContext: {privileged: true}
        resources:
          requests: {cpu: 5m, memory: 32Mi}
        volumeMounts:
        - {name: proc, mountPath: /host/proc, readOnly: true}
        - {name: sys, mountPath: /host/sys, readOnly: true}
      volumes:
      - {name: proc, hostPath: {path: /proc}}
      - {name: sys, hostPath: {path: /sys}}
YAML

{
  for c in alertmanager collector exporter gateway grafana loki prometheus tempo; do
    printf -- '---\napiVersion: v1\nkind: ServiceAccount\nmetadata: {name: %s, namespace: %s}\n' "$c" "$p-monitoring"
    config "$p-monitoring" "$c" 60
    deployment "$p-monitoring" "$c" "$c" "registry.example/$p/$c:2.14.1"
    service "$p-monitoring" "$c"
  done
} | tail -n +2 >"$out/05-monitoring.yaml"

cat >"$out/06-resources.yaml" <<YAML
apiVersion: $group/v1
kind: Cluster
metadata: {name: main, namespace: $p-apps}
spec:
  group0: {field0: primary, field1: 3, field2: IfNotPresent, field3: [{name: region, value: local}]}
  group1: {field0: secondary, field1: 1}
---
apiVersion: $group/v1
kind: Pipeline
metadata: {name: build, namespace: $p-apps}
spec: {setting0: fast, setting1: "on"}
---
apiVersion: $group/v1
kind: Rule
metadata: {name: alerts, namespace: $p-apps}
spec:
  group0: {field0: critical, field1: 5}
YAML
