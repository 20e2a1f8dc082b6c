#!/usr/bin/env python3
"""Time a function spends in some of its callees, from a causal-report tree profile
(stdin: `causal-report DIR --view tree --format json -n 0`), for s_eff when a change
moves a loop's work into library calls (pbzip2's MTF change: memchr and memmove):

  callees_share.py CALLER NAME...

Sums the total time of the tree nodes whose parent is CALLER and whose function name
contains one of the NAMEs (glibc's memchr is __memchr_evex, __memchr_avx2, ... by CPU).
Prints "SHARE TIME_NS": SHARE of all sampled time, TIME_NS that time."""
import json
import sys

caller = sys.argv[1]
names = sys.argv[2:]
profile = json.load(sys.stdin)["profile"]
nodes = {n["id"]: n for n in profile.get("tree", [])}
mine = 0
for n in nodes.values():
    parent = nodes.get(n["parent"])
    if parent and parent["function"] == caller and any(x in n["function"] for x in names):
        mine += n["total_ns"]
total = profile.get("time_ns") or 0
print("%.6f %d" % (mine / total if total else 0.0, mine))
