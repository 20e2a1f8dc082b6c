#!/usr/bin/env bash
# Installs every build, test and benchmark dependency from Debian's packages.
# Idempotent: packages already present are not fetched again.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libunwind-dev libdw-dev libelf-dev elfutils libpfm4-dev
  libcapstone-dev  # causal-run: decodes the code a --progress counter is patched into
  libdebuginfod-dev debuginfod  # symbolize/: debug files from servers; tests: a local one
  libtbb-dev libfmt-dev libcli11-dev zlib1g-dev libzstd-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  libsqlite3-dev sqlite3 protobuf-compiler gzip
  chromium  # tests/report: the HTML report loaded headless (skipped when absent)
  libhsa-runtime-dev
  clang llvm llvm-dev binutils linux-perf coz-profiler
  libomp-dev  # tests/causal: an OpenMP program built by clang against LLVM's libomp
  openmpi-bin libopenmpi-dev  # tests/mpi: a halo-exchange job run under mpirun
  gfortran  # tests/mpi: the same job in Fortran (mpifort), for the Fortran MPI names
  golang-go golang-github-google-pprof-dev  # tests/report: Google's pprof, built offline
)
# tests/e2e: a Rust and a Java program. A rustc or JDK already on PATH is used as it is.
command -v rustc >/dev/null 2>&1 || packages+=(rustc)
command -v javac >/dev/null 2>&1 || packages+=(default-jdk-headless)
# tests/report: speedscope's npm package. A node and npm already on PATH are used as they are.
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The npm packages the tests open our files with, at the versions package-lock.json pins.
# Without the registry the tests that need them skip, so a failure here is only a warning.
clients="$(cd "$(dirname "$0")/.." && pwd)/tests/clients"
want=$(sed -n 's/.*"speedscope": "\(.*\)".*/\1/p' "$clients/package.json")
have=$(sed -n 's/.*"version": "\(.*\)".*/\1/p' \
  "$clients/node_modules/speedscope/package.json" 2>/dev/null | head -1 || true)
if [[ "$have" != "$want" ]]; then
  echo "install-deps: npm ci in tests/clients (speedscope $want)"
  (cd "$clients" && npm ci --no-audit --no-fund --loglevel=error) ||
    echo "install-deps: warning: npm ci failed; the tests that open speedscope will skip"
fi
