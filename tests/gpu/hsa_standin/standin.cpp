#include "tests/gpu/hsa_standin/standin.h"

#include <dlfcn.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

namespace cprof::gpu::standin {
namespace {

constexpr uint64_t kCpuAgent = 0x1000;
constexpr uint64_t kGpuAgent = 0x2000;

uint64_t system_ticks_now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  const uint64_t ns =
      static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
  return (ns + StandinRuntime::kSystemOffsetNs) / (1000000000 / StandinRuntime::kSystemFrequency);
}

struct Queue;

struct Signal {
  std::atomic<hsa_signal_value_t> value{0};
  Queue* doorbell_of = nullptr;  // the doorbell of this queue
  bool has_dispatch_time = false;
  bool has_copy_time = false;
  uint64_t start = 0, end = 0;   // system-clock ticks of the last packet or copy
};

struct Handler {
  Signal* signal;
  hsa_signal_condition_t condition;
  hsa_signal_value_t compare;
  hsa_amd_signal_handler fn;
  void* arg;
};

struct Queue {
  hsa_queue_t pub{};  // first: hsa_queue_t* and Queue* are the same address
  std::vector<hsa_kernel_dispatch_packet_t> ring;
  std::atomic<uint64_t> write_index{0};
  std::atomic<uint64_t> read_index{0};
  uint64_t next_to_process = 0;
  std::mutex submit_mutex;
  hsa_agent_t agent{};
  bool intercept = false;
  hsa_amd_queue_intercept_handler handler = nullptr;
  void* handler_data = nullptr;
  bool profiling = false;
};

struct Symbol {
  FakeKernel kernel;
};

struct Executable {
  std::vector<std::unique_ptr<Symbol>> symbols;
  bool frozen = false;
};

// Everything the table's functions share. One stand-in at a time.
struct State {
  std::mutex mutex;                 // handlers, signal lifetimes, the device queue
  std::condition_variable changed;  // a signal value changed / work arrived / idle
  std::vector<Handler> handlers;
  uint64_t live_signals = 0;
  uint64_t signal_changes = 0;      // bumped on every change; the handler thread's cue
  uint64_t handled_changes = 0;
  bool handler_busy = false;
  std::deque<std::function<void()>> device_work;
  bool device_busy = false;
  bool stop = false;
  uint64_t last_end_ticks = 0;      // the device runs one thing at a time
  uint64_t packets_executed = 0;
  uint64_t intercept_queues = 0;
  bool copy_profiling = false;
  std::map<uint64_t, uint64_t> kernel_ticks;  // kernel object -> duration
  std::atomic<bool> real_time{false};         // set_real_time
  std::thread handler_thread;
  std::thread device_thread;
};

State* g_state = nullptr;
thread_local Queue* t_writing_queue = nullptr;  // the queue whose intercept handler runs

Signal* sig(hsa_signal_t s) { return reinterpret_cast<Signal*>(s.handle); }
Queue* queue_of(hsa_queue_t* q) { return reinterpret_cast<Queue*>(q); }

bool satisfied(hsa_signal_condition_t c, hsa_signal_value_t v, hsa_signal_value_t compare) {
  switch (c) {
    case HSA_SIGNAL_CONDITION_EQ: return v == compare;
    case HSA_SIGNAL_CONDITION_NE: return v != compare;
    case HSA_SIGNAL_CONDITION_LT: return v < compare;
    case HSA_SIGNAL_CONDITION_GTE: return v >= compare;
  }
  return false;
}

void process_doorbell(Queue* q, uint64_t last_index);

void value_changed(Signal* s) {
  if (s->doorbell_of != nullptr) {
    process_doorbell(s->doorbell_of, static_cast<uint64_t>(s->value.load()));
    return;
  }
  std::lock_guard lock(g_state->mutex);
  ++g_state->signal_changes;
  g_state->changed.notify_all();
}

// The runtime's async-handler thread: runs every handler whose condition holds.
void handler_thread_main() {
  std::unique_lock lock(g_state->mutex);
  while (true) {
    g_state->changed.wait(lock, [] {
      return g_state->stop || g_state->signal_changes != g_state->handled_changes;
    });
    if (g_state->stop) return;
    g_state->handled_changes = g_state->signal_changes;
    g_state->handler_busy = true;
    for (size_t i = 0; i < g_state->handlers.size();) {
      const Handler h = g_state->handlers[i];
      if (!satisfied(h.condition, h.signal->value.load(), h.compare)) {
        ++i;
        continue;
      }
      g_state->handlers.erase(g_state->handlers.begin() + static_cast<std::ptrdiff_t>(i));
      lock.unlock();
      const bool again = h.fn(h.signal->value.load(), h.arg);
      lock.lock();
      if (again) g_state->handlers.push_back(h);
      i = 0;  // the list changed under us: scan again
    }
    g_state->handler_busy = false;
    g_state->changed.notify_all();
  }
}

void device_thread_main() {
  std::unique_lock lock(g_state->mutex);
  while (true) {
    g_state->changed.wait(lock, [] { return g_state->stop || !g_state->device_work.empty(); });
    if (g_state->stop) return;
    auto work = std::move(g_state->device_work.front());
    g_state->device_work.pop_front();
    g_state->device_busy = true;
    lock.unlock();
    work();
    lock.lock();
    g_state->device_busy = false;
    g_state->changed.notify_all();
  }
}

void enqueue_device(std::function<void()> work) {
  std::lock_guard lock(g_state->mutex);
  g_state->device_work.push_back(std::move(work));
  g_state->changed.notify_all();
}

// Start and end of the next thing the device runs, in system ticks.
std::pair<uint64_t, uint64_t> device_slot(uint64_t duration) {
  std::lock_guard lock(g_state->mutex);
  const uint64_t start = std::max(system_ticks_now(), g_state->last_end_ticks);
  g_state->last_end_ticks = start + duration;
  ++g_state->packets_executed;
  return {start, start + duration};
}

void complete(hsa_signal_t s) {
  if (s.handle == 0) return;
  sig(s)->value.fetch_sub(1, std::memory_order_release);
  value_changed(sig(s));
}

// The "hardware" queue behind an intercept queue: the packet processor.
void execute_packets(Queue* q, const hsa_kernel_dispatch_packet_t* pkts, uint64_t count) {
  for (uint64_t i = 0; i < count; ++i) {
    const hsa_kernel_dispatch_packet_t p = pkts[i];
    const bool profiling = q->profiling;
    enqueue_device([p, profiling] {
      const uint32_t type = (p.header >> HSA_PACKET_HEADER_TYPE) &
                            ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1);
      uint64_t duration = 1;
      if (type == HSA_PACKET_TYPE_KERNEL_DISPATCH) {
        std::lock_guard lock(g_state->mutex);
        if (const auto it = g_state->kernel_ticks.find(p.kernel_object);
            it != g_state->kernel_ticks.end()) {
          duration = it->second;
        }
      }
      const auto [start, end] = device_slot(duration);
      if (g_state->real_time.load()) {
        constexpr uint64_t kNsPerTick = 1000000000 / StandinRuntime::kSystemFrequency;
        std::this_thread::sleep_for(std::chrono::nanoseconds(duration * kNsPerTick));
      }
      if (p.completion_signal.handle != 0 && profiling) {
        Signal* s = sig(p.completion_signal);
        s->has_dispatch_time = true;
        s->start = start;
        s->end = end;
      }
      complete(p.completion_signal);
    });
  }
}

