#include "gpu/cuda/activity_records.h"

#include <algorithm>

#include "gpu/common/demangle.h"

namespace cprof::gpu::cuda {

namespace {

// What kernel and copy records share: the launch (submit time, thread, call stack) joined
// by correlation id, and the device's start and end on the host clock. A record still
// running at a forced flush has no end (0): left untimed.
template <typename Record, typename Activity>
void join_launch_and_time(Record& r, const Activity& a, LaunchJoin& join, const ClockMap& clock) {
  if (const auto launch = join.take(a.correlation_id)) {
    r.time_ns = launch->time_ns;
    r.tid = launch->tid;
    r.frames = launch->frames;
  }
  if (a.start != 0 && a.end >= a.start) {
    r.start_ns = clock.to_host(a.start);
    r.end_ns = clock.to_host(a.end);
  }
}

}  // namespace

format::CopyDirection copy_direction(uint8_t cupti_copy_kind) {
  using D = format::CopyDirection;
  switch (static_cast<CuptiCopyKind>(cupti_copy_kind)) {
    case CuptiCopyKind::htod:
    case CuptiCopyKind::htoa:
      return D::host_to_device;
    case CuptiCopyKind::dtoh:
    case CuptiCopyKind::atoh:
      return D::device_to_host;
    case CuptiCopyKind::dtod:
    case CuptiCopyKind::atoa:
    case CuptiCopyKind::atod:
    case CuptiCopyKind::dtoa:
    case CuptiCopyKind::ptop:
      return D::device_to_device;
    case CuptiCopyKind::htoh:
      return D::host_to_host;
    default:
      return D::unknown;
  }
}

void ActivityRecords::device(uint32_t device, const std::string& name) {
  if (!devices_.insert(device).second) return;
  sink_(format::GpuDeviceRecord{
      .id = device_id(device), .name = name, .kind = format::GpuDeviceKind::gpu});
}

uint32_t ActivityRecords::known_device(uint32_t cuda_device) {
  if (!host_written_) {
    host_written_ = true;
    sink_(format::GpuDeviceRecord{
        .id = kHostDeviceId, .name = "host", .kind = format::GpuDeviceKind::cpu});
  }
  device(cuda_device, "CUDA device " + std::to_string(cuda_device));
  return device_id(cuda_device);
}

const std::string& ActivityRecords::kernel_name(const char* mangled) {
  const std::string key = mangled != nullptr ? mangled : "";
  auto it = names_.find(key);
  if (it == names_.end()) it = names_.emplace(key, demangle_kernel_name(key)).first;
  return it->second;
}

void ActivityRecords::kernel(const KernelActivity& a) {
  format::KernelRecord r;
  r.device_id = known_device(a.device);
  join_launch_and_time(r, a, join_, clock_);
  r.queue_id = a.stream;
  r.name = kernel_name(a.name);
  r.dispatch_id = static_cast<uint64_t>(a.grid_id);
  for (int i = 0; i < 3; ++i) {
    // The record's grid counts work-items (HSA's meaning); CUDA's grid counts blocks.
    const int64_t items = int64_t{std::max(a.grid[i], 0)} * std::max(a.block[i], 0);
    r.grid[i] = static_cast<uint32_t>(std::min<int64_t>(items, UINT32_MAX));
    r.workgroup[i] = static_cast<uint32_t>(std::max(a.block[i], 0));
  }
  r.correlation_id = a.correlation_id;
  sink_(std::move(r));
}

void ActivityRecords::copy(const CopyActivity& a) {
  format::CopyRecord r;
  const uint32_t gpu = known_device(a.device);
  join_launch_and_time(r, a, join_, clock_);
  r.bytes = a.bytes;
  r.direction = copy_direction(a.kind);
  using D = format::CopyDirection;
  r.src_device_id = r.direction == D::host_to_device || r.direction == D::host_to_host
                        ? kHostDeviceId : gpu;
  r.dst_device_id = r.direction == D::device_to_host || r.direction == D::host_to_host
                        ? kHostDeviceId : gpu;
  r.correlation_id = a.correlation_id;
  sink_(std::move(r));
}

}  // namespace cprof::gpu::cuda
