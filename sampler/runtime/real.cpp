#include "sampler/runtime/real.h"

#include <type_traits>

namespace cprof::real {
namespace {

// One cache per entry: constant-initialized globals, not function statics, whose guard
// may wait on a futex through syscall(), an interposed function itself.
#define CPROF_REAL_CACHE(name) decltype(&::name) g_##name = nullptr;
CPROF_REAL_DECLARED(CPROF_REAL_CACHE)
#undef CPROF_REAL_CACHE
#define CPROF_REAL_TYPED_CACHE(accessor, symbol, ...) \
  std::type_identity_t<__VA_ARGS__> g_##accessor = nullptr;
CPROF_REAL_TYPED(CPROF_REAL_TYPED_CACHE)
#undef CPROF_REAL_TYPED_CACHE

// Before the library's other constructors (priority 101 runs first within it).
__attribute__((constructor(101))) void resolve_at_load() { resolve_all(); }

}  // namespace

#define CPROF_DEFINE_REAL(name) \
  decltype(&::name) name() { return next_definition(g_##name, #name); }
CPROF_REAL_DECLARED(CPROF_DEFINE_REAL)
#undef CPROF_DEFINE_REAL
#define CPROF_DEFINE_REAL_TYPED(accessor, symbol, ...) \
  auto accessor()->__VA_ARGS__ { return next_definition(g_##accessor, symbol); }
CPROF_REAL_TYPED(CPROF_DEFINE_REAL_TYPED)
#undef CPROF_DEFINE_REAL_TYPED

void resolve_all() {
#define CPROF_RESOLVE_REAL(name) name();
  CPROF_REAL_DECLARED(CPROF_RESOLVE_REAL)
#undef CPROF_RESOLVE_REAL
#define CPROF_RESOLVE_REAL_TYPED(accessor, symbol, ...) accessor();
  CPROF_REAL_TYPED(CPROF_RESOLVE_REAL_TYPED)
#undef CPROF_RESOLVE_REAL_TYPED
}

}  // namespace cprof::real
