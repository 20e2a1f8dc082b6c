#include "gpu/hsa/tracer.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <utility>
#include <cstdlib>
#include <cstring>

#include "gpu/common/tool_settings.h"

namespace cprof::gpu::hsa {
namespace {

constexpr uint64_t kCalibrateEveryNs = 1000000000;

// Bytes of a table that this tool reads: every function up to and including `last`.
template <typename Table, typename Field>
constexpr uint32_t bytes_through(Field Table::*last) {
  const Table* t = nullptr;
  return static_cast<uint32_t>(reinterpret_cast<const char*>(&(t->*last)) -
                               reinterpret_cast<const char*>(t) + sizeof(Field));
}

uint32_t packet_type(uint16_t header) {
  return (header >> HSA_PACKET_HEADER_TYPE) & ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1);
}

format::CopyDirection direction_of(format::GpuDeviceKind src, format::GpuDeviceKind dst) {
  using K = format::GpuDeviceKind;
  using D = format::CopyDirection;
  if (src == K::cpu && dst == K::gpu) return D::host_to_device;
  if (src == K::gpu && dst == K::cpu) return D::device_to_host;
  if (src == K::gpu && dst == K::gpu) return D::device_to_device;
  if (src == K::cpu && dst == K::cpu) return D::host_to_host;
  return D::unknown;
}

}  // namespace

// One tracked dispatch or copy, from submission to its completion handler.
struct Tracer::Pending {
  Tracer* tracer = nullptr;
  hsa_signal_t ours{};      // the tool's completion signal in the packet
  hsa_signal_t original{};  // the program's (handle 0: none)
  hsa_agent_t agent{};      // where it ran (dispatch time needs it)
  const QueueInfo* queue = nullptr;
  uint64_t kernel_object = 0;
  uint64_t dispatch_id = 0;
  uint32_t grid[3] = {0, 0, 0};
  uint32_t workgroup[3] = {0, 0, 0};
  Device src{}, dst{};      // copies
  uint64_t bytes = 0;
  uint64_t time_ns = 0;
  int64_t tid = 0;
  uint64_t correlation_id = 0;
  std::vector<uint64_t> frames;
};

std::string Tracer::check_table(const HsaApiTable* table) {
  if (table == nullptr) return "no API table";
  if (table->version.major_id != HSA_API_TABLE_MAJOR_VERSION) {
    return "API table major version " + std::to_string(table->version.major_id) +
           " (this tool knows " + std::to_string(HSA_API_TABLE_MAJOR_VERSION) + ")";
  }
  if (table->version.minor_id < offsetof(HsaApiTable, amd_ext_) + sizeof(void*)) {
    return "API table of " + std::to_string(table->version.minor_id) +
           " bytes has no AMD extension table";
  }
  const CoreApiTable* core = table->core_;
  const AmdExtTable* amd = table->amd_ext_;
  if (core == nullptr || core->version.major_id != HSA_CORE_API_TABLE_MAJOR_VERSION ||
      core->version.minor_id < bytes_through(&CoreApiTable::hsa_executable_iterate_symbols_fn)) {
    return "core API table of an unexpected version (major " +
           std::to_string(core != nullptr ? core->version.major_id : 0) + ", " +
           std::to_string(core != nullptr ? core->version.minor_id : 0) + " bytes)";
  }
  if (amd == nullptr || amd->version.major_id != HSA_AMD_EXT_API_TABLE_MAJOR_VERSION ||
      amd->version.minor_id < bytes_through(&AmdExtTable::hsa_amd_queue_intercept_register_fn)) {
    return "AMD extension table of an unexpected version (major " +
           std::to_string(amd != nullptr ? amd->version.major_id : 0) + ", " +
           std::to_string(amd != nullptr ? amd->version.minor_id : 0) +
           " bytes): no queue interception";
  }
  for (const void* fn : {reinterpret_cast<const void*>(core->hsa_queue_create_fn),
                         reinterpret_cast<const void*>(core->hsa_signal_create_fn),
                         reinterpret_cast<const void*>(core->hsa_signal_store_relaxed_fn),
                         reinterpret_cast<const void*>(core->hsa_signal_subtract_screlease_fn),
                         reinterpret_cast<const void*>(core->hsa_signal_wait_scacquire_fn),
                         reinterpret_cast<const void*>(core->hsa_system_get_info_fn),
                         reinterpret_cast<const void*>(core->hsa_agent_get_info_fn),
                         reinterpret_cast<const void*>(amd->hsa_amd_queue_intercept_create_fn),
                         reinterpret_cast<const void*>(amd->hsa_amd_queue_intercept_register_fn),
                         reinterpret_cast<const void*>(amd->hsa_amd_signal_async_handler_fn),
                         reinterpret_cast<const void*>(
                             amd->hsa_amd_profiling_set_profiler_enabled_fn),
                         reinterpret_cast<const void*>(
                             amd->hsa_amd_profiling_get_dispatch_time_fn)}) {
    if (fn == nullptr) return "API table lacks a function the tool needs";
  }
  return "";
}

