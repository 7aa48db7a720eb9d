#!/usr/bin/env python3
"""CPU of one command by thread: runs COMMAND..., reads /proc/PID/task/*/stat every 20 ms until it
exits, and prints each thread's CPU (user + system) at its last reading, C1's and C2's compiler
threads summed. For a JVM per command: where its CPU goes besides the code a profiler samples
(the compilers, the GC's VM thread). The last 20 ms before exit are not seen.

    testing/compare/thread-cpu.py java -jar capstan-cli/target/capstan-cli-all.jar release list

Not part of ./mvnw verify; figures in docs/benchmarks.md ("Re-casting a large bundle").
"""
import collections
import os
import subprocess
import sys
import time

if len(sys.argv) < 2:
    sys.exit(__doc__)
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
last = {}
while proc.poll() is None:
    try:
        tasks = os.listdir(f"/proc/{proc.pid}/task")
    except OSError:
        break
    for t in tasks:
        try:
            with open(f"/proc/{proc.pid}/task/{t}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{proc.pid}/task/{t}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        last[t] = (name, int(fields[11]) + int(fields[12]))
    time.sleep(0.02)
tick = os.sysconf("SC_CLK_TCK")
by_name = collections.Counter()
for name, ticks in last.values():
    for compiler in ("C1 CompilerThre", "C2 CompilerThre"):
        if name.startswith(compiler):
            name = compiler[:2] + " compiler threads"
    by_name[name] += ticks
print(f"exit {proc.returncode}; {sum(by_name.values()) * 1000 // tick} ms of CPU seen")
for name, ticks in by_name.most_common(8):
    print(f"{ticks * 1000 // tick:7d} ms  {name}")
