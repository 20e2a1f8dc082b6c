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
// or the same records as JSON lines (`--format coz-jsonl`, Coz's profile.jsonl): one
// object a line, "type" then the same keys with the same values, numbers as numbers:
//
//   {"type": "experiment", "selected": "a.c:3", "speedup": 0.5, "duration": 900,
//   "selected-samples": 7}
//
// render_coz() writes the sampled part; coz_experiments() the experiments and their
// points, between startup() and runtime().

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>

namespace cprof::report {

enum class CozStyle { tab_separated, json_lines };

class CozWriter {
 public:
  explicit CozWriter(std::string& out, CozStyle style = CozStyle::tab_separated)
      : out_(out), style_(style) {}

  void startup(uint64_t time_ns);
  void experiment(std::string_view selected, double speedup, uint64_t duration_ns,
                  uint64_t selected_samples);
  void throughput_point(std::string_view name, uint64_t delta);
  void latency_point(std::string_view name, uint64_t arrivals, uint64_t departures,
                     double difference);
  void samples(std::string_view location, uint64_t count);
  void runtime(uint64_t time_ns);

 private:
  struct Field {
    std::string_view key;
    std::variant<std::string_view, uint64_t, double> value;
  };
  // One record in the writer's style.
  void record(std::string_view type, std::initializer_list<Field> fields);

  std::string& out_;
  CozStyle style_;
};

// Tabs and newlines would split a field: they become spaces.
std::string coz_field(std::string_view s);

struct Report;
// Every experiment of every process, in load order, as Coz writes them: its duration net
// of the delays inserted, then a throughput-point line per throughput point and a
// latency-point line per latency point. End-to-end runs become a throughput point named
// "end-to-end" with one visit, which gives the same prediction (whole-run time per run).
void coz_experiments(CozWriter& coz, const Report& r);

}  // namespace cprof::report
