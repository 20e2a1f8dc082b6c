#!/usr/bin/env bash
# Prints accuracy.sh's table and mean absolute errors from its rows file(s):
#   experiments/causal/table.sh ROWS...
# Row: program S ours ci_low ci_high exps coz coz_exps actual [actual_low actual_high]
# (fractions; NA when missing; the actual's 95% interval, from its pairs of physical runs,
# is in rows written since 2026-11-29).
# Besides the errors, the coverage of causal-run's 95% intervals: the share of rows whose
# interval holds the physically measured speedup (issue 20's target: at least 90%). The
# actual has its own interval, as wide as ours or wider on this VM, so a row can miss for
# the actual's noise alone; "agree" counts the rows whose difference is within the two
# intervals' joint width (the half-widths on the sides that face each other, combined as
# independent errors: sqrt(a^2 + b^2)). A row that does not agree is a bias, not noise.
# SECOND names the second column (default coz; accuracy.sh's VERSUS sets "vs").
set -euo pipefail
second=${SECOND:-coz}
printf "%-17s %5s | %8s %17s %4s %7s %7s | %8s %7s %7s | %8s %17s\n" program S ours "95% CI" held exps err "$second" exps err actual "actual's 95% CI"
cat "$@" | awk -v second="$second" '
  function pc(v) { return v == "NA" ? "NA" : sprintf("%.1f", v * 100) }
  function ci(a, b) { return (a == "NA" || b == "NA") ? "NA" : sprintf("[%.1f, %.1f]", a * 100, b * 100) }
  function err(v, t) { return v == "NA" ? "NA" : sprintf("%+.1f", (v - t) * 100) }
  function held(lo, hi, t) { return (lo == "NA" || hi == "NA" || t == "NA") ? "NA" : (lo <= t && t <= hi ? "yes" : "no") }
  # ours (v, [lo, hi]) against the actual (t, [tlo, thi]): within the joint width?
  function agree(v, lo, hi, t, tlo, thi,   a, b) {
    if (v == "NA" || lo == "NA" || hi == "NA" || t == "NA" || tlo == "NA" || thi == "NA") return "NA"
    if (v <= t) { a = hi - v; b = t - tlo } else { a = v - lo; b = thi - t }
    return (v - t) ^ 2 <= a * a + b * b ? "yes" : "no"
  }
  {
    h = held($4, $5, $9)
    if (h != "NA") { nh++; if (h == "yes") kh++ }
    g = NF >= 11 ? agree($3, $4, $5, $9, $10, $11) : "NA"
    if (g != "NA") { ng++; if (g == "yes") kg++; else disagree = disagree sprintf(" %s@%s", $1, $2) }
    aci = NF >= 11 ? ci($10, $11) : "NA"
    if (aci != "NA") { aw += ($11 - $10) * 100; na++ }
    printf "%-17s %5s | %8s %17s %4s %7s %7s | %8s %7s %7s | %8s %17s\n", $1, $2, pc($3), ci($4, $5), h, $6,
      err($3, $9), pc($7), $8, err($7, $9), pc($9), aci
    # openmp-llvm (clang, LLVM libomp) is an extra runtime, beyond the programs of the issue.
    issue = $1 != "openmp-llvm"
    if ($3 != "NA") { so += ($3 > $9 ? $3 - $9 : $9 - $3) * 100; no++; if (issue) { so2 += ($3 > $9 ? $3 - $9 : $9 - $3) * 100; no2++ } }
    if ($7 != "NA") { sc += ($7 > $9 ? $7 - $9 : $9 - $7) * 100; nc++; if (issue) { sc2 += ($7 > $9 ? $7 - $9 : $9 - $7) * 100; nc2++ } }
  }
  END {
    print ""
    printf "MAE causal-run: %s points over %d rows (%s over the %d rows without openmp-llvm)\n", no ? sprintf("%.2f", so / no) : "NA", no, no2 ? sprintf("%.2f", so2 / no2) : "NA", no2
    printf "MAE %-12s%s points over %d rows (%s over the %d rows without openmp-llvm)\n", second ":", nc ? sprintf("%.2f", sc / nc) : "NA", nc, nc2 ? sprintf("%.2f", sc2 / nc2) : "NA", nc2
    if (na) printf "actual:         its own 95%% interval (pairs of physical runs) is %.1f points wide on average over %d rows\n", aw / na, na
    printf "coverage:       the 95%% intervals held the actual speedup in %d of %d rows (%s); target >= 90%%\n", kh, nh, nh ? sprintf("%.0f%%", 100 * kh / nh) : "NA"
    if (ng) printf "agree:          ours and the actual differ by less than their joint 95%% width in %d of %d rows%s\n", kg, ng, kg < ng ? "; not:" disagree : ""
    t = (no2 && so2 / no2 <= 3 && (!nc2 || so2 / no2 < sc2 / nc2)) ? "within target" : "OVER target"
    print "target: causal-run MAE <= 3 points and below Coz'"'"'s (the issue'"'"'s programs: without openmp-llvm): " t
  }'
