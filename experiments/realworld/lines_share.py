#!/usr/bin/env python3
"""Self time of chosen code in a causal-report JSON profile (stdin), for s_eff:

  lines_share.py FILE LINE...     lines of FILE (matched as a path suffix)
  lines_share.py --function NAME  functions named NAME (their self time, inlined copies
                                  included, as the report attributes them)

Prints "SHARE TIME_NS TOTAL_NS": SHARE of all sampled time, TIME_NS their self time,
TOTAL_NS all sampled time."""
import json
import sys

profile = json.load(sys.stdin)["profile"]
total = profile.get("time_ns") or 0
mine = 0
if sys.argv[1] == "--function":
    names = set(sys.argv[2:])
    for row in profile.get("functions", []):
        if row.get("function", row.get("name")) in names:
            mine += row["self"]["time_ns"]
else:
    want_file = sys.argv[1]
    want_lines = {int(x) for x in sys.argv[2:]}
    for row in profile.get("lines", []):
        if row.get("file", "").endswith(want_file) and row.get("line") in want_lines:
            mine += row["self"]["time_ns"]
print("%.6f %d %d" % (mine / total if total else 0.0, mine, total))
