#!/usr/bin/env python3
"""Invariants after a reliability scenario, from kubectl and `capstan ... -o json`.

check.py KUBECTL CAPSTAN NAMESPACE RELEASE... [--shared NAME --outcome REL=CODE:LOG ...
         [--audit LOG --user REL=USER ...]]

prints one line per violation and exits 1 if any:
  - lost record:   a release has no record (a race's loser may have none: it wrote nothing)
  - stuck PENDING: a release's latest revision is PENDING, or its Lease still has a holder
  - orphan:        a live object stamped by a release is not in that release's latest owned set
  - owned twice:   two releases' latest records own the same object
With --shared NAME (two releases racing for ConfigMap NAME, each writing data.value = its own
release name), exactly what issue 13 asks of the race:
  - exactly one release exited 0 (the owner); the other exited 3 (the conflict was planned: no
    record) or 1 (its create was fenced: its revision recorded failed), and its error line names
    the object and its owner ("... by release NS/OWNER")
  - the owner's record owns the ConfigMap, the other's (if it has one) does not
  - the live ConfigMap carries the owner's stamp and the owner's data
  - with --audit: the API server's audit log holds no successful write to the ConfigMap by the
    other release's user (a create answered 409 AlreadyExists writes nothing, nor does a
    server-side dry run, which a verified plan sends for every changed object before its first
    write)
"""
import argparse
import json
import subprocess
import sys

p = argparse.ArgumentParser()
p.add_argument("kubectl")
p.add_argument("capstan")
p.add_argument("namespace")
p.add_argument("releases", nargs="+")
p.add_argument("--shared")
p.add_argument("--outcome", action="append", default=[])
p.add_argument("--audit")
p.add_argument("--user", action="append", default=[])
a = p.parse_args()
kubectl, capstan, ns = a.kubectl, a.capstan.split(), a.namespace
problems = []
owners = {}
records = {}
outcomes = {}
for o in a.outcome:
    rel, rest = o.split("=", 1)
    code, log = rest.split(":", 1)
    outcomes[rel] = (int(code), open(log, encoding="utf-8", errors="replace").read())
users = dict(u.split("=", 1) for u in a.user)


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def lease_held(lease):
    # a cast that ended releases its lease (no holder); one that died leaves it until taken over
    return bool(lease.get("spec", {}).get("holderIdentity"))


for rel in a.releases:
    r = run(capstan + ["release", "get", rel, "-n", ns, "-o", "json"])
    if r.returncode != 0:
        code = outcomes.get(rel, (0, ""))[0]
        if a.shared and code != 0 and "not found" in r.stderr:
            continue  # the race's loser failed before its first record: it wrote nothing
        problems.append(f"lost record: {ns}/{rel}: {r.stderr.strip()}")
        continue
    rec = json.loads(r.stdout)
    records[rel] = rec
    if rec["status"] == "pending":
        problems.append(f"stuck PENDING: {ns}/{rel} revision {rec['revision']}")
    lease = run([kubectl, "get", "lease", "-n", ns, "capstan.release.v1." + rel, "-o", "json"])
    if lease.returncode == 0 and lease_held(json.loads(lease.stdout)):
        holder = json.loads(lease.stdout)["spec"]["holderIdentity"]
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

if a.shared:
    key = f"ConfigMap/{ns}/{a.shared}"
    winners = [rel for rel in a.releases if outcomes.get(rel, (1, ""))[0] == 0]
    if len(winners) != 1:
        problems.append(f"race: {len(winners)} releases exited 0 ({' '.join(winners)}), not exactly one")
    else:
        owner = winners[0]
        for rel in a.releases:
            if rel == owner:
                continue
            code, out = outcomes[rel]
            rec = records.get(rel)
            # 3: the conflict was planned (nothing written, no record); 1: the create was fenced
            # mid-cast (the revision recorded failed)
            if code == 3:
                if rec is not None:
                    problems.append(f"race: {rel} exited 3 (conflict) but has a record")
            elif code == 1:
                if rec is None or rec["status"] != "failed":
                    problems.append(f"race: {rel} exited 1 (fenced) but its record is "
                                    f"{rec['status'] if rec else 'missing'}, not failed")
            else:
                problems.append(f"race: {rel} exited {code}, not 3 (conflict) or 1 (fenced)")
            if not any(key in line and f"by release {ns}/{owner}" in line
                       for line in out.splitlines()
                       if line.startswith(("capstan: release", "  - " + key))):
                problems.append(f"race: {rel}'s error does not name {key}'s owner {ns}/{owner}")
            if rec is not None and key in {o["key"] for o in rec["owns"]}:
                problems.append(f"race: {rel} lost but its record owns {key}")
        if owners.get(key) != owner:
            problems.append(f"race: {key} is owned by {owners.get(key)}, not by the winner {owner}")
        cm = run([kubectl, "get", "configmap", "-n", ns, a.shared, "-o", "json"])
        if cm.returncode != 0:
            problems.append(f"race: {key} does not exist: {cm.stderr.strip()}")
        else:
            obj = json.loads(cm.stdout)
            stamp = obj["metadata"].get("labels", {}).get("capstan.dev/release-name")
            value = obj.get("data", {}).get("value")
            if stamp != owner or value != owner:
                problems.append(f"race: {key} carries stamp {stamp} and data {value}, not {owner}'s")
        if a.audit:
            for rel in a.releases:
                if rel == owner or rel not in users:
                    continue
                writes = 0
                with open(a.audit, encoding="utf-8") as log:
                    for line in log:
                        e = json.loads(line)
                        ref = e.get("objectRef", {})
                        if (e.get("user", {}).get("username") == users[rel]
                                and ref.get("resource") == "configmaps"
                                and ref.get("namespace") == ns
                                and ref.get("name") == a.shared
                                and e.get("verb") in ("create", "update", "patch", "delete")
                                and "dryRun=All" not in e.get("requestURI", "")
                                and e.get("responseStatus", {}).get("code", 0) < 300):
                            writes += 1
                if writes:
                    problems.append(f"race: the audit log holds {writes} write(s) to {key} by {rel}")

for p in problems:
    print("  VIOLATION " + p)
sys.exit(1 if problems else 0)
