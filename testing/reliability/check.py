#!/usr/bin/env python3
"""Invariants after a reliability scenario, from kubectl and capstan JSON on stdin-free calls.

check.py KUBECTL CAPSTAN NAMESPACE RELEASE...  prints one line per violation and exits 1 if any:
  - lost record:   a release has no record
  - stuck PENDING: a release's latest revision is PENDING, or its Lease still has a holder
  - orphan:        a live object stamped by a release is not in that release's latest owned set
  - owned twice:   two releases' latest records own the same object
"""
import json
import subprocess
import sys

kubectl, capstan, ns, releases = sys.argv[1], sys.argv[2].split(), sys.argv[3], sys.argv[4:]
problems = []
owners = {}


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


for rel in releases:
    r = run(capstan + ["release", "get", rel, "-n", ns, "-o", "json"])
    if r.returncode != 0:
        problems.append(f"lost record: {ns}/{rel}: {r.stderr.strip()}")
        continue
    rec = json.loads(r.stdout)
    if rec["status"] == "pending":
        problems.append(f"stuck PENDING: {ns}/{rel} revision {rec['revision']}")
    lease = run([kubectl, "get", "lease", "-n", ns, "capstan.release.v1." + rel, "-o", "json"])
    if lease.returncode == 0:
        holder = json.loads(lease.stdout).get("spec", {}).get("holderIdentity")
        if holder:
            problems.append(f"lease still held: {ns}/{rel} by {holder}")
    owned = {o["key"] for o in rec["owns"]}
    for key in owned:
        if key in owners:
            problems.append(f"owned twice: {key} by {owners[key]} and {rel}")
        owners[key] = rel
    live = run([kubectl, "get", "serviceaccounts,configmaps", "-n", ns, "-o", "json",
                "-l", "capstan.dev/release-name=" + rel])
    for item in json.loads(live.stdout)["items"]:
        key = item["kind"] + "/" + ns + "/" + item["metadata"]["name"]
        if key not in owned:
            problems.append(f"orphan: {key} stamped by {rel}, not in its record")

for p in problems:
    print("  VIOLATION " + p)
sys.exit(1 if problems else 0)