void write_packets(const void* pkts, uint64_t count) {
  execute_packets(t_writing_queue, static_cast<const hsa_kernel_dispatch_packet_t*>(pkts), count);
}

void process_doorbell(Queue* q, uint64_t last_index) {
  std::lock_guard lock(q->submit_mutex);
  while (q->next_to_process <= last_index &&
         q->next_to_process < q->write_index.load(std::memory_order_acquire)) {
    // Packets in one contiguous stretch of the ring go to the handler together.
    const uint64_t first = q->next_to_process;
    const uint64_t slot = first % q->pub.size;
    const uint64_t n = std::min({last_index + 1 - first, q->pub.size - slot,
                                 q->write_index.load() - first});
    const hsa_kernel_dispatch_packet_t* pkts = q->ring.data() + slot;
    if (q->intercept && q->handler != nullptr) {
      t_writing_queue = q;
      q->handler(pkts, n, first, q->handler_data, write_packets);
      t_writing_queue = nullptr;
    } else {
      execute_packets(q, pkts, n);
    }
    for (uint64_t i = 0; i < n; ++i) {
      q->ring[slot + i].header = HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE;
    }
    q->next_to_process += n;
    q->read_index.store(q->next_to_process, std::memory_order_release);
  }
}

// ---- the table's functions ----

