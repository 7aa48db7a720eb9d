#!/usr/bin/env bash
# Generates one application of M objects for every tool of the side-by-side benchmark: M/2
# Deployments (one replica each) and M/2 headless Services, app-0001 … app-NNNN.
#
#   gen.sh OUT M [CHANGED]
#
# writes OUT/manifests/app-NNNN.yaml (plain manifests without a namespace: `kubectl apply -f`,
# `capstan release cast NAME -n NS -f`) and OUT/chart/ (the same files as the templates of a Helm
# chart). With CHANGED=N, the first N Deployments carry REVISION=2 instead of 1 (a rollout each).
set -euo pipefail
(($# >= 2)) || { echo "usage: gen.sh OUT M [CHANGED]" >&2; exit 2; }
out=$1 m=$2 changed=${3:-0}
((m > 0 && m % 2 == 0)) || { echo "gen.sh: M must be a positive even number, got $m" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out/manifests" "$out/chart/templates"
cat >"$out/chart/Chart.yaml" <<YAML
apiVersion: v2
name: bench
description: Capstan side-by-side benchmark, $m objects
type: application
version: 1.0.0
YAML
for ((i = 1; i <= m / 2; i++)); do
  name=$(printf 'app-%04d' "$i")
  revision=1
  ((i <= changed)) && revision=2
  cat >"$out/manifests/$name.yaml" <<YAML
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
        image: registry.example/bench/app:1.0.0
        env:
        - name: REVISION
          value: "$revision"
        ports:
        - containerPort: 8080
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
  cp "$out/manifests/$name.yaml" "$out/chart/templates/"
done