Tracer::Tracer(const HsaApiTable& table)
    : stacks_(launch_stack_depth_from_environment(), launch_stacks_from_environment()), file_(stacks_.modules()) {
  std::memcpy(&core_, table.core_, std::min<size_t>(table.core_->version.minor_id, sizeof core_));
  std::memcpy(&amd_, table.amd_ext_,
              std::min<size_t>(table.amd_ext_->version.minor_id, sizeof amd_));
}

std::string Tracer::start() {
  {
    std::lock_guard lock(clock_mutex_);
    calibrate_locked();
  }
  std::string err;
  const auto duty = trace_duty_from_environment(err);
  if (!duty) return err;
  if (err = file_.open(gpu_results_stem(output_dir_from_environment()), "hsa"); !err.empty()) {
    return err;
  }
  if (duty->windowed()) {
    windows_ = start_trace_windows(
        *duty, [this](bool on) { tracing_.store(on, std::memory_order_relaxed); }, file_);
  }
  return "";
}

void Tracer::stop() {
  // A forked child's exit: joining the parent's threads here would wait forever (their
  // pthread_t may even name a thread of the child's that reused the stack).
  if (::getpid() != pid_) return;
  if (windows_ && file_.is_open()) {
    windows_->stop();
    // What the windows left out, for the report's reader: HSA sees every submission.
    file_.add(format::MessageRecord{
        .time_ns = monotonic_ns(),
        .level = format::MessageLevel::info,
        .text = "cprof-hsa: between trace windows " +
                std::to_string(counters_.packets_outside_windows.load()) + " AQL packets and " +
                std::to_string(counters_.copies_outside_windows.load()) +
                " async copies passed untraced"});
  }
  file_.close();
}

void Tracer::calibrate_locked() {
  uint64_t frequency = 0;
  if (core_.hsa_system_get_info_fn(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &frequency) !=
          HSA_STATUS_SUCCESS ||
      frequency == 0) {
    frequency = 1000000000;
  }
  const auto map = calibrate_clock(
      [this](uint64_t& ticks) {
        return core_.hsa_system_get_info_fn(HSA_SYSTEM_INFO_TIMESTAMP, &ticks) ==
               HSA_STATUS_SUCCESS;
      },
      1e9 / static_cast<double>(frequency));
  if (map) clock_ = *map;
  calibrated_at_ns_ = monotonic_ns();
}

uint64_t Tracer::to_host(uint64_t ticks) {
  std::lock_guard lock(clock_mutex_);
  if (monotonic_ns() - calibrated_at_ns_ > kCalibrateEveryNs) calibrate_locked();
  return clock_.to_host(ticks);
}

bool Tracer::take_signal(hsa_signal_t& out) {
  {
    std::lock_guard lock(signals_mutex_);
    if (!free_signals_.empty()) {
      out = free_signals_.back();
      free_signals_.pop_back();
      return true;
    }
  }
  return core_.hsa_signal_create_fn(1, 0, nullptr, &out) == HSA_STATUS_SUCCESS;
}

void Tracer::return_signal(hsa_signal_t s) {
  core_.hsa_signal_store_relaxed_fn(s, 1);
  std::lock_guard lock(signals_mutex_);
  free_signals_.push_back(s);
}

Device Tracer::device_of(hsa_agent_t agent) {
  std::lock_guard lock(devices_mutex_);
  if (const auto it = devices_.find(agent.handle); it != devices_.end()) return it->second;
  Device d;
  d.id = static_cast<uint32_t>(devices_.size());
  char name[64] = {};
  core_.hsa_agent_get_info_fn(agent, HSA_AGENT_INFO_NAME, name);
  hsa_device_type_t type = HSA_DEVICE_TYPE_DSP;
  if (core_.hsa_agent_get_info_fn(agent, HSA_AGENT_INFO_DEVICE, &type) == HSA_STATUS_SUCCESS) {
    d.kind = type == HSA_DEVICE_TYPE_CPU   ? format::GpuDeviceKind::cpu
             : type == HSA_DEVICE_TYPE_GPU ? format::GpuDeviceKind::gpu
                                           : format::GpuDeviceKind::other;
  }
  devices_.emplace(agent.handle, d);
  file_.add(format::GpuDeviceRecord{
      .id = d.id, .name = std::string(name, strnlen(name, sizeof name)), .kind = d.kind});
  return d;
}

