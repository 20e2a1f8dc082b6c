# Shared helpers of the experiments/realworld scripts (sourced). Each script gets a
# Debian source package, builds it with its own build system and -O2 -g in an ignored
# work folder, runs a bounded workload under sample-run, causal-run and Coz, and
# measures what a real change to the code the automatic run ranks high gives.
#
# Environment: WORK (default experiments/realworld/work: sources, builds, results),
# COZ (default coz; COZ=none leaves Coz out), REPS (interleaved plain runs per build for
# the actual speedup, default 5).

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/../../bench/sampler/common.sh"
WORK=${WORK:-$here/work}
REPS=${REPS:-5}
mkdir -p "$WORK"

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }

# find_coz: sets coz_bin (COZ, default coz) and have_coz (0 when COZ=none or not found).
find_coz() {
  coz_bin=${COZ:-coz}
  have_coz=1
  if [[ $coz_bin == none ]] || ! command -v "$coz_bin" >/dev/null; then
    log "coz not found (COZ=$coz_bin): the Coz column stays empty"
    have_coz=0
  fi
}

# ensure_deb_src: apt-get source needs a deb-src entry for bookworm main; adds one (as
# its own file) when apt has none, and refreshes the package lists once.
ensure_deb_src() {
  if apt-get indextargets --format '$(CREATED_BY)' 2>/dev/null | grep -q '^Sources$'; then
    return
  fi
  log "adding a deb-src entry for bookworm main (/etc/apt/sources.list.d/cprof-deb-src.sources)"
  cat >/etc/apt/sources.list.d/cprof-deb-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  apt-get update -qq
}

