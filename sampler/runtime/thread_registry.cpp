#include "sampler/runtime/thread_registry.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <new>

#include "sampler/runtime/owned_fds.h"
#include "sampler/runtime/thread_clock.h"

namespace cprof::sampler {
namespace {

// initial-exec: the runtime is preloaded, so its TLS is static and reading it in a signal
// handler never calls into the dynamic loader.
thread_local ThreadState* t_current __attribute__((tls_model("initial-exec"))) = nullptr;

std::atomic<ThreadState*> g_adopted[ThreadRegistry::kMaxAdopted];
std::atomic<size_t> g_adopted_count{0};

}  // namespace

void publish_adopted(ThreadState* state) {
  const size_t i = g_adopted_count.load(std::memory_order_relaxed);
  if (i >= ThreadRegistry::kMaxAdopted) return;
  g_adopted[i].store(state, std::memory_order_release);
  g_adopted_count.store(i + 1, std::memory_order_release);
}

ThreadState* ThreadRegistry::current() {
  if (ThreadState* s = t_current) return s;
  const size_t n = g_adopted_count.load(std::memory_order_acquire);
  if (n == 0) return nullptr;
  const pid_t tid = gettid_raw();
  for (size_t i = 0; i < n; ++i) {
    ThreadState* s = g_adopted[i].load(std::memory_order_acquire);
    if (s != nullptr && s->tid == tid && !s->exited.load(std::memory_order_relaxed)) {
      t_current = s;
      return s;
    }
  }
  return nullptr;
}

void ThreadRegistry::clear_current() { t_current = nullptr; }

void ThreadRegistry::set_ring_bytes_for(double frequency_hz, size_t sample_bytes) {
  constexpr double kHeldSeconds = 0.05;
  constexpr double kMinSamples = 16;
  const auto wanted = static_cast<size_t>(std::max(frequency_hz * kHeldSeconds, kMinSamples) *
                                          static_cast<double>(sample_bytes));
  size_t bytes = kMinRingBytes;
  while (bytes < wanted && bytes < kMaxRingBytes) bytes *= 2;
  ring_bytes_ = bytes;
}

ThreadState* ThreadRegistry::create(pid_t tid, bool is_current, bool existed_before_start,
                                    uint64_t now_ns) {
  auto* state = new ThreadState;
  auto* storage = new uint8_t[ring_bytes_];
  state->ring.init(storage, ring_bytes_);
  state->ring_storage = storage;
  state->tid = tid;
  state->start_ns = now_ns;
  state->existed_before_start = existed_before_start;
  if (is_current) {
    state->stack = current_thread_stack_bounds();
    t_current = state;
  }
  std::lock_guard lock(mutex_);
  states_.push_back(state);
  return state;
}

void ThreadRegistry::for_each(const std::function<void(ThreadState&)>& f) {
  std::lock_guard lock(mutex_);
  for (ThreadState* s : states_) f(*s);
}

void ThreadRegistry::reap(const std::function<void(ThreadState&)>& retire) {
  std::vector<ThreadState*> gone;
  {
    std::lock_guard lock(mutex_);
    auto keep = std::partition(states_.begin(), states_.end(), [](ThreadState* s) {
      return !(s->exited.load(std::memory_order_acquire) && s->ring.empty());
    });
    gone.assign(keep, states_.end());
    states_.erase(keep, states_.end());
  }
  for (ThreadState* s : gone) {
    retire(*s);
    // Adopted threads stay in the handler's table (a tid may be reused, so exited entries
    // are skipped there); their small state is kept rather than freed under a reader.
    if (!s->existed_before_start) {
      delete[] s->ring_storage;
      delete s;
    }
  }
}

void ThreadRegistry::keep_only_current_after_fork(
    const std::function<void(ThreadState&)>& release) {
  ThreadState* self = t_current;
  // The mutex was taken in the fork prepare handler and is released by the caller.
  // Every state's descriptors are copies of the parent's: released here, or the child
  // would hold them (and keep its own close() off them) until it execs.
  for (ThreadState* s : states_) {
    release(*s);
    s->counters.close();
  }
  states_.clear();
  if (self != nullptr) states_.push_back(self);
}

void ThreadRegistry::load_writable_mappings() {
  const OwnedFile maps = fopen_owned("/proc/self/maps");
  if (maps.file == nullptr) return;
  char line[512];
  while (std::fgets(line, sizeof line, maps.file) != nullptr) {
    unsigned long lo = 0;
    unsigned long hi = 0;
    char perms[5] = {};
    if (std::sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 && perms[0] == 'r' &&
        perms[1] == 'w') {
      writable_.push_back({lo, hi});
    }
  }
  fclose_owned(maps);
  std::sort(writable_.begin(), writable_.end(),
            [](const StackBounds& a, const StackBounds& b) { return a.lo < b.lo; });
  writable_count_.store(writable_.size(), std::memory_order_release);
}

StackBounds ThreadRegistry::mapping_containing(uint64_t address) const {
  const size_t n = writable_count_.load(std::memory_order_acquire);
  size_t lo = 0;
  size_t hi = n;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (writable_[mid].hi <= address) {
      lo = mid + 1;
    } else if (writable_[mid].lo > address) {
      hi = mid;
    } else {
      return writable_[mid];
    }
  }
  return {};
}

}  // namespace cprof::sampler
