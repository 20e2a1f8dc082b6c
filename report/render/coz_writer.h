#pragma once
// Coz's profile format (profile.coz): one record a line, a type then tab-separated
// key=value fields, as Coz's viewer (viewer/js/profile.js) parses them:
//
//   startup           time=NS
//   experiment        selected=FILE:LINE  speedup=F  duration=NS  selected-samples=N
//   throughput-point  name=NAME  delta=N
//   latency-point     name=NAME  arrivals=N  departures=N  difference=F
//   samples           location=FILE:LINE  count=N
//   runtime           time=NS
//
// render_coz() writes the sampled part; the causal part (report/causal/) adds experiments
// with experiment() and its points right after it, before runtime().

#include <cstdint>
#include <string>
#include <string_view>

namespace cprof::report {

class CozWriter {
 public:
  explicit CozWriter(std::string& out) : out_(out) {}

  void startup(uint64_t time_ns);
  void experiment(std::string_view selected, double speedup, uint64_t duration_ns,
                  uint64_t selected_samples);
  void throughput_point(std::string_view name, uint64_t delta);
  void latency_point(std::string_view name, uint64_t arrivals, uint64_t departures,
                     double difference);
  void samples(std::string_view location, uint64_t count);
  void runtime(uint64_t time_ns);

 private:
  std::string& out_;
};

// Tabs and newlines would split a field: they become spaces.
std::string coz_field(std::string_view s);

}  // namespace cprof::report
