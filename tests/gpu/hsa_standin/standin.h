#pragma once
// A test-only stand-in for the HSA runtime: enough of it to load and drive an HSA tools
// library (HSA_TOOLS_LIB) on a machine without an AMD GPU.
//
// It fills a real HsaApiTable (hsa_api_trace.h layouts and version fields), loads the tool
// with dlopen + OnLoad as the runtime does in hsa_init, and implements what a tool and a
// simple program use: two agents (a CPU and a GPU), signals with waits and async handlers
// (run on the stand-in's own handler thread, as the runtime runs them on its own),
// queues with an AQL ring, write indexes and a doorbell, queue interception (the
// registered handler sees the packets on the thread that rings the doorbell), queue
// profiling, executables with fake kernel symbols, and async copies. A "device" thread
// executes the packets: a kernel takes the ticks its FakeKernel says, in the HSA system
// clock domain (100 MHz, offset from CLOCK_MONOTONIC), and completes the packet's signal
// by decrementing it by one, as a packet processor does.
//
// One instance at a time per process (the table's functions find it through a global).

#include <cstdint>
#include <string>
#include <vector>

#define AMD_INTERNAL_BUILD 1
#include <hsa/hsa.h>
#include <hsa/hsa_api_trace.h>
#include <hsa/hsa_ext_amd.h>

namespace cprof::gpu::standin {

struct FakeKernel {
  std::string symbol;          // as in the code object, e.g. "_Z6squarePfi.kd"
  uint64_t kernel_object = 0;  // 0: a variable symbol, not a kernel
  uint64_t duration_ticks = 0; // execution time in system-clock ticks
};

class StandinRuntime {
 public:
  static constexpr uint64_t kSystemFrequency = 100000000;      // HSA system clock: 10 ns ticks
  static constexpr uint64_t kSystemOffsetNs = 7000000000ull;   // its zero, before the host's
  static constexpr uint64_t kCopyBytesPerTick = 100;           // 10 GB/s

  StandinRuntime();
  ~StandinRuntime();
  StandinRuntime(const StandinRuntime&) = delete;
  StandinRuntime& operator=(const StandinRuntime&) = delete;

  HsaApiTable* table() { return &container_.root; }
  const CoreApiTable& core() const { return container_.core; }
  const AmdExtTable& amd() const { return container_.amd_ext; }

  // dlopen(path) and OnLoad(table(), ...), as the runtime does for HSA_TOOLS_LIB.
  // Returns OnLoad's answer; error is set when the library or OnLoad cannot be found.
  bool load_tool(const std::string& path, std::string& error);
  // What hsa_init does with HSA_TOOLS_LIB: load_tool for every space-separated library it
  // names, in order. False at the first that fails, error then "PATH: why".
  bool load_tools_from_environment(std::string& error);
  // OnUnload, as hsa_shut_down does. The library stays loaded.
  void unload_tool();

  hsa_agent_t cpu_agent() const;
  hsa_agent_t gpu_agent() const;
  // An executable holding these symbols, loaded but not frozen.
  hsa_executable_t create_executable(const std::vector<FakeKernel>& symbols);

  // Kernels take their duration in real time (the device thread sleeps it) and
  // HSA_WAIT_STATE_ACTIVE waits spin, as a real runtime's active waits do. Off by default:
  // kernels complete at once and every wait blocks on a condition variable.
  void set_real_time(bool on);

  // Waits until every packet and copy submitted so far has executed and every async
  // handler that became due has run.
  void wait_idle();

  static uint64_t system_ticks_to_host_ns(uint64_t ticks) {
    return ticks * (1000000000 / kSystemFrequency) - kSystemOffsetNs;
  }

  // Observations for tests.
  uint64_t live_signals() const;
  uint64_t intercept_queues() const;
  uint64_t packets_executed() const;

 private:
  HsaApiTableContainer container_;
  void* tool_ = nullptr;
};

// What a program does to launch a kernel: reserve a slot, write the packet body, publish
// the header with release order, ring the doorbell. All through the runtime's table.
// Returns the packet's index.
uint64_t submit_packet(const CoreApiTable& core, hsa_queue_t* queue,
                       const hsa_kernel_dispatch_packet_t& packet);

// A kernel dispatch packet for `kernel_object` with a 1-D grid.
hsa_kernel_dispatch_packet_t dispatch_packet(uint64_t kernel_object, uint32_t grid,
                                             uint16_t workgroup, hsa_signal_t completion);

}  // namespace cprof::gpu::standin
