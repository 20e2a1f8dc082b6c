// POSIX timer engines: timer_create with SIGEV_THREAD_ID, on the thread's CPU-time clock
// (the fallback when perf_event_open is refused) or on CLOCK_MONOTONIC (--clock wall, so
// blocked and sleeping time shows up). Overruns (ticks that passed while a signal was
// pending) are added to the sample's weight instead of being lost.

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sampler/engines/engine.h"
#include "sampler/runtime/thread_clock.h"

namespace cprof::sampler {
namespace {

// Per thread: its timer.
struct TimerThread {
  bool armed;
  timer_t id;
};

class PosixTimerEngine final : public Engine {
 public:
  PosixTimerEngine(const EngineSettings& s, bool wall) : settings_(s), wall_(wall) {}
  const char* name() const override { return wall_ ? "wall-timer" : "timer"; }

  std::string probe() override {
    timer_t id{};
    std::string err = create(gettid_raw(), id);
    if (err.empty()) ::timer_delete(id);
    return err;
  }

  std::string arm(ThreadState& ts) override {
    timer_t id{};
    if (std::string err = create(ts.tid, id); !err.empty()) return err;
    itimerspec spec{};
    spec.it_interval.tv_sec = static_cast<time_t>(settings_.period_ns / 1000000000);
    spec.it_interval.tv_nsec = static_cast<long>(settings_.period_ns % 1000000000);
    spec.it_value = spec.it_interval;
    if (::timer_settime(id, 0, &spec, nullptr) != 0) {
      std::string err = std::string("timer_settime: ") + std::strerror(errno);
      ::timer_delete(id);
      return err;
    }
    state(ts) = TimerThread{true, id};
    return {};
  }

  void disarm(ThreadState& ts) override {
    TimerThread& t = state(ts);
    if (!t.armed) return;
    ::timer_delete(t.id);
    t = TimerThread{};
  }

  // Timers are not inherited: the id is the parent's (or, in the child, nobody's).
  void forget_after_fork(ThreadState& ts) override { state(ts) = TimerThread{}; }

  bool weigh(ThreadState& ts, const siginfo_t* info, uint64_t& weight_ns) override {
    if (!state(ts).armed || info->si_code != SI_TIMER ||
        info->si_value.sival_int != (wall_ ? kWallTimerTag : kCpuTimerTag)) {
      return false;
    }
    const int overrun = info->si_overrun > 0 ? info->si_overrun : 0;
    weight_ns = settings_.period_ns * (1 + static_cast<uint64_t>(overrun));
    return true;
  }

 private:
  TimerThread& state(ThreadState& ts) const {
    return engine_state<TimerThread>(ts, settings_.slot);
  }

  std::string create(pid_t tid, timer_t& id) {
    sigevent sev{};
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = settings_.signal;
    sev.sigev_value.sival_int = wall_ ? kWallTimerTag : kCpuTimerTag;
    sev._sigev_un._tid = tid;
    const clockid_t clock = wall_ ? CLOCK_MONOTONIC : thread_cpu_clock(tid);
    if (::timer_create(clock, &sev, &id) != 0) {
      return std::string("timer_create: ") + std::strerror(errno);
    }
    return {};
  }

  EngineSettings settings_;
  bool wall_;
};

}  // namespace

std::unique_ptr<Engine> make_cpu_timer_engine(const EngineSettings& settings) {
  return std::make_unique<PosixTimerEngine>(settings, false);
}

std::unique_ptr<Engine> make_wall_timer_engine(const EngineSettings& settings) {
  return std::make_unique<PosixTimerEngine>(settings, true);
}

}  // namespace cprof::sampler