hsa_status_t Tracer::queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                  void (*callback)(hsa_status_t, hsa_queue_t*, void*),
                                  void* data, uint32_t private_segment_size,
                                  uint32_t group_segment_size, hsa_queue_t** queue) {
  hsa_status_t status = amd_.hsa_amd_queue_intercept_create_fn(
      agent, size, type, callback, data, private_segment_size, group_segment_size, queue);
  if (status != HSA_STATUS_SUCCESS) {
    // Not every queue can be intercepted; the program still gets its queue, untimed.
    return core_.hsa_queue_create_fn(agent, size, type, callback, data, private_segment_size,
                                     group_segment_size, queue);
  }
  auto info = std::make_unique<QueueInfo>();
  info->tracer = this;
  info->agent = agent;
  info->device_id = device_of(agent).id;
  info->queue_id = (*queue)->id;
  amd_.hsa_amd_profiling_set_profiler_enabled_fn(*queue, 1);
  QueueInfo* raw = info.get();
  {
    std::lock_guard lock(queues_mutex_);
    queues_.push_back(std::move(info));
  }
  status = amd_.hsa_amd_queue_intercept_register_fn(
      *queue,
      [](const void* pkts, uint64_t count, uint64_t user_index, void* user_data,
         hsa_amd_queue_intercept_packet_writer writer) {
        auto* q = static_cast<QueueInfo*>(user_data);
        q->tracer->on_submit(pkts, count, user_index, q, writer);
      },
      raw);
  // An intercept queue without a handler forwards packets unchanged: still a valid queue.
  (void)status;
  return HSA_STATUS_SUCCESS;
}

void Tracer::fill_launch(Pending& p) {
  p.tracer = this;
  p.time_ns = monotonic_ns();
  p.tid = current_tid();
  p.correlation_id = next_correlation_.fetch_add(1, std::memory_order_relaxed);
}

