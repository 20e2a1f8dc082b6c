#!/usr/bin/env bash
# Installs every build, test and benchmark dependency from Debian's packages.
# Idempotent: packages already present are not fetched again.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libunwind-dev libdw-dev libelf-dev elfutils libpfm4-dev
  libdebuginfod-dev debuginfod  # symbolize/: debug files from servers; tests: a local one
  libtbb-dev libfmt-dev libcli11-dev zlib1g-dev libzstd-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libsqlite3-dev sqlite3 protobuf-compiler gzip
  chromium  # tests/report: the HTML report loaded headless (skipped when absent)
  libhsa-runtime-dev
  clang llvm llvm-dev binutils linux-perf coz-profiler
  libomp-dev  # tests/causal: an OpenMP program built by clang against LLVM's libomp
  openmpi-bin libopenmpi-dev  # tests/mpi: a halo-exchange job run under mpirun
)
# tests/e2e: a Rust and a Java program. A rustc or JDK already on PATH is used as it is.
command -v rustc >/dev/null 2>&1 || packages+=(rustc)
command -v javac >/dev/null 2>&1 || packages+=(default-jdk-headless)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
