#!/usr/bin/env python3
"""Symbolizes the same random code addresses with causal-symbolize, llvm-symbolizer and
binutils addr2line, side by side, process start included; prints throughputs, ratios and
the agreement of causal-symbolize with llvm-symbolizer (function, file, line and the whole
inline chain), and lists disagreements.

usage: compare.py --binary APP --tool causal-symbolize [--count N] [--seed S] [--work DIR]
"""
import argparse
import os
import random
import re
import resource
import subprocess
import sys
import time


def sections(binary):
    out = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    found = {}
    for m in re.finditer(r"\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", out):
        found[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16))
    return found


def parse_llvm(path):
    """llvm-symbolizer output: per address, (function, file:line:col) pairs, blank line after."""
    blocks, cur = [], []
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        if lines[i] == "":
            if cur:
                blocks.append(cur)
                cur = []
            i += 1
            continue
        func = lines[i]
        loc = lines[i + 1] if i + 1 < len(lines) else "??:0:0"
        file, line, col = loc.rsplit(":", 2) if loc.count(":") >= 2 else (loc, "0", "0")
        cur.append((func, file, int(line or 0), int(col or 0)))
        i += 2
    if cur:
        blocks.append(cur)
    return blocks


def timed(cmd, stdin_path, stdout_path):
    """Wall time and CPU time (user + system) of one run, process start included."""
    with open(stdin_path) as i, open(stdout_path, "w") as o:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdin=i, stdout=o, stderr=subprocess.PIPE)
        dt = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if r.returncode != 0:
        sys.exit(f"{cmd[0]} failed ({r.returncode}): {r.stderr.decode(errors='replace')[:500]}")
    return dt, cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--tool", required=True)
    ap.add_argument("--count", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work", default=".")
    ap.add_argument("--show", type=int, default=20, help="disagreements to print")
    args = ap.parse_args()

    secs = sections(args.binary)
    dwarf = sum(size for name, (_, size) in secs.items() if name.startswith(".debug_"))
    text_addr, text_size = secs[".text"]
    print(f"binary: {args.binary}: .text {text_size / 1e6:.2f} MB, DWARF {dwarf / 1e6:.1f} MB")
    if dwarf < 10e6:
        print("warning: less than 10 MB of DWARF; raise --units in gen.py")

    rng = random.Random(args.seed)
    addrs = [text_addr + rng.randrange(text_size) for _ in range(args.count)]
    addr_file = os.path.join(args.work, "addresses.txt")
    with open(addr_file, "w") as f:
        f.write("".join(f"0x{a:x}\n" for a in addrs))

    tools = [
        ("causal-symbolize", [args.tool, "-e", args.binary, "-f", "-i", "-C", "--output-style=LLVM"]),
        ("llvm-symbolizer", ["llvm-symbolizer", "--obj=" + args.binary, "--inlining",
                             "--functions=linkage", "--demangle"]),
        ("addr2line", ["addr2line", "-e", args.binary, "-f", "-i", "-C"]),
    ]
    # The machines are shared: wall time is the headline (what a user waits for), CPU
    # time is the steadier figure when other work competes for the cores.
    times, cpus = {}, {}
    for name, cmd in tools:
        out = os.path.join(args.work, f"out.{name}.txt")
        times[name], cpus[name] = timed(cmd, addr_file, out)
        print(f"{name:17s} {args.count} addresses in {times[name]:7.3f} s wall = "
              f"{args.count / times[name]:8.0f} addresses/s; CPU {cpus[name]:7.3f} s")
    for other, target in (("llvm-symbolizer", ">= 2"), ("addr2line", "> 1")):
        print(f"speed ratio causal-symbolize / {other}: wall {times[other] / times['causal-symbolize']:.2f}x, "
              f"CPU {cpus[other] / cpus['causal-symbolize']:.2f}x (target {target})")

    a = parse_llvm(os.path.join(args.work, "out.causal-symbolize.txt"))
    b = parse_llvm(os.path.join(args.work, "out.llvm-symbolizer.txt"))
    if len(a) != len(b) or len(a) != len(addrs):
        sys.exit(f"answer counts differ: causal-symbolize {len(a)}, llvm-symbolizer {len(b)}, "
                 f"addresses {len(addrs)}")
    strip = lambda frames: [(f, fi, l) for f, fi, l, _ in frames]
    bad, bad_col = [], 0
    for addr, x, y in zip(addrs, a, b):
        if strip(x) != strip(y):
            bad.append((addr, x, y))
        elif x != y:
            bad_col += 1
    agree = 100.0 * (len(addrs) - len(bad)) / len(addrs)
    print(f"agreement with llvm-symbolizer (function, file, line, inline chain): "
          f"{len(addrs) - len(bad)}/{len(addrs)} = {agree:.3f}%")
    print(f"  of the agreeing answers, {bad_col} differ in a column number only")
    with open(os.path.join(args.work, "disagreements.txt"), "w") as f:
        for addr, x, y in bad:
            f.write(f"0x{addr:x}\n  causal-symbolize: {x}\n  llvm-symbolizer:  {y}\n")
    for addr, x, y in bad[: args.show]:
        print(f"disagreement at 0x{addr:x}\n  causal-symbolize: {x}\n  llvm-symbolizer:  {y}")
    if len(bad) > args.show:
        print(f"... {len(bad) - args.show} more in {args.work}/disagreements.txt")


if __name__ == "__main__":
    main()
