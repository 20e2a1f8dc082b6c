#include "sampler/attach/thread_events.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <utility>

#include "sampler/events/counter_group.h"

namespace cprof::sampler {
namespace {

// perf's register numbers (arch/x86/include/uapi/asm/perf_regs.h) for AttachRegister's
// order; a sample lists the registers of the mask in increasing perf number.
constexpr int kPerfNumber[kRegCount] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 17, 18, 19, 20, 21, 22, 23};

constexpr uint64_t register_mask() {
  uint64_t mask = 0;
  for (const int n : kPerfNumber) mask |= uint64_t{1} << n;
  return mask;
}

constexpr uint64_t kSampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                 PERF_SAMPLE_PERIOD | PERF_SAMPLE_REGS_USER |
                                 PERF_SAMPLE_STACK_USER;

perf_event_attr attr_for(const ThreadEventSettings& s, bool user_only) {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_TASK_CLOCK;
  a.sample_period = s.period_ns;
  a.sample_type = kSampleType;
  a.sample_regs_user = register_mask();
  a.sample_stack_user = s.stack_bytes;
  a.exclude_kernel = user_only ? 1 : 0;
  a.exclude_hv = 1;
  a.sample_id_all = 1;
  a.task = 1;  // PERF_RECORD_FORK / EXIT of what the thread creates, and its own end
  a.comm = 1;  // names, and exec
  a.comm_exec = 1;
  a.mmap = 1;  // code it maps: a dlopen, a new image
  a.mmap2 = 1;
  a.use_clockid = 1;
  a.clockid = CLOCK_MONOTONIC;
  a.context_switch = s.wall ? 1 : 0;
  if (!s.counters.empty()) {
    a.sample_type |= PERF_SAMPLE_READ;  // the group's counts with every sample
    a.read_format = PERF_FORMAT_GROUP;
  }
  // Enabled once its counters have joined it (ThreadEvent::open), as one group, as perf
  // does: a sibling added to a leader already counting on a running thread is not sure to
  // start with it.
  a.disabled = 1;
  a.watermark = 1;
  a.wakeup_watermark = s.ring_pages * static_cast<uint32_t>(::sysconf(_SC_PAGESIZE)) / 4;
  return a;
}

// The event sampled at every switch-out (wall mode): the stack where the thread blocks
// or is preempted. Side records come from the task-clock event only.
perf_event_attr switch_attr_for(const ThreadEventSettings& s, bool user_only) {
  perf_event_attr a = attr_for(s, user_only);
  a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
  a.sample_period = 1;
  a.task = a.comm = a.comm_exec = a.mmap = a.mmap2 = a.context_switch = 0;
  return a;
}

// Reads fixed-size fields from a record in order.
class RecordCursor {
 public:
  RecordCursor(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  template <class T>
  bool read(T& out) {
    if (static_cast<size_t>(end_ - p_) < sizeof(T)) return false;
    std::memcpy(&out, p_, sizeof(T));
    p_ += sizeof(T);
    return true;
  }
  bool skip(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) return false;
    p_ += n;
    return true;
  }
  const uint8_t* here() const { return p_; }
  size_t left() const { return static_cast<size_t>(end_ - p_); }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

// The sample_id trailer of a side record (sample_id_all with TID and TIME): the last 16
// bytes.
uint64_t trailer_time(const uint8_t* body, size_t n) {
  uint64_t t = 0;
  if (n >= 8) std::memcpy(&t, body + n - 8, 8);
  return t;
}

// A NUL-terminated string inside a record, bounded by it.
std::string bounded_string(const uint8_t* p, size_t n) {
  const void* nul = std::memchr(p, 0, n);
  return {reinterpret_cast<const char*>(p),
          nul ? static_cast<size_t>(static_cast<const uint8_t*>(nul) - p) : n};
}

// `group`: the sample carries its group's read ({nr, value[nr]}), into `read` (at most
// kMaxCounters + 1 values: the leader's first).
bool parse_sample(const uint8_t* body, size_t n, bool group, ThreadSample& s,
                  uint64_t (&read)[kMaxCounters + 1], size_t& read_count) {
  RecordCursor c(body, n);
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint64_t ip = 0;
  uint64_t abi = 0;
  if (!c.read(ip) || !c.read(pid) || !c.read(tid) || !c.read(s.time_ns) || !c.read(s.period)) {
    return false;
  }
  read_count = 0;
  if (group) {
    uint64_t nr = 0;
    if (!c.read(nr)) return false;
    for (uint64_t i = 0; i < nr; ++i) {
      uint64_t v = 0;
      if (!c.read(v)) return false;
      if (read_count < kMaxCounters + 1) read[read_count++] = v;
    }
  }
  if (!c.read(abi)) return false;
  s.pid = static_cast<pid_t>(pid);
  s.tid = static_cast<pid_t>(tid);
  s.switch_out = s.period == 1;
  s.user_regs = abi != PERF_SAMPLE_REGS_ABI_NONE;
  if (s.user_regs) {
    for (uint64_t& r : s.regs) {
      if (!c.read(r)) return false;
    }
  } else {
    s.regs[kRegIp] = ip;
  }
  uint64_t size = 0;
  if (!c.read(size)) return false;
  s.stack = {};
  s.stack_start = s.regs[kRegSp];
  if (size == 0) return true;
  const uint8_t* data = c.here();
  if (!c.skip(size)) return false;
  uint64_t dyn = 0;
  if (!c.read(dyn)) return false;
  s.stack = {data, static_cast<size_t>(dyn < size ? dyn : size)};
  return true;
}

bool parse_side(uint32_t type, uint16_t misc, const uint8_t* body, size_t n, ThreadSideRecord& r) {
  RecordCursor c(body, n);
  r.time_ns = trailer_time(body, n);
  switch (type) {
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT: {
      uint32_t pid = 0;
      uint32_t ppid = 0;
      uint32_t tid = 0;
      uint32_t ptid = 0;
      if (!c.read(pid) || !c.read(ppid) || !c.read(tid) || !c.read(ptid) || !c.read(r.time_ns)) {
        return false;
      }
      r.kind =
          type == PERF_RECORD_FORK ? ThreadSideRecord::Kind::fork : ThreadSideRecord::Kind::exit;
      r.pid = static_cast<pid_t>(pid);
      r.ppid = static_cast<pid_t>(ppid);
      r.tid = static_cast<pid_t>(tid);
      return true;
    }
    case PERF_RECORD_COMM: {
      uint32_t pid = 0;
      uint32_t tid = 0;
      if (!c.read(pid) || !c.read(tid)) return false;
      r.kind = (misc & PERF_RECORD_MISC_COMM_EXEC) != 0 ? ThreadSideRecord::Kind::exec
                                                        : ThreadSideRecord::Kind::comm;
      r.pid = static_cast<pid_t>(pid);
      r.tid = static_cast<pid_t>(tid);
      r.text = bounded_string(c.here(), c.left());
      return true;
    }
    case PERF_RECORD_MMAP2: {
      uint32_t pid = 0;
      uint32_t tid = 0;
      if (!c.read(pid) || !c.read(tid) || !c.skip(8 * 3 + 24 + 8)) return false;
      r.kind = ThreadSideRecord::Kind::mmap;
      r.pid = static_cast<pid_t>(pid);
      r.tid = static_cast<pid_t>(tid);
      r.text = bounded_string(c.here(), c.left());
      return true;
    }
    case PERF_RECORD_SWITCH:
      if ((misc & PERF_RECORD_MISC_SWITCH_OUT) != 0) return false;
      r.kind = ThreadSideRecord::Kind::switch_in;
      return true;
    case PERF_RECORD_LOST: {
      uint64_t id = 0;
      if (!c.read(id) || !c.read(r.lost)) return false;
      r.kind = ThreadSideRecord::Kind::lost;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

bool read_blocked_thread(pid_t pid, pid_t tid, uint32_t stack_bytes, ThreadSample& s,
                         std::vector<uint8_t>& stack) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/task/%d/syscall", pid, tid);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[256] = {};
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return false;
  // "NR ARG1 ... ARG6 SP PC" while blocked in a call; "running", or "-1 SP PC" (not in a
  // call) otherwise.
  uint64_t v[9] = {};
  long nr = 0;
  if (std::sscanf(text, "%ld %lx %lx %lx %lx %lx %lx %lx %lx", &nr, &v[0], &v[1], &v[2], &v[3],
                  &v[4], &v[5], &v[6], &v[7]) != 9 ||
      nr < 0) {
    return false;
  }
  s = ThreadSample{};
  s.pid = pid;
  s.tid = tid;
  s.user_regs = true;
  s.regs[kRegSp] = v[6];
  s.regs[kRegIp] = v[7];
  s.stack_start = v[6];
  // As much of the stack as is mapped, in pages from sp up.
  stack.resize(stack_bytes);
  size_t got = 0;
  while (got < stack.size()) {
    const uint64_t at = s.stack_start + got;
    const size_t page = 4096 - (at & 4095);
    const size_t want = std::min(page, stack.size() - got);
    iovec local{stack.data() + got, want};
    iovec remote{reinterpret_cast<void*>(at), want};
    if (::process_vm_readv(pid, &local, 1, &remote, 1, 0) != static_cast<ssize_t>(want)) break;
    got += want;
  }
  stack.resize(got);
  s.stack = stack;
  return got > 0;
}

ThreadEvent::~ThreadEvent() { close(); }

ThreadEvent::ThreadEvent(ThreadEvent&& other) noexcept { *this = std::move(other); }

ThreadEvent& ThreadEvent::operator=(ThreadEvent&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    switch_fd_ = std::exchange(other.switch_fd_, -1);
    counter_fds_ = std::move(other.counter_fds_);
    other.counter_fds_.clear();
    std::copy(std::begin(other.counter_position_), std::end(other.counter_position_),
              std::begin(counter_position_));
    counter_count_ = std::exchange(other.counter_count_, 0);
    counter_errors_ = std::move(other.counter_errors_);
    tid_ = other.tid_;
    ring_ = std::exchange(other.ring_, nullptr);
    ring_size_ = std::exchange(other.ring_size_, 0);
    scratch_ = std::move(other.scratch_);
  }
  return *this;
}

std::string ThreadEvent::open(pid_t tid, const ThreadEventSettings& settings) {
  close();
  tid_ = tid;
  // Kernel code is counted when permitted; otherwise (perf_event_paranoid >= 2 without
  // CAP_PERFMON) user code only, as perf does.
  for (const bool user_only : {false, true}) {
    perf_event_attr a = attr_for(settings, user_only);
    fd_ = static_cast<int>(::syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
    if (fd_ >= 0 || (errno != EACCES && errno != EPERM)) break;
  }
  if (fd_ < 0) return perf_open_error(errno);
  if (settings.wall) {
    for (const bool user_only : {false, true}) {
      perf_event_attr a = switch_attr_for(settings, user_only);
      switch_fd_ =
          static_cast<int>(::syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
      if (switch_fd_ >= 0 || (errno != EACCES && errno != EPERM)) break;
    }
    if (switch_fd_ < 0) {
      const int err = errno;
      close();
      errno = err;
      return "context-switch event: " + perf_open_error(err);
    }
  }
  // Counters join the task-clock's group: every sample reads them all at once.
  counter_count_ = std::min(settings.counters.size(), kMaxCounters);
  counter_errors_.assign(counter_count_, "");
  int opened = 0;
  for (size_t i = 0; i < counter_count_; ++i) {
    counter_position_[i] = -1;
    if (settings.counters[i] == nullptr) {
      counter_errors_[i] = "not counted here";
      continue;
    }
    perf_event_attr a = *settings.counters[i];
    a.size = sizeof a;
    a.disabled = 0;
    a.sample_period = 0;
    a.sample_type = 0;
    a.read_format = PERF_FORMAT_GROUP;
    a.inherit = 0;
    a.use_clockid = 1;  // the kernel groups only events on one clock
    a.clockid = CLOCK_MONOTONIC;
    const int cfd =
        static_cast<int>(::syscall(SYS_perf_event_open, &a, tid, -1, fd_, PERF_FLAG_FD_CLOEXEC));
    if (cfd < 0) {
      counter_errors_[i] = perf_open_error(errno);
      continue;
    }
    counter_fds_.push_back(cfd);
    counter_position_[i] = ++opened;
  }
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  ring_size_ = page * (1 + size_t{settings.ring_pages});
  ring_ = ::mmap(nullptr, ring_size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (ring_ == MAP_FAILED) {
    const int err = errno;
    ring_ = nullptr;
    close();
    errno = err;
    return std::string("mapping the perf_event ring: ") + std::strerror(err) +
           (err == EPERM ? " (over perf_event_mlock_kb: see /proc/sys/kernel/perf_event_mlock_kb)"
                         : "");
  }
  if (switch_fd_ >= 0 && ::ioctl(switch_fd_, PERF_EVENT_IOC_SET_OUTPUT, fd_) != 0) {
    const int err = errno;
    close();
    errno = err;
    return std::string("sharing the ring with the context-switch event: ") + std::strerror(err);
  }
  if (::ioctl(fd_, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0 ||
      (switch_fd_ >= 0 && ::ioctl(switch_fd_, PERF_EVENT_IOC_ENABLE, 0) != 0)) {
    const int err = errno;
    close();
    errno = err;
    return std::string("perf_event enable: ") + std::strerror(err);
  }
  return {};
}

void ThreadEvent::drain(const std::function<void(const ThreadSample&)>& on_sample,
                        const std::function<void(const ThreadSideRecord&)>& on_side) {
  if (ring_ == nullptr) return;
  auto* header = static_cast<perf_event_mmap_page*>(ring_);
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const uint8_t* data = static_cast<const uint8_t*>(ring_) + page;
  const uint64_t size = ring_size_ - page;
  const uint64_t head = __atomic_load_n(&header->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = header->data_tail;
  while (tail + sizeof(perf_event_header) <= head) {
    perf_event_header h{};
    const uint64_t at = tail % size;
    // The header itself never wraps (records are 8-byte aligned); the body may.
    std::memcpy(&h, data + at, sizeof h);
    if (h.size < sizeof h || tail + h.size > head) break;
    const uint8_t* record = data + at;
    if (at + h.size > size) {
      scratch_.resize(h.size);
      const uint64_t first = size - at;
      std::memcpy(scratch_.data(), data + at, first);
      std::memcpy(scratch_.data() + first, data, h.size - first);
      record = scratch_.data();
    }
    const uint8_t* body = record + sizeof h;
    const size_t n = h.size - sizeof h;
    if (h.type == PERF_RECORD_SAMPLE) {
      ThreadSample s;
      uint64_t read[kMaxCounters + 1] = {};
      size_t read_count = 0;
      if (parse_sample(body, n, counter_count_ > 0, s, read, read_count)) {
        // The leader's group (not the switch event's, which reads only itself).
        if (!s.switch_out) {
          for (size_t i = 0; i < counter_count_; ++i) {
            const int position = counter_position_[i];
            if (position > 0 && static_cast<size_t>(position) < read_count)
              s.counters[i] = read[position];
          }
        }
        on_sample(s);
      }
    } else {
      ThreadSideRecord r;
      if (parse_side(h.type, h.misc, body, n, r)) on_side(r);
    }
    tail += h.size;
  }
  __atomic_store_n(&header->data_tail, tail, __ATOMIC_RELEASE);
}

uint64_t ThreadEvent::cpu_time_ns() const {
  // With counters the leader reads as its group: {nr, leader, members...}.
  uint64_t values[kMaxCounters + 2] = {};
  if (fd_ < 0 || ::read(fd_, values, sizeof values) < static_cast<ssize_t>(sizeof(uint64_t))) {
    return 0;
  }
  return counter_count_ > 0 ? values[1] : values[0];
}

void ThreadEvent::close() {
  if (ring_ != nullptr) ::munmap(ring_, ring_size_);
  ring_ = nullptr;
  ring_size_ = 0;
  for (const int cfd : counter_fds_) ::close(cfd);
  counter_fds_.clear();
  if (switch_fd_ >= 0) ::close(switch_fd_);
  switch_fd_ = -1;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace cprof::sampler
