# The clients users read our outputs with, prepared for the tests that run them for real
# (tests/report/real_clients_test.cpp). Each is optional: a test whose client is missing
# skips with a message naming the package.
#
#   CPROF_PPROF_CLIENT       Google's pprof, built here from the Go sources Debian ships in
#                            golang-github-google-pprof-dev (golang-go builds it offline,
#                            GOPATH mode); "" when either package is missing.
#   CPROF_SPEEDSCOPE_RELEASE speedscope's offline page (dist/release/index.html), from the
#                            npm package scripts/install-deps.sh installs under
#                            tests/clients/node_modules at the version package-lock.json pins;
#                            "" when it is not there.
find_program(CPROF_GO go)
set(CPROF_PPROF_GOPATH /usr/share/gocode)
set(CPROF_PPROF_CLIENT "")
if(CPROF_GO AND EXISTS ${CPROF_PPROF_GOPATH}/src/github.com/google/pprof/pprof.go)
  set(CPROF_PPROF_CLIENT ${CMAKE_BINARY_DIR}/clients/pprof)
  add_custom_command(OUTPUT ${CPROF_PPROF_CLIENT}
    COMMAND ${CMAKE_COMMAND} -E env GO111MODULE=off GOPATH=${CPROF_PPROF_GOPATH}
            GOCACHE=${CMAKE_BINARY_DIR}/clients/go-cache GOFLAGS= GOTOOLCHAIN=local
            ${CPROF_GO} build -o ${CPROF_PPROF_CLIENT} github.com/google/pprof
    COMMENT "Building Google's pprof from golang-github-google-pprof-dev"
    VERBATIM)
  add_custom_target(pprof_client ALL DEPENDS ${CPROF_PPROF_CLIENT})
else()
  message(STATUS "golang-go or golang-github-google-pprof-dev missing: pprof's own tests skip")
endif()

set(CPROF_SPEEDSCOPE_RELEASE
    ${CMAKE_SOURCE_DIR}/tests/clients/node_modules/speedscope/dist/release/index.html)
if(NOT EXISTS ${CPROF_SPEEDSCOPE_RELEASE})
  message(STATUS "speedscope's npm package missing (scripts/install-deps.sh): its tests skip")
  set(CPROF_SPEEDSCOPE_RELEASE "")
endif()
