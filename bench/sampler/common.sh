# Shared helpers of the bench/sampler and experiments/sampler scripts (sourced).

# find_build_tools BUILD_DIR: sets BIN and checks the programs the scripts need.
find_build_tools() {
  local build=$1
  shift
  if [[ -z $build || ! -d $build ]]; then
    echo "usage: $0 BUILD_DIR   (a configured build, e.g. build-bench)" >&2
    exit 1
  fi
  BIN=$(cd "$build" && pwd)/bin
  local t
  for t in "$@"; do
    if [[ ! -x $BIN/$t ]]; then
      echo "$0: $BIN/$t is missing; build it: ninja -C $build $t" >&2
      exit 1
    fi
  done
}

# kv KEY LINE: the value of KEY=VALUE in LINE.
kv() {
  local key=$1 line=$2 word
  for word in $line; do
    if [[ $word == "$key="* ]]; then
      echo "${word#*=}"
      return
    fi
  done
  echo "NA"
}

# stats: reads numbers, one a line; prints "median min max q1 q3 n" (median of an even
# count is the mean of the middle two; quartiles by the same rule on each half).
stats() {
  sort -g | awk '
    { v[NR] = $1 }
    function med(lo, hi,   n, m) {
      n = hi - lo + 1; m = lo + int((n - 1) / 2)
      return (n % 2) ? v[m] : (v[m] + v[m + 1]) / 2
    }
    END {
      if (NR == 0) { print "NA NA NA NA NA 0"; exit }
      h = int(NR / 2)
      q1 = (h > 0) ? med(1, h) : v[1]
      q3 = (h > 0) ? med(NR - h + 1, NR) : v[NR]
      printf "%.4f %.4f %.4f %.4f %.4f %d\n", med(1, NR), v[1], v[NR], q1, q3, NR
    }'
}

# Over a data file of rows "CONFIG ROUND value...", $data (set by the caller):
# ratio_stats CONFIG COLUMN: per round, CONFIG's value / the same round's "plain" value,
# summarized by stats; abs_stats CONFIG COLUMN: CONFIG's values, summarized.
ratio_stats() {
  awk -v c="$1" -v col="$2" '
    $1 == "plain" { p[$2] = $col }
    $1 == c { v[$2] = $col }
    END { for (r in v) if (r in p && p[r] > 0) print v[r] / p[r] }' "$data" | stats
}
abs_stats() {
  awk -v c="$1" -v col="$2" '$1 == c { print $col }' "$data" | stats
}
# fmt_ratio "$(ratio_stats ...)": "median [min..max]".
fmt_ratio() {
  read -r med min max _ <<<"$1"
  printf "%6.3f [%5.3f..%5.3f]" "$med" "$min" "$max"
}