# need_packages PKG...: installs the Debian packages that are missing.
need_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if ((${#missing[@]})); then
    log "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

# get_source PACKAGE: unpacks the source package once under $WORK/src and prints the
# unpacked directory.
get_source() {
  local pkg=$1 dir
  mkdir -p "$WORK/src"
  dir=$(find "$WORK/src" -maxdepth 1 -mindepth 1 -type d -name "$pkg-*" | head -1)
  if [[ -z $dir ]]; then
    ensure_deb_src
    need_packages dpkg-dev
    log "apt-get source $pkg"
    (cd "$WORK/src" && apt-get source -qq "$pkg" >/dev/null 2>&1) || {
      echo "$0: apt-get source $pkg failed" >&2
      exit 1
    }
    dir=$(find "$WORK/src" -maxdepth 1 -mindepth 1 -type d -name "$pkg-*" | head -1)
  fi
  echo "$dir"
}

# fresh_copy SRC DEST [PATCH]: DEST as a copy of SRC, with PATCH applied when given.
fresh_copy() {
  local src=$1 dest=$2 patch=${3:-}
  rm -rf "$dest"
  cp -a "$src" "$dest"
  if [[ -n $patch ]]; then
    patch -s -d "$dest" -p1 <"$patch"
  fi
}

# time_run SECONDS_FILE CMD...: runs CMD, appends its wall time in seconds to the file.
time_run() {
  local out=$1
  shift
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >/dev/null 2>&1
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l >>"$out"
}

# actual_speedup NAME BASE_CMD -- PATCHED_CMD: REPS back-to-back pairs of plain runs, one
# of each build, which goes first alternating; prints "MEDIAN_BASE MEDIAN_PATCHED SPEEDUP
# LOW HIGH": the medians of each build's times, and SPEEDUP = the median of the pairs'
# 1 - patched / base (the share of the run time the change saves, as causal-report's
# program_speedup) with its 95% interval (order statistics; NA below 6 pairs). A pair's
# two runs see the same machine: this VM's speed drifts by 20% over seconds, which moves
# separate medians and mostly cancels within a pair.
actual_speedup() {
  local name=$1
  shift
  local base_cmd=() patched_cmd=()
  while [[ $1 != -- ]]; do base_cmd+=("$1"); shift; done
  shift
  patched_cmd=("$@")
  local fb="$WORK/$name-base.times" fp="$WORK/$name-patched.times" i
  : >"$fb"
  : >"$fp"
  for ((i = 0; i < REPS; i++)); do
    if ((i % 2 == 0)); then
      time_run "$fb" "${base_cmd[@]}"
      time_run "$fp" "${patched_cmd[@]}"
    else
      time_run "$fp" "${patched_cmd[@]}"
      time_run "$fb" "${base_cmd[@]}"
    fi
  done
  local mb mp speedup lo hi
  mb=$(stats <"$fb" | cut -d' ' -f1)
  mp=$(stats <"$fp" | cut -d' ' -f1)
  read -r speedup lo hi _ <<<"$(paste -d' ' "$fb" "$fp" >"$WORK/$name.pairs" &&
    python3 "$here/../causal/predict.py" actual "$WORK/$name.pairs")"
  echo "$mb $mp $speedup $lo $hi"
}

# profile_and_rank OUT RUNS PROGRESS -- CMD...: the first two steps of each script: a
# sample-run profile of CMD (OUT/sample-base) and its top functions, then causal-run in
# automatic mode, RUNS runs with --progress PROGRESS (OUT/auto), and the ranking.
profile_and_rank() {
  local out=$1 runs=$2 progress=$3 t0
  shift 4
  log "sample-run (base)"
  rm -rf "$out/sample-base" "$out/auto"
  "$BIN/sample-run" -q -o "$out/sample-base" -- "$@" >/dev/null 2>&1
  "$BIN/causal-report" "$out/sample-base" -n 12
  log "causal-run, automatic, $runs runs"
  t0=$(date +%s)
  "$BIN/causal-run" -o "$out/auto" -n "$runs" --progress "$progress" -- "$@" >/dev/null
  log "automatic mode took $(($(date +%s) - t0)) s"
  "$BIN/causal-report" "$out/auto" -n 10 | sed -n '/^Causal profile/,$p'
}

# coz_end_to_end NAME FILE:LINE PERCENT RUNS DIR -- CMD...: Coz 0.2.2's prediction, end to
# end (it has no progress point without a source change), for FILE:LINE sped up by PERCENT:
# RUNS runs at PERCENT and as many at 0, interleaved, each run's time net of Coz's delays
# (its one end-to-end experiment line), run in DIR (where Coz writes profile.coz); prints
# 1 - median(sped up) / median(baseline). NAME prefixes the times files in $WORK.
coz_end_to_end() {
  local name=$1 line=$2 pct=$3 runs=$4 dir=$5 i s f
  shift 6
  : >"$WORK/$name-coz-0.times"
  : >"$WORK/$name-coz-s.times"
  for ((i = 0; i < runs; i++)); do
    for s in 0 "$pct"; do
      f="$WORK/$name-coz-s.times"
      [[ $s == 0 ]] && f="$WORK/$name-coz-0.times"
      rm -f "$dir/profile.coz"
      (cd "$dir" && "$coz_bin" run --end-to-end --fixed-line "$line" \
        --fixed-speedup "$s" --- "$@" >/dev/null 2>&1) || true
      python3 - "$dir/profile.coz" >>"$f" <<'PY'
import sys
for line in open(sys.argv[1]):
    if line.startswith("experiment\t"):
        kv = dict(x.split("=", 1) for x in line.strip().split("\t")[1:])
        print((int(kv["duration"]) - int(kv.get("delay", 0))) / 1e9)
PY
    done
  done
  local c0 cs
  c0=$(stats <"$WORK/$name-coz-0.times" | cut -d' ' -f1)
  cs=$(stats <"$WORK/$name-coz-s.times" | cut -d' ' -f1)
  echo "1 - $cs / $c0" | bc -l
}

# s_eff_of_shares BASE_SHARE PATCHED_SHARE: the changed code's own speedup from its share
# of each build's samples, against the rest of the program, which does the same work in
# both: 1 - (p / (1 - p)) / (b / (1 - b)). Drift of the machine's speed between the two
# profiled runs moves the changed code and the rest alike and cancels, where a ratio of
# the changed code's own times (1 - time_p / time_b) takes it whole: pbzip2's session-32
# profiles had the unchanged block sort 5% slower in the patched build's run.
s_eff_of_shares() {
  awk -v b="$1" -v p="$2" 'BEGIN {
    if (b <= 0 || b >= 1 || p >= 1) { print "NA"; exit }
    printf "%.4f\n", 1 - (p / (1 - p)) / (b / (1 - b)) }'
}

# s_eff_from_pairs OUT SHARE_FN -- BASE_CMD... -- PATCHED_CMD...: S_EFF_PAIRS (default 3)
# pairs of sample-run profiles of both builds, which goes first alternating
# (OUT/sample-base-I, OUT/sample-patched-I); `SHARE_FN DIR base|patched` prints the changed
# code's share of DIR's samples and the profile's sampled time in ns ("SHARE TOTAL_NS").
# Logs each pair (shares, sampled CPU seconds, s_eff by s_eff_of_shares) and prints the
# pairs' median s_eff.
s_eff_from_pairs() {
  local out=$1 share_fn=$2 pairs=${S_EFF_PAIRS:-3} i b p s tb tp first second
  local base_cmd=() patched_cmd=() list=()
  shift 3
  while [[ $1 != -- ]]; do base_cmd+=("$1"); shift; done
  shift
  patched_cmd=("$@")
  for ((i = 1; i <= pairs; i++)); do
    rm -rf "$out/sample-base-$i" "$out/sample-patched-$i"
    first=base second=patched
    ((i % 2 == 0)) && first=patched second=base
    for build in "$first" "$second"; do
      if [[ $build == base ]]; then
        "$BIN/sample-run" -q -o "$out/sample-base-$i" -- "${base_cmd[@]}" >/dev/null 2>&1
      else
        "$BIN/sample-run" -q -o "$out/sample-patched-$i" -- "${patched_cmd[@]}" >/dev/null 2>&1
      fi
    done
    read -r b tb <<<"$("$share_fn" "$out/sample-base-$i" base)"
    read -r p tp <<<"$("$share_fn" "$out/sample-patched-$i" patched)"
    s=$(s_eff_of_shares "$b" "$p")
    list+=("$s")
    log "s_eff pair $i: the changed code $(percent "$b")% of the base run's samples ($(seconds "$tb") s sampled), $(percent "$p")% of the patched run's ($(seconds "$tp") s): s_eff $(percent "$s")%"
  done
  printf '%s\n' "${list[@]}" | grep -v NA | stats | cut -d' ' -f1
}

# percent FRACTION: "12.3" for 0.123 (NA stays NA).
percent() { [[ $1 == NA ]] && echo NA || awk -v f="$1" 'BEGIN { printf "%.1f", f * 100 }'; }

# seconds NS: "12.34" for 12340000000.
seconds() { awk -v n="$1" 'BEGIN { printf "%.2f", n / 1e9 }'; }

# share_of_lines DIR FILE LINE...: the share of DIR's CPU samples whose innermost frame is
# one of FILE's LINEs, their time and all sampled time in ns: "SHARE TIME_NS TOTAL_NS".
share_of_lines() {
  local dir=$1
  shift
  "$BIN/causal-report" "$dir" --format json -n 0 | python3 "$here/lines_share.py" "$@"
}
