// A program's own OMPT tool, linked into causal_openmp_llvm_tool (tests/causal): libomp
// starts one tool per runtime, so under causal-run this tool must still be the one
// started (the runtime's ompt_start_tool hands libomp the next definition's result), and
// the runtime says that it did not mark the waits. Prints to stdout when libomp starts
// and stops it, in plain and profiled runs alike.
#include <cstdint>
#include <cstdio>

namespace {

struct StartToolResult {  // ompt_start_tool_result_t
  int (*initialize)(void* lookup, int initial_device, void* tool_data);
  void (*finalize)(void* tool_data);
  uint64_t tool_data;
};

int initialize(void*, int, void*) {
  std::puts("own OMPT tool initialized");
  return 1;
}

void finalize(void*) { std::puts("own OMPT tool finalized"); }

}  // namespace

extern "C" __attribute__((visibility("default"))) StartToolResult* ompt_start_tool(unsigned,
                                                                                   const char*) {
  static StartToolResult result{&initialize, &finalize, 0};
  return &result;
}
