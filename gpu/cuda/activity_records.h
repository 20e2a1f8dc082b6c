#pragma once
// Turns CUPTI's activity records (copied into the plain structs below, so this part
// builds and is tested without CUPTI) into the project's GPU records: kernel and gpu_copy
// joined to their launch, gpu_device once per device. Device ids: 0 is the host (the CPU
// end of copies), CUDA device N is N + 1.
//
// Not thread-safe: CUPTI's buffer callbacks are serialized by the caller.

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "format/records.h"
#include "gpu/common/clock_map.h"
#include "gpu/cuda/launch_join.h"

namespace cprof::gpu::cuda {

// CUpti_ActivityMemcpyKind values (cupti_activity.h); "A" is a CUDA array (device memory).
enum class CuptiCopyKind : uint8_t {
  unknown = 0, htod = 1, dtoh = 2, htoa = 3, atoh = 4, atoa = 5, atod = 6, dtoa = 7,
  dtod = 8, htoh = 9, ptop = 10,
};

format::CopyDirection copy_direction(uint8_t cupti_copy_kind);

struct KernelActivity {  // from CUpti_ActivityKernel*
  uint32_t correlation_id = 0;
  uint64_t start = 0;  // CUPTI timestamps (ns, CUPTI's clock)
  uint64_t end = 0;
  uint32_t device = 0;  // CUDA device ordinal
  uint32_t stream = 0;
  int64_t grid_id = 0;
  int32_t grid[3] = {0, 0, 0};   // blocks
  int32_t block[3] = {0, 0, 0};  // threads per block
  const char* name = nullptr;    // mangled; owned by CUPTI
};

struct CopyActivity {  // from CUpti_ActivityMemcpy*
  uint32_t correlation_id = 0;
  uint64_t start = 0;
  uint64_t end = 0;
  uint32_t device = 0;
  uint32_t stream = 0;
  uint64_t bytes = 0;
  uint8_t kind = 0;  // CuptiCopyKind
};

class ActivityRecords {
 public:
  using Sink = std::function<void(format::Record)>;
  ActivityRecords(LaunchJoin& join, Sink sink) : join_(join), sink_(std::move(sink)) {}

  // CUPTI's clock -> CLOCK_MONOTONIC, for the records built from now on.
  void set_clock(const ClockMap& clock) { clock_ = clock; }
  // A device's name (CUPTI_ACTIVITY_KIND_DEVICE), before or after its first kernel.
  void device(uint32_t device, const std::string& name);
  void kernel(const KernelActivity& a);
  void copy(const CopyActivity& a);

  static constexpr uint32_t kHostDeviceId = 0;
  static uint32_t device_id(uint32_t cuda_device) { return cuda_device + 1; }

 private:
  uint32_t known_device(uint32_t cuda_device);
  const std::string& kernel_name(const char* mangled);

  LaunchJoin& join_;
  Sink sink_;
  ClockMap clock_{};
  bool host_written_ = false;
  std::unordered_set<uint32_t> devices_;  // CUDA ordinals with a gpu_device record
  std::unordered_map<std::string, std::string> names_;  // mangled -> demangled
};

}  // namespace cprof::gpu::cuda
