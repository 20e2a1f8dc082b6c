// The progress-point ABI the causal runtime exports: Coz's _coz_get_counter (coz.h) and
// the project's own table (include/causal/progress.h). Counting is lock-free; creating a
// point (the first visit of a call site) takes the registry's lock.

#include "causal/progress_registry.h"
#include "causal/runtime/causal_runtime.h"
#include "include/causal/progress.h"

namespace {

using cprof::causal::CausalRuntime;
using cprof::causal::ProgressKind;
using cprof::causal::ProgressPoint;
using cprof::causal::ProgressSource;

ProgressPoint* as_point(cprof_point* p) { return reinterpret_cast<ProgressPoint*>(p); }

cprof_point* api_point(int kind, const char* name, const char* file, unsigned line) {
  CausalRuntime* rt = CausalRuntime::instance();
  if (rt == nullptr || name == nullptr) return nullptr;
  ProgressPoint* p = rt->progress().find_or_add(
      name, kind == 1 ? ProgressKind::latency : ProgressKind::throughput, ProgressSource::api,
      file != nullptr ? file : "", line);
  // A latency point's begin/end pairs make region spans: the ring is made here, where
  // allocating is fine (first visit of a call site), not on the begin/end path.
  if (p != nullptr && kind == 1) rt->enable_region_spans();
  return reinterpret_cast<cprof_point*>(p);
}

void api_visit(cprof_point* p) { as_point(p)->visit(); }

void api_begin(cprof_point* p) {
  if (CausalRuntime* rt = CausalRuntime::instance()) {
    rt->latency_begin(*as_point(p));
  } else {
    as_point(p)->begin();
  }
}

void api_end(cprof_point* p) {
  if (CausalRuntime* rt = CausalRuntime::instance()) {
    rt->latency_end(*as_point(p));
  } else {
    as_point(p)->end();
  }
}

}  // namespace

extern "C" {

// extern: a namespace-scope const would have internal linkage in C++.
__attribute__((visibility("default"))) extern const cprof_progress_api cprof_progress_api_v1;
const cprof_progress_api cprof_progress_api_v1 = {
    1, api_point, api_visit, api_begin, api_end};

// coz.h's lookup: the counter of type `type` (1 throughput, 2 begin, 3 end) of the point
// `name`, laid out as coz_counter_t {size_t count; size_t backoff;}.
__attribute__((visibility("default"))) void* _coz_get_counter(int type, const char* name) {
  CausalRuntime* rt = CausalRuntime::instance();
  if (rt == nullptr) return nullptr;
  return rt->progress().coz_counter(type, name);
}

}  // extern "C"