hsa_status_t system_get_info(hsa_system_info_t attribute, void* value) {
  switch (attribute) {
    case HSA_SYSTEM_INFO_TIMESTAMP: *static_cast<uint64_t*>(value) = system_ticks_now(); break;
    case HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY:
      *static_cast<uint64_t*>(value) = StandinRuntime::kSystemFrequency;
      break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t iterate_agents(hsa_status_t (*callback)(hsa_agent_t, void*), void* data) {
  for (uint64_t a : {kCpuAgent, kGpuAgent}) {
    if (hsa_status_t s = callback(hsa_agent_t{a}, data); s != HSA_STATUS_SUCCESS) return s;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void* value) {
  if (agent.handle != kCpuAgent && agent.handle != kGpuAgent) return HSA_STATUS_ERROR_INVALID_AGENT;
  switch (attribute) {
    case HSA_AGENT_INFO_NAME: {
      char* name = static_cast<char*>(value);
      std::memset(name, 0, 64);
      std::strcpy(name, agent.handle == kGpuAgent ? "gfx90a" : "Standin CPU");
      break;
    }
    case HSA_AGENT_INFO_DEVICE:
      *static_cast<hsa_device_type_t*>(value) =
          agent.handle == kGpuAgent ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU;
      break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t signal_create(hsa_signal_value_t initial, uint32_t, const hsa_agent_t*,
                           hsa_signal_t* out) {
  auto* s = new Signal;
  s->value = initial;
  out->handle = reinterpret_cast<uint64_t>(s);
  std::lock_guard lock(g_state->mutex);
  ++g_state->live_signals;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t amd_signal_create(hsa_signal_value_t initial, uint32_t n, const hsa_agent_t* c,
                               uint64_t, hsa_signal_t* out) {
  return signal_create(initial, n, c, out);
}

hsa_status_t signal_destroy(hsa_signal_t s) {
  if (s.handle == 0) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  {
    std::lock_guard lock(g_state->mutex);
    --g_state->live_signals;
  }
  delete sig(s);
  return HSA_STATUS_SUCCESS;
}

hsa_signal_value_t signal_load(hsa_signal_t s) { return sig(s)->value.load(); }

void signal_store(hsa_signal_t s, hsa_signal_value_t v) {
  sig(s)->value.store(v);
  value_changed(sig(s));
}

void signal_subtract(hsa_signal_t s, hsa_signal_value_t v) {
  sig(s)->value.fetch_sub(v);
  value_changed(sig(s));
}

void signal_add(hsa_signal_t s, hsa_signal_value_t v) {
  sig(s)->value.fetch_add(v);
  value_changed(sig(s));
}

hsa_signal_value_t signal_wait(hsa_signal_t s, hsa_signal_condition_t condition,
                               hsa_signal_value_t compare, uint64_t timeout_hint,
                               hsa_wait_state_t wait_state) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::nanoseconds(std::min<uint64_t>(timeout_hint, 1ull << 62));
  if (wait_state == HSA_WAIT_STATE_ACTIVE && g_state->real_time.load()) {
    // An active wait spins, as the real runtime's does, burning CPU time in the waiter.
    while (!satisfied(condition, sig(s)->value.load(std::memory_order_acquire), compare) &&
           std::chrono::steady_clock::now() < deadline) {
    }
    return sig(s)->value.load();
  }
  std::unique_lock lock(g_state->mutex);
  while (!satisfied(condition, sig(s)->value.load(), compare)) {
    if (g_state->changed.wait_until(lock, deadline) == std::cv_status::timeout) break;
  }
  return sig(s)->value.load();
}

hsa_status_t signal_async_handler(hsa_signal_t s, hsa_signal_condition_t condition,
                                  hsa_signal_value_t compare, hsa_amd_signal_handler fn,
                                  void* arg) {
  if (s.handle == 0 || fn == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  std::lock_guard lock(g_state->mutex);
  g_state->handlers.push_back(Handler{sig(s), condition, compare, fn, arg});
  ++g_state->signal_changes;  // it may hold already
  g_state->changed.notify_all();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t make_queue(hsa_agent_t agent, uint32_t size, bool intercept, hsa_queue_t** out) {
  if (agent.handle != kGpuAgent) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (size == 0 || (size & (size - 1)) != 0) return HSA_STATUS_ERROR_INVALID_QUEUE_CREATION;
  static std::atomic<uint64_t> next_id{1};
  auto* q = new Queue;
  q->ring.resize(size);
  for (auto& p : q->ring) p.header = HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE;
  q->pub.type = HSA_QUEUE_TYPE_MULTI;
  q->pub.base_address = q->ring.data();
  q->pub.size = size;
  q->pub.id = next_id++;
  q->agent = agent;
  q->intercept = intercept;
  hsa_signal_t doorbell{};
  signal_create(0, 0, nullptr, &doorbell);
  sig(doorbell)->doorbell_of = q;
  q->pub.doorbell_signal = doorbell;
  *out = &q->pub;
  if (intercept) {
    std::lock_guard lock(g_state->mutex);
    ++g_state->intercept_queues;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t,
                          void (*)(hsa_status_t, hsa_queue_t*, void*), void*, uint32_t,
                          uint32_t, hsa_queue_t** queue) {
  return make_queue(agent, size, false, queue);
}

hsa_status_t intercept_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t,
                              void (*)(hsa_status_t, hsa_queue_t*, void*), void*, uint32_t,
                              uint32_t, hsa_queue_t** queue) {
  return make_queue(agent, size, true, queue);
}

hsa_status_t intercept_register(hsa_queue_t* queue, hsa_amd_queue_intercept_handler handler,
                                void* data) {
  Queue* q = queue_of(queue);
  if (!q->intercept) return HSA_STATUS_ERROR_INVALID_QUEUE;
  q->handler = handler;
  q->handler_data = data;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t queue_destroy(hsa_queue_t* queue) {
  Queue* q = queue_of(queue);
  signal_destroy(q->pub.doorbell_signal);
  delete q;
  return HSA_STATUS_SUCCESS;
}

uint64_t add_write_index(const hsa_queue_t* queue, uint64_t n) {
  return queue_of(const_cast<hsa_queue_t*>(queue))->write_index.fetch_add(n);
}
uint64_t load_write_index(const hsa_queue_t* queue) {
  return queue_of(const_cast<hsa_queue_t*>(queue))->write_index.load();
}
uint64_t load_read_index(const hsa_queue_t* queue) {
  return queue_of(const_cast<hsa_queue_t*>(queue))->read_index.load();
}

hsa_status_t set_profiler_enabled(hsa_queue_t* queue, int enable) {
  queue_of(queue)->profiling = enable != 0;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t async_copy_enable(bool enable) {
  std::lock_guard lock(g_state->mutex);
  g_state->copy_profiling = enable;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t get_dispatch_time(hsa_agent_t agent, hsa_signal_t s,
                               hsa_amd_profiling_dispatch_time_t* time) {
  if (agent.handle != kGpuAgent) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (s.handle == 0 || !sig(s)->has_dispatch_time) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  time->start = sig(s)->start;
  time->end = sig(s)->end;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t get_async_copy_time(hsa_signal_t s, hsa_amd_profiling_async_copy_time_t* time) {
  if (s.handle == 0 || !sig(s)->has_copy_time) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  time->start = sig(s)->start;
  time->end = sig(s)->end;
  return HSA_STATUS_SUCCESS;
}

// The GPU's own tick domain, for tools that ask: twice the system frequency.
hsa_status_t convert_tick(hsa_agent_t agent, uint64_t agent_tick, uint64_t* system_tick) {
  if (agent.handle != kGpuAgent) return HSA_STATUS_ERROR_INVALID_AGENT;
  *system_tick = agent_tick / 2;
  return HSA_STATUS_SUCCESS;
}

// On the device thread, after a copy's bytes moved: its slot on the device's timeline,
// its times on the signal when copy profiling is on, then the signal.
void finish_copy(uint64_t bytes, hsa_signal_t completion) {
  const auto [start, end] =
      device_slot(std::max<uint64_t>(1, bytes / StandinRuntime::kCopyBytesPerTick));
  bool profiling = false;
  {
    std::lock_guard lock(g_state->mutex);
    profiling = g_state->copy_profiling;
  }
  if (profiling) {
    sig(completion)->has_copy_time = true;
    sig(completion)->start = start;
    sig(completion)->end = end;
  }
  complete(completion);
}

hsa_status_t memory_async_copy(void* dst, hsa_agent_t, const void* src, hsa_agent_t,
                               size_t size, uint32_t, const hsa_signal_t*,
                               hsa_signal_t completion) {
  if (completion.handle == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  enqueue_device([=] {
    std::memcpy(dst, src, size);
    finish_copy(size, completion);
  });
  return HSA_STATUS_SUCCESS;
}

// A 3D copy: range.x bytes per row, range.y rows per layer, range.z layers, each side with
// its own pitch (bytes per row) and slice (bytes per layer). The GPU agent copies.
hsa_status_t memory_async_copy_rect(const hsa_pitched_ptr_t* dst, const hsa_dim3_t* dst_offset,
                                    const hsa_pitched_ptr_t* src, const hsa_dim3_t* src_offset,
                                    const hsa_dim3_t* range, hsa_agent_t copy_agent,
                                    hsa_amd_copy_direction_t, uint32_t, const hsa_signal_t*,
                                    hsa_signal_t completion) {
  if (dst == nullptr || src == nullptr || dst_offset == nullptr || src_offset == nullptr ||
      range == nullptr || completion.handle == 0) {
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  if (copy_agent.handle != kGpuAgent) return HSA_STATUS_ERROR_INVALID_AGENT;
  const hsa_pitched_ptr_t d = *dst, s = *src;
  const hsa_dim3_t dof = *dst_offset, sof = *src_offset, r = *range;
  enqueue_device([=] {
    for (uint32_t z = 0; z < r.z; ++z) {
      for (uint32_t y = 0; y < r.y; ++y) {
        std::memcpy(static_cast<char*>(d.base) + (dof.z + z) * d.slice + (dof.y + y) * d.pitch + dof.x,
                    static_cast<const char*>(s.base) + (sof.z + z) * s.slice + (sof.y + y) * s.pitch +
                        sof.x,
                    r.x);
      }
    }
    finish_copy(uint64_t{r.x} * r.y * r.z, completion);
  });
  return HSA_STATUS_SUCCESS;
}

Executable* exe_of(hsa_executable_t e) { return reinterpret_cast<Executable*>(e.handle); }

hsa_status_t executable_freeze(hsa_executable_t e, const char*) {
  exe_of(e)->frozen = true;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t executable_destroy(hsa_executable_t e) {
  delete exe_of(e);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t executable_iterate_symbols(
    hsa_executable_t e,
    hsa_status_t (*callback)(hsa_executable_t, hsa_executable_symbol_t, void*), void* data) {
  for (const auto& s : exe_of(e)->symbols) {
    const hsa_executable_symbol_t sym{reinterpret_cast<uint64_t>(s.get())};
    if (hsa_status_t st = callback(e, sym, data); st != HSA_STATUS_SUCCESS) return st;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t symbol_get_info(hsa_executable_symbol_t symbol,
                             hsa_executable_symbol_info_t attribute, void* value) {
  const Symbol* s = reinterpret_cast<const Symbol*>(symbol.handle);
  switch (attribute) {
    case HSA_EXECUTABLE_SYMBOL_INFO_TYPE:
      *static_cast<hsa_symbol_kind_t*>(value) =
          s->kernel.kernel_object != 0 ? HSA_SYMBOL_KIND_KERNEL : HSA_SYMBOL_KIND_VARIABLE;
      break;
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH:
      *static_cast<uint32_t*>(value) = static_cast<uint32_t>(s->kernel.symbol.size());
      break;
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME:  // no terminator, as the runtime does
      std::memcpy(value, s->kernel.symbol.data(), s->kernel.symbol.size());
      break;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT:
      if (s->kernel.kernel_object == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
      *static_cast<uint64_t*>(value) = s->kernel.kernel_object;
      break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

}  // namespace

StandinRuntime::StandinRuntime() {
  g_state = new State;
  g_state->handler_thread = std::thread(handler_thread_main);
  g_state->device_thread = std::thread(device_thread_main);
  CoreApiTable& c = container_.core;
  c.hsa_system_get_info_fn = system_get_info;
  c.hsa_iterate_agents_fn = iterate_agents;
  c.hsa_agent_get_info_fn = agent_get_info;
  c.hsa_queue_create_fn = queue_create;
  c.hsa_queue_destroy_fn = queue_destroy;
  c.hsa_queue_add_write_index_relaxed_fn = add_write_index;
  c.hsa_queue_add_write_index_screlease_fn = add_write_index;
  c.hsa_queue_add_write_index_scacquire_fn = add_write_index;
  c.hsa_queue_add_write_index_scacq_screl_fn = add_write_index;
  c.hsa_queue_load_write_index_relaxed_fn = load_write_index;
  c.hsa_queue_load_write_index_scacquire_fn = load_write_index;
  c.hsa_queue_load_read_index_relaxed_fn = load_read_index;
  c.hsa_queue_load_read_index_scacquire_fn = load_read_index;
  c.hsa_signal_create_fn = signal_create;
  c.hsa_signal_destroy_fn = signal_destroy;
  c.hsa_signal_load_relaxed_fn = signal_load;
  c.hsa_signal_load_scacquire_fn = signal_load;
  c.hsa_signal_store_relaxed_fn = signal_store;
  c.hsa_signal_store_screlease_fn = signal_store;
  c.hsa_signal_subtract_relaxed_fn = signal_subtract;
  c.hsa_signal_subtract_screlease_fn = signal_subtract;
  c.hsa_signal_subtract_scacquire_fn = signal_subtract;
  c.hsa_signal_subtract_scacq_screl_fn = signal_subtract;
  c.hsa_signal_add_relaxed_fn = signal_add;
  c.hsa_signal_add_screlease_fn = signal_add;
  c.hsa_signal_wait_relaxed_fn = signal_wait;
  c.hsa_signal_wait_scacquire_fn = signal_wait;
  c.hsa_executable_freeze_fn = executable_freeze;
  c.hsa_executable_destroy_fn = executable_destroy;
  c.hsa_executable_iterate_symbols_fn = executable_iterate_symbols;
  c.hsa_executable_symbol_get_info_fn = symbol_get_info;
  AmdExtTable& a = container_.amd_ext;
  a.hsa_amd_signal_create_fn = amd_signal_create;
  a.hsa_amd_signal_async_handler_fn = signal_async_handler;
  a.hsa_amd_queue_intercept_create_fn = intercept_create;
  a.hsa_amd_queue_intercept_register_fn = intercept_register;
  a.hsa_amd_profiling_set_profiler_enabled_fn = set_profiler_enabled;
  a.hsa_amd_profiling_async_copy_enable_fn = async_copy_enable;
  a.hsa_amd_profiling_get_dispatch_time_fn = get_dispatch_time;
  a.hsa_amd_profiling_get_async_copy_time_fn = get_async_copy_time;
  a.hsa_amd_profiling_convert_tick_to_system_domain_fn = convert_tick;
  a.hsa_amd_memory_async_copy_fn = memory_async_copy;
  a.hsa_amd_memory_async_copy_rect_fn = memory_async_copy_rect;
}

StandinRuntime::~StandinRuntime() {
  wait_idle();
  {
    std::lock_guard lock(g_state->mutex);
    g_state->stop = true;
    g_state->changed.notify_all();
  }
  g_state->handler_thread.join();
  g_state->device_thread.join();
  // Not freed: a tool's threads may still look at signals after the test is done.
  g_state = nullptr;
}

bool StandinRuntime::load_tool(const std::string& path, std::string& error) {
  tool_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (tool_ == nullptr) {
    error = dlerror();
    return false;
  }
  using OnLoadFn = bool (*)(HsaApiTable*, uint64_t, uint64_t, const char* const*);
  auto on_load = reinterpret_cast<OnLoadFn>(dlsym(tool_, "OnLoad"));
  if (on_load == nullptr) {
    error = path + ": no OnLoad";
    return false;
  }
  return on_load(table(), 1, 0, nullptr);
}

bool StandinRuntime::load_tools_from_environment(std::string& error) {
  const char* tools = std::getenv("HSA_TOOLS_LIB");
  if (tools == nullptr) return true;
  std::istringstream in(tools);
  for (std::string path; in >> path;) {
    if (std::string why; !load_tool(path, why)) {
      error = path + ": " + why;
      return false;
    }
  }
  return true;
}

void StandinRuntime::set_real_time(bool on) { g_state->real_time.store(on); }

void StandinRuntime::unload_tool() {
  if (tool_ == nullptr) return;
  if (auto on_unload = reinterpret_cast<void (*)()>(dlsym(tool_, "OnUnload"))) on_unload();
}

hsa_agent_t StandinRuntime::cpu_agent() const { return hsa_agent_t{kCpuAgent}; }
hsa_agent_t StandinRuntime::gpu_agent() const { return hsa_agent_t{kGpuAgent}; }

hsa_executable_t StandinRuntime::create_executable(const std::vector<FakeKernel>& symbols) {
  auto* e = new Executable;
  std::lock_guard lock(g_state->mutex);
  for (const auto& k : symbols) {
    e->symbols.push_back(std::make_unique<Symbol>(Symbol{k}));
    if (k.kernel_object != 0) g_state->kernel_ticks[k.kernel_object] = k.duration_ticks;
  }
  return hsa_executable_t{reinterpret_cast<uint64_t>(e)};
}

void StandinRuntime::wait_idle() {
  std::unique_lock lock(g_state->mutex);
  g_state->changed.wait(lock, [] {
    if (!g_state->device_work.empty() || g_state->device_busy || g_state->handler_busy ||
        g_state->signal_changes != g_state->handled_changes) {
      return false;
    }
    for (const auto& h : g_state->handlers) {
      if (satisfied(h.condition, h.signal->value.load(), h.compare)) return false;
    }
    return true;
  });
}

uint64_t StandinRuntime::live_signals() const {
  std::lock_guard lock(g_state->mutex);
  return g_state->live_signals;
}
uint64_t StandinRuntime::intercept_queues() const {
  std::lock_guard lock(g_state->mutex);
  return g_state->intercept_queues;
}
uint64_t StandinRuntime::packets_executed() const {
  std::lock_guard lock(g_state->mutex);
  return g_state->packets_executed;
}

uint64_t submit_packet(const CoreApiTable& core, hsa_queue_t* queue,
                       const hsa_kernel_dispatch_packet_t& packet) {
  const uint64_t index = core.hsa_queue_add_write_index_screlease_fn(queue, 1);
  auto* slot = static_cast<hsa_kernel_dispatch_packet_t*>(queue->base_address) +
               (index % queue->size);
  hsa_kernel_dispatch_packet_t body = packet;
  const uint32_t header_and_setup =
      static_cast<uint32_t>(packet.header) | (static_cast<uint32_t>(packet.setup) << 16);
  body.header = HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE;
  std::memcpy(reinterpret_cast<char*>(slot) + 4, reinterpret_cast<const char*>(&body) + 4,
              sizeof body - 4);
  __atomic_store_n(reinterpret_cast<uint32_t*>(slot), header_and_setup, __ATOMIC_RELEASE);
  core.hsa_signal_store_screlease_fn(queue->doorbell_signal, static_cast<hsa_signal_value_t>(index));
  return index;
}

hsa_kernel_dispatch_packet_t dispatch_packet(uint64_t kernel_object, uint32_t grid,
                                             uint16_t workgroup, hsa_signal_t completion) {
  hsa_kernel_dispatch_packet_t p{};
  p.header = static_cast<uint16_t>(
      (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
      (1 << HSA_PACKET_HEADER_BARRIER) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
      (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
  p.setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
  p.workgroup_size_x = workgroup;
  p.workgroup_size_y = 1;
  p.workgroup_size_z = 1;
  p.grid_size_x = grid;
  p.grid_size_y = 1;
  p.grid_size_z = 1;
  p.kernel_object = kernel_object;
  p.completion_signal = completion;
  return p;
}

}  // namespace cprof::gpu::standin
