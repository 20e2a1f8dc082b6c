#!/usr/bin/env python3
"""Time of chosen functions in a causal-report tree profile (stdin: `causal-report DIR
--view tree --format json`), each sample charged to its innermost frame in the program's
own executable, the way causal-run charges a sample to a location (a sample in libc's
pthread_mutex_lock counts for the memcached function that called it), for memcached.sh's
s_eff:

  memcached-share.py EXE PATTERN...

EXE: the executable's path (a frame is in scope when its function's module is EXE).
PATTERN: F (frames of function F) or P/F (frames of F whose caller frame is P, e.g.
item_remove/item_lock: item_lock inlined into item_remove). Prints "SHARE TIME_NS":
SHARE of all sampled time, TIME_NS the time charged to the patterns."""
import json
import sys

exe = sys.argv[1]
patterns = [p.split("/", 1) if "/" in p else [None, p] for p in sys.argv[2:]]
profile = json.load(sys.stdin)["profile"]
module = {}
for row in profile.get("functions", []):
    module.setdefault(row.get("function"), row.get("module", ""))
nodes = {n["id"]: n for n in profile.get("tree", [])}


def in_scope(node):
    return module.get(node["function"]) == exe


def owner(node):
    while node is not None and not in_scope(node):
        node = nodes.get(node["parent"])
    return node


def matches(node):
    parent = nodes.get(node["parent"])
    for p, f in patterns:
        if node["function"] == f and (p is None or (parent is not None and parent["function"] == p)):
            return True
    return False


total = profile.get("time_ns") or 0
mine = 0
for n in nodes.values():
    if n["self_ns"]:
        o = owner(n)
        if o is not None and matches(o):
            mine += n["self_ns"]
print("%.6f %d" % (mine / total if total else 0.0, mine))
