// A library the tests dlopen after the ModuleTable was built: frames in it can only be
// unwound once the table is refreshed.
#define DSO_FN extern "C" __attribute__((noinline, noclone, visibility("default")))

static volatile int dso_sink;

DSO_FN int cprof_test_dso_inner(void (*leaf)(void*), void* ctx) {
  leaf(ctx);
  dso_sink = dso_sink + 1;
  return dso_sink;
}

DSO_FN int cprof_test_dso_outer(void (*leaf)(void*), void* ctx) {
  int r = cprof_test_dso_inner(leaf, ctx);
  dso_sink = r;
  return r + 1;
}
