# Every dependency comes from Debian's packages (scripts/install-deps.sh).
find_package(Threads REQUIRED)
find_package(PkgConfig REQUIRED)
find_package(ZLIB REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(TBB REQUIRED)

pkg_check_modules(LIBDW REQUIRED IMPORTED_TARGET libdw)
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)
# elfutils' debuginfod client: symbolize/ fetches debug files from DEBUGINFOD_URLS.
pkg_check_modules(LIBDEBUGINFOD REQUIRED IMPORTED_TARGET libdebuginfod)
pkg_check_modules(LIBUNWIND REQUIRED IMPORTED_TARGET libunwind)
# causal-run: decoding the code a --progress point is patched into (launcher/patch_planner.h).
pkg_check_modules(CAPSTONE REQUIRED IMPORTED_TARGET capstone)

# libpfm4: its headers at build time; libpfm.so.4 is dlopen'ed when an event is named
# (sampler/events/pfm_api.h), so it is not linked.
find_path(PFM_INCLUDE_DIR perfmon/pfmlib_perf_event.h REQUIRED)
add_library(cprof_pfm_headers INTERFACE)
target_include_directories(cprof_pfm_headers INTERFACE ${PFM_INCLUDE_DIR})
add_library(cprof::pfm_headers ALIAS cprof_pfm_headers)

if(CPROF_BUILD_TESTS)
  find_package(GTest REQUIRED)
  include(GoogleTest)
endif()
if(CPROF_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
