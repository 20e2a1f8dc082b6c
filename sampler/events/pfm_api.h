#pragma once
// libpfm4 loaded when an event is first named, privately (RTLD_LOCAL). Linked, it would be
// loaded into every profiled process, -e or not: its event tables carry ~41,000 relative
// relocations, which the dynamic loader applied at every start (most of the cost a
// short-lived process paid for being profiled), and its symbols would sit in the
// program's global scope, ahead of a libpfm the program loads itself.
//
// Not async-signal-safe (dlopen): the resolver calls it in a normal context.

#include <perfmon/pfmlib_perf_event.h>

#include <string>

namespace cprof::sampler {

struct PfmApi {
  pfm_err_t (*initialize)();
  const char* (*strerror)(int);
  pfm_err_t (*get_pmu_info)(pfm_pmu_t, pfm_pmu_info_t*);
  int (*get_event_next)(int);
  pfm_err_t (*get_event_info)(int, pfm_os_t, pfm_event_info_t*);
  pfm_err_t (*get_os_event_encoding)(const char*, int, pfm_os_t, void*);
};

// Loads and initializes libpfm4 once (thread-safe). Returns its functions, or null with
// `error` saying why (not installed, a function missing, pfm_initialize failed).
const PfmApi* pfm_api(std::string& error);

}  // namespace cprof::sampler
