#pragma once
// While the program runs under causal-run with progress points: a line now and then on
// what the experiments so far have found (focus.h, evidence_so_far), so that a run of
// minutes does not go silent until its end. At 10, 30 and 60 s, then every minute;
// CPROF_CAUSAL_STATUS_MS sets one period instead (tests).

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace cprof::causal {

class LiveStatus {
 public:
  // Looks at `dir`'s results files not in `before`; writes "PREFIX after N s: ..." to
  // `out` (PREFIX "causal-run:", or "causal-run: run 2/3,"). Starts at once.
  LiveStatus(std::string dir, std::set<std::string> before, std::string prefix, FILE* out);
  ~LiveStatus();  // stops and joins
  LiveStatus(const LiveStatus&) = delete;
  LiveStatus& operator=(const LiveStatus&) = delete;

 private:
  void loop();
  std::chrono::milliseconds next_wait(unsigned looks) const;

  std::string dir_;
  std::set<std::string> before_;
  std::string prefix_;
  FILE* out_;
  std::chrono::milliseconds fixed_period_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace cprof::causal
