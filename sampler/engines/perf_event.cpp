// perf_event engine: a task-clock software event per thread whose overflow signal is
// delivered to that thread (F_SETOWN_EX + F_SETSIG with a real-time signal, so signals
// queue instead of coalescing). No ring buffer is mapped: the handler unwinds the stack
// itself, and reads the counter once to weigh the sample by the CPU time really elapsed.

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sampler/engines/engine.h"
#include "sampler/events/counter_group.h"
#include "sampler/runtime/owned_fds.h"

namespace cprof::sampler {
namespace {

// Per thread: the event's descriptor and the task-clock at the previous sample.
struct PerfThread {
  bool armed;
  OwnedFd fd;  // with its ownership (owned_fds.h)
  uint64_t last_clock_ns;
};

class PerfEventEngine final : public Engine {
 public:
  explicit PerfEventEngine(const EngineSettings& s) : settings_(s) {}
  const char* name() const override { return "perf_event"; }

  std::string probe() override {
    const int fd = open_for(0);
    if (fd < 0) return perf_open_error(errno);
    ::close(fd);
    return {};
  }

  std::string arm(ThreadState& ts) override {
    // Moved out of the program's way before O_ASYNC: the signal names this number (si_fd).
    const OwnedFd owned = adopt_fd(open_for(ts.tid));
    const int fd = owned.fd;
    if (fd < 0) return perf_open_error(errno);
    f_owner_ex owner{F_OWNER_TID, ts.tid};
    if (::fcntl(fd, F_SETFL, O_ASYNC) != 0 || ::fcntl(fd, F_SETSIG, settings_.signal) != 0 ||
        ::fcntl(fd, F_SETOWN_EX, &owner) != 0) {
      std::string err = std::string("perf_event signal setup: ") + std::strerror(errno);
      close_owned(owned);
      return err;
    }
    state(ts) = PerfThread{true, owned, 0};
    if (::ioctl(fd, PERF_EVENT_IOC_RESET, 0) != 0 || ::ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
      std::string err = std::string("perf_event enable: ") + std::strerror(errno);
      disarm(ts);
      return err;
    }
    return {};
  }

  void disarm(ThreadState& ts) override {
    PerfThread& t = state(ts);
    if (!t.armed) return;
    if (owns(t.fd)) ::ioctl(t.fd.fd, PERF_EVENT_IOC_DISABLE, 0);
    close_owned(t.fd);  // not a number the program took with dup2 since
    t = PerfThread{};
  }

  void forget_after_fork(ThreadState& ts) override {
    PerfThread& t = state(ts);
    if (t.armed) close_owned(t.fd);  // the child's copy; the parent's event goes on
    t = PerfThread{};
  }

  bool weigh(ThreadState& ts, const siginfo_t* info, uint64_t& weight_ns) override {
    PerfThread& t = state(ts);
    if (!t.armed || info->si_code != POLL_IN || info->si_fd != t.fd.fd || !owns(t.fd)) {
      return false;
    }
    uint64_t now = 0;
    if (::read(t.fd.fd, &now, sizeof now) != static_cast<ssize_t>(sizeof now)) {
      weight_ns = settings_.period_ns;
      return true;
    }
    weight_ns = now - t.last_clock_ns;
    t.last_clock_ns = now;
    return true;
  }

 private:
  PerfThread& state(ThreadState& ts) const { return engine_state<PerfThread>(ts, settings_.slot); }

  int open_for(pid_t tid) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.sample_period = settings_.period_ns;  // task-clock counts nanoseconds
    attr.disabled = 1;
    attr.wakeup_events = 1;
    int fd = perf_event_open_fd(attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
      // perf_event_paranoid >= 2 allows user-space-only events to unprivileged users.
      attr.exclude_kernel = 1;
      attr.exclude_hv = 1;
      fd = perf_event_open_fd(attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    return fd;
  }

  EngineSettings settings_;
};

}  // namespace

std::unique_ptr<Engine> make_perf_event_engine(const EngineSettings& settings) {
  return std::make_unique<PerfEventEngine>(settings);
}

}  // namespace cprof::sampler