void Tracer::on_submit(const void* packets, uint64_t count, uint64_t user_index,
                       QueueInfo* queue, hsa_amd_queue_intercept_packet_writer writer) {
  if (!tracing_.load(std::memory_order_relaxed)) {
    counters_.packets_outside_windows.fetch_add(count, std::memory_order_relaxed);
    writer(packets, count);
    return;
  }
  thread_local std::vector<hsa_kernel_dispatch_packet_t> copy;
  thread_local std::vector<uint64_t> frames;
  copy.assign(static_cast<const hsa_kernel_dispatch_packet_t*>(packets),
              static_cast<const hsa_kernel_dispatch_packet_t*>(packets) + count);
  bool have_stack = false;
  for (uint64_t i = 0; i < count; ++i) {
    auto& pkt = copy[i];
    if (packet_type(pkt.header) != HSA_PACKET_TYPE_KERNEL_DISPATCH) continue;
    hsa_signal_t ours{};
    if (!take_signal(ours)) {
      counters_.untracked.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    if (!have_stack) {  // one stack serves every packet of one submission
      frames.resize(stacks_.max_depth());
      frames.resize(stacks_.capture(frames.data()));
      have_stack = true;
    }
    auto* p = new Pending;
    fill_launch(*p);
    p->ours = ours;
    p->original = pkt.completion_signal;
    p->agent = queue->agent;
    p->queue = queue;
    p->kernel_object = pkt.kernel_object;
    p->dispatch_id = user_index + i;
    p->grid[0] = pkt.grid_size_x;
    p->grid[1] = pkt.grid_size_y;
    p->grid[2] = pkt.grid_size_z;
    p->workgroup[0] = pkt.workgroup_size_x;
    p->workgroup[1] = pkt.workgroup_size_y;
    p->workgroup[2] = pkt.workgroup_size_z;
    p->frames = frames;
    if (amd_.hsa_amd_signal_async_handler_fn(ours, HSA_SIGNAL_CONDITION_LT, 1,
                                             on_dispatch_complete, p) != HSA_STATUS_SUCCESS) {
      return_signal(ours);
      delete p;
      counters_.untracked.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    pkt.completion_signal = ours;
    counters_.dispatches.fetch_add(1, std::memory_order_relaxed);
  }
  writer(copy.data(), count);
}

bool Tracer::on_dispatch_complete(hsa_signal_value_t, void* arg) {
  std::unique_ptr<Pending> p(static_cast<Pending*>(arg));
  Tracer& t = *p->tracer;
  hsa_amd_profiling_dispatch_time_t time{};
  const bool timed = t.amd_.hsa_amd_profiling_get_dispatch_time_fn(p->agent, p->ours, &time) ==
                     HSA_STATUS_SUCCESS;
  // The program's signal first: it waits on it, the record can wait.
  if (p->original.handle != 0) t.core_.hsa_signal_subtract_screlease_fn(p->original, 1);
  t.return_signal(p->ours);
  t.counters_.completed.fetch_add(1, std::memory_order_relaxed);
  format::KernelRecord r;
  r.time_ns = p->time_ns;
  if (timed) {
    r.start_ns = t.to_host(time.start);
    r.end_ns = t.to_host(time.end);
  }
  r.device_id = p->queue->device_id;
  r.queue_id = p->queue->queue_id;
  r.name = t.names_.find(p->kernel_object);
  r.dispatch_id = p->dispatch_id;
  std::copy(std::begin(p->grid), std::end(p->grid), r.grid);
  std::copy(std::begin(p->workgroup), std::end(p->workgroup), r.workgroup);
  r.tid = p->tid;
  r.frames = std::move(p->frames);
  r.correlation_id = p->correlation_id;
  t.file_.add(std::move(r));
  return false;  // one dispatch, one handler
}

hsa_status_t Tracer::executable_freeze(hsa_executable_t exe, const char* options) {
  const hsa_status_t status = core_.hsa_executable_freeze_fn(exe, options);
  if (status == HSA_STATUS_SUCCESS) names_.add_executable(core_, exe);
  return status;
}

hsa_status_t Tracer::executable_destroy(hsa_executable_t exe) {
  names_.remove_executable(exe);
  return core_.hsa_executable_destroy_fn(exe);
}

hsa_status_t Tracer::async_copy_enable(bool enable) {
  // The tool needs copy timestamps for as long as it runs: a program's "disable" only
  // changes what the program itself would see, which nothing observes.
  if (!enable && copy_profiling_.load()) return HSA_STATUS_SUCCESS;
  return amd_.hsa_amd_profiling_async_copy_enable_fn(enable);
}

template <typename Ends, typename Forward>
hsa_status_t Tracer::track_copy(Ends&& ends, uint64_t bytes, hsa_signal_t completion,
                                Forward&& forward) {
  if (!tracing_.load(std::memory_order_relaxed)) {
    counters_.copies_outside_windows.fetch_add(1, std::memory_order_relaxed);
    return forward(completion);
  }
  hsa_signal_t ours{};
  if (completion.handle == 0 || amd_.hsa_amd_profiling_get_async_copy_time_fn == nullptr ||
      !take_signal(ours)) {
    counters_.untracked.fetch_add(1, std::memory_order_relaxed);
    return forward(completion);
  }
  std::call_once(copy_profiling_once_, [this] {
    copy_profiling_ = amd_.hsa_amd_profiling_async_copy_enable_fn != nullptr &&
                      amd_.hsa_amd_profiling_async_copy_enable_fn(true) == HSA_STATUS_SUCCESS;
  });
  auto p = std::make_unique<Pending>();
  fill_launch(*p);
  p->ours = ours;
  p->original = completion;
  std::tie(p->src, p->dst) = ends();
  p->bytes = bytes;
  p->frames.resize(stacks_.max_depth());
  p->frames.resize(stacks_.capture(p->frames.data()));
  const hsa_status_t status = forward(ours);
  if (status != HSA_STATUS_SUCCESS) {
    return_signal(ours);
    return status;
  }
  // Armed after the copy was accepted (a refused copy never signals); a handler armed on
  // a signal that is already below 1 runs at once.
  Pending* raw = p.release();
  if (amd_.hsa_amd_signal_async_handler_fn(ours, HSA_SIGNAL_CONDITION_LT, 1, on_copy_complete,
                                           raw) != HSA_STATUS_SUCCESS) {
    // Cannot watch it: wait here so the program's signal is still forwarded.
    core_.hsa_signal_wait_scacquire_fn(ours, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                                       HSA_WAIT_STATE_BLOCKED);
    on_copy_complete(0, raw);
    return HSA_STATUS_SUCCESS;
  }
  counters_.copies.fetch_add(1, std::memory_order_relaxed);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t Tracer::memory_async_copy(void* dst, hsa_agent_t dst_agent, const void* src,
                                       hsa_agent_t src_agent, size_t size,
                                       uint32_t num_dep_signals,
                                       const hsa_signal_t* dep_signals,
                                       hsa_signal_t completion) {
  return track_copy([&] { return std::pair(device_of(src_agent), device_of(dst_agent)); }, size,
                    completion, [&](hsa_signal_t signal) {
                      return amd_.hsa_amd_memory_async_copy_fn(dst, dst_agent, src, src_agent,
                                                               size, num_dep_signals,
                                                               dep_signals, signal);
                    });
}

Device Tracer::host_device() {
  std::call_once(host_agent_once_, [this] {
    core_.hsa_iterate_agents_fn(
        [](hsa_agent_t agent, void* data) {
          auto* t = static_cast<Tracer*>(data);
          hsa_device_type_t type{};
          if (t->core_.hsa_agent_get_info_fn(agent, HSA_AGENT_INFO_DEVICE, &type) ==
                  HSA_STATUS_SUCCESS &&
              type == HSA_DEVICE_TYPE_CPU) {
            t->host_agent_ = agent;
            return HSA_STATUS_INFO_BREAK;
          }
          return HSA_STATUS_SUCCESS;
        },
        this);
  });
  if (host_agent_.handle == 0) return Device{.id = 0, .kind = format::GpuDeviceKind::cpu};
  return device_of(host_agent_);
}

hsa_status_t Tracer::memory_async_copy_rect(const hsa_pitched_ptr_t* dst,
                                            const hsa_dim3_t* dst_offset,
                                            const hsa_pitched_ptr_t* src,
                                            const hsa_dim3_t* src_offset, const hsa_dim3_t* range,
                                            hsa_agent_t copy_agent, hsa_amd_copy_direction_t dir,
                                            uint32_t num_dep_signals,
                                            const hsa_signal_t* dep_signals,
                                            hsa_signal_t completion) {
  const auto forward = [&](hsa_signal_t signal) {
    return amd_.hsa_amd_memory_async_copy_rect_fn(dst, dst_offset, src, src_offset, range,
                                                  copy_agent, dir, num_dep_signals, dep_signals,
                                                  signal);
  };
  if (range == nullptr) return forward(completion);  // the runtime says what is wrong
  // The copy agent is the device end; the direction says which ends are the host's.
  const auto ends = [&] {
    const Device agent = device_of(copy_agent);
    const bool from_host = dir == hsaHostToDevice || dir == hsaHostToHost;
    const bool to_host = dir == hsaDeviceToHost || dir == hsaHostToHost;
    const Device host = from_host || to_host ? host_device() : agent;
    return std::pair(from_host ? host : agent, to_host ? host : agent);
  };
  // range.x is in bytes, y and z in rows and layers.
  const uint64_t bytes = uint64_t{range->x} * range->y * range->z;
  return track_copy(ends, bytes, completion, forward);
}

bool Tracer::on_copy_complete(hsa_signal_value_t, void* arg) {
  std::unique_ptr<Pending> p(static_cast<Pending*>(arg));
  Tracer& t = *p->tracer;
  hsa_amd_profiling_async_copy_time_t time{};
  const bool timed = t.copy_profiling_.load() &&
                     t.amd_.hsa_amd_profiling_get_async_copy_time_fn(p->ours, &time) ==
                         HSA_STATUS_SUCCESS;
  t.core_.hsa_signal_subtract_screlease_fn(p->original, 1);
  t.return_signal(p->ours);
  t.counters_.completed.fetch_add(1, std::memory_order_relaxed);
  format::CopyRecord r;
  r.time_ns = p->time_ns;
  if (timed) {
    r.start_ns = t.to_host(time.start);
    r.end_ns = t.to_host(time.end);
  }
  r.bytes = p->bytes;
  r.direction = direction_of(p->src.kind, p->dst.kind);
  r.src_device_id = p->src.id;
  r.dst_device_id = p->dst.id;
  r.tid = p->tid;
  r.frames = std::move(p->frames);
  r.correlation_id = p->correlation_id;
  t.file_.add(std::move(r));
  return false;
}

}  // namespace cprof::gpu::hsa
