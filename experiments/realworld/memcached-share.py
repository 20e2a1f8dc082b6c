#!/usr/bin/env python3
"""Time of the samples whose call stack holds one of some functions, from a
causal-report tree profile (stdin: `causal-report DIR --view tree --format json`), for
memcached.sh's s_eff:

  memcached-share.py FUNCTION...

A sample counts when any frame of its stack (inlined frames included) is one of the
FUNCTIONs, which is how causal-run selects the samples of a --function location ("a
sample whose call stack holds L, any frame": the function's callees count, libc's and the
program's own). Each sample counts once, however many such frames it has. Prints
"SHARE TIME_NS": SHARE of all sampled time, TIME_NS the time of those samples."""
import json
import sys

functions = set(sys.argv[1:])
profile = json.load(sys.stdin)["profile"]
nodes = {n["id"]: n for n in profile.get("tree", [])}
memo = {}


def holds(node_id):
    """Whether the path from the root to this node has one of the functions."""
    path = []
    while node_id in nodes and node_id not in memo:
        path.append(node_id)
        node_id = nodes[node_id]["parent"]
    found = memo.get(node_id, False)
    for n in reversed(path):
        found = found or nodes[n]["function"] in functions
        memo[n] = found
    return memo[path[0]] if path else found


total = profile.get("time_ns") or 0
mine = sum(n["self_ns"] for n in nodes.values() if n["self_ns"] and holds(n["id"]))
print("%.6f %d" % (mine / total if total else 0.0, mine))
