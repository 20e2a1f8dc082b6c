#!/usr/bin/env python3
"""Predictions of one causal run, for accuracy.sh.

  predict.py ours DIR SPEEDUP CAUSAL_REPORT
      runs `CAUSAL_REPORT DIR --format json` and prints the prediction at SPEEDUP (a
      fraction) of the first location/progress point that has it:
      "PRED CI_LOW CI_HIGH EXPERIMENTS BASELINES" (NA when missing).
  predict.py coz BASELINE.coz SPED.coz SPEEDUP
      Coz's prediction the way Coz's viewer computes it: for the selected line and each
      throughput point, period = sum(duration) / sum(delta) over the experiments at a
      speedup; program speedup = (p0 - ps) / p0 with the 0% experiments as the baseline
      (here from a separate `coz run --fixed-speedup 0` run: with --fixed-speedup Coz runs
      no baselines of its own). Prints "PRED NA NA EXPERIMENTS BASELINES".
  predict.py actual PAIRS
      the physically measured speedup from PAIRS, a line "P0 PS" (periods per progress
      visit) per back-to-back pair of an unmodified and a cut run: the median of the
      pairs' speedups 1 - PS/P0 and its distribution-free 95% interval (order statistics
      of the binomial(n, 1/2)): "ACTUAL CI_LOW CI_HIGH PAIRS". A pair's two runs see
      the same machine, so the VM's speed, which drifts by 20% over seconds here, mostly
      cancels in a pair and not between medians of separate runs.
"""
import math
import json
import subprocess
import sys


def ours(directory, speedup, report):
    out = subprocess.run([report, directory, "--format", "json"], check=True,
                         capture_output=True, text=True).stdout
    causal = json.loads(out).get("causal") or {}
    for pred in causal.get("predictions", []):
        pts = pred.get("points", [])
        base = next((p for p in pts if abs(p["speedup"]) < 1e-9), None)
        for p in pts:
            if abs(p["speedup"] - speedup) < 1e-6:
                f = lambda v: "NA" if v is None else "%.4f" % v
                print(f(p["program_speedup"]), f(p.get("ci_low")), f(p.get("ci_high")),
                      p.get("experiments", "NA"), base.get("experiments", "NA") if base else "NA")
                return
    print("NA NA NA 0 0")


def coz_periods(path):
    """{(selected, speedup): {point: [sum duration, sum delta, experiments]}}"""
    data = {}
    current = None
    with open(path) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            kv = dict(x.split("=", 1) for x in fields[1:] if "=" in x)
            if fields[0] == "experiment":
                current = (kv["selected"], round(float(kv["speedup"]), 4), int(kv["duration"]))
                key = current[:2]
                data.setdefault(key, {"__n": 0})
                data[key]["__n"] += 1
            elif fields[0] == "throughput-point" and current is not None:
                key = current[:2]
                acc = data[key].setdefault(kv["name"], [0, 0])
                acc[0] += current[2]
                acc[1] += int(kv["delta"])
    return data


def coz(base_path, sped_path, speedup):
    base = coz_periods(base_path)
    sped = coz_periods(sped_path)
    for (sel, s), points in sped.items():
        if abs(s - speedup) > 1e-3:
            continue
        b = base.get((sel, 0.0))
        if not b:
            continue
        for name, acc in points.items():
            if name == "__n" or name not in b or acc[1] == 0 or b[name][1] == 0:
                continue
            dur, delta = acc
            p0 = b[name][0] / b[name][1]
            ps = dur / delta
            print("%.4f NA NA %d %d" % ((p0 - ps) / p0, points["__n"], b["__n"]))
            return
    print("NA NA NA 0 0")


def actual(path):
    ratios = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 2 and float(fields[0]) > 0:
                ratios.append(1 - float(fields[1]) / float(fields[0]))
    ratios.sort()
    n = len(ratios)
    if n == 0:
        print("NA NA NA 0")
        return
    median = (ratios[(n - 1) // 2] + ratios[n // 2]) / 2
    # The median lies between the k-th smallest and the k-th largest ratio with
    # probability 1 - 2 P(Binomial(n, 1/2) < k); the largest k that keeps that >= 95%.
    k = 0
    while k + 1 <= n // 2:
        tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
        if 1 - 2 * tail < 0.95:
            break
        k += 1
    if k == 0:  # too few pairs for a 95% interval (n < 6)
        print("%.4f NA NA %d" % (median, n))
    else:
        print("%.4f %.4f %.4f %d" % (median, ratios[k - 1], ratios[n - k], n))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "ours":
        ours(sys.argv[2], float(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) == 5 and sys.argv[1] == "coz":
        coz(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    elif len(sys.argv) == 3 and sys.argv[1] == "actual":
        actual(sys.argv[2])
    else:
        sys.exit(__doc__)
