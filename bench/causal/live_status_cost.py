#!/usr/bin/env python3
"""What causal-run's live status lines cost its launcher (docs/causal.md, "While it runs").

    bench/causal/live_status_cost.py BUILD_DIR [ROUNDS] -- PROGRAM ARGS...

Runs `causal-run -o DIR [options in CAUSAL_ARGS] -- PROGRAM ARGS` ROUNDS times (default 3)
with a look every 100 ms (CPROF_CAUSAL_STATUS_MS=100: tens of looks, where a real run
makes one a minute). The looks run on a thread of the launcher's own: its CPU time
(utime + stime of /proc/PID/task/TID/stat for the launcher's threads but the main one, the
last reading before they end) is what they cost, printed per run and per look; the
launcher's start-up (resolving the locations) varies by more than that between runs, so
the whole process's time would not show it. Example (7-Zip, from
experiments/realworld/7zip.sh's build):

    CAUSAL_ARGS="--progress LzmaEnc.c:3012" bench/causal/live_status_cost.py build -- \\
      experiments/realworld/work/7zip-build/CPP/7zip/Bundles/Alone2/b/g/7zz a -bd -m0=lzma \\
      -mx5 -mmt2 /tmp/lc.7z experiments/realworld/work/7zip-input.tar
"""
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def looks_cpu(causal_run, args, command, out):
    env = dict(os.environ, CPROF_CAUSAL_STATUS_MS="100")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.Popen([causal_run, "-o", out, *args, "--", *command], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    tick = os.sysconf("SC_CLK_TCK")
    cpu = {}  # thread id -> its last CPU time reading
    while p.poll() is None:
        try:
            for tid in os.listdir(f"/proc/{p.pid}/task"):
                if int(tid) == p.pid:
                    continue
                with open(f"/proc/{p.pid}/task/{tid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                cpu[tid] = (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
        time.sleep(0.01)
    looks = p.stderr.read().count(" so far on ")
    return sum(cpu.values()), looks


def main():
    if "--" not in sys.argv or len(sys.argv) < 4:
        sys.exit(__doc__)
    split = sys.argv.index("--")
    build, rounds = sys.argv[1], int(sys.argv[2]) if split > 2 else 3
    command = sys.argv[split + 1:]
    causal_run = os.path.join(build, "bin", "causal-run")
    args = shlex.split(os.environ.get("CAUSAL_ARGS", ""))
    out = tempfile.mkdtemp(prefix="live-status-cost-")
    per_look = []
    for r in range(rounds):
        cpu, looks = looks_cpu(causal_run, args, command, out + "/r")
        print(f"round {r + 1}: {looks} looks, {cpu * 1000:.0f} ms of CPU on the launcher's "
              f"other threads", flush=True)
        if looks:
            per_look.append(cpu / looks)
    if per_look:
        print(f"median {statistics.median(per_look) * 1000:.2f} ms of CPU a look "
              f"(at {os.sysconf('SC_CLK_TCK')} ticks a second)")
    shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
