#include "report/load/process_builder.h"

#include <algorithm>
#include <utility>
#include <variant>
#include <vector>

#include "causal/idle_tail.h"

namespace cprof::report {
namespace {

// 2^50 ns, 13 days: more than any one sample can weigh, small enough that 2^13 of them
// still sum without wrapping.
constexpr uint64_t kMaxSampleWeightNs = uint64_t{1} << 50;

}  // namespace

void ProcessBuilder::operator()(format::Record&& record) {
  std::visit([this](auto&& r) { add(std::forward<decltype(r)>(r)); }, std::move(record));
}

void ProcessBuilder::sample(const format::SampleView& v) {
  add_sample(v.tid, v.time_ns, v.weight_ns, v.truncated, v.clock, v.frame_count > 0,
             [&] { return encoded_.intern(v); }, v.counter_deltas);
}

void ProcessBuilder::finish() {
  if (!clock_decided_) decide_clock();  // no sample: still the clock it was sampled on
  std::sort(p_.modules.begin(), p_.modules.end(),
            [](const auto& a, const auto& b) { return a.start < b.start; });
  // An event may be corrected at exit (unavailable, counted zero): the last record of an
  // index wins (results-format.md). Stable, so "last" is the file's order.
  std::stable_sort(p_.events.begin(), p_.events.end(),
                   [](const auto& a, const auto& b) { return a.index < b.index; });
  std::vector<format::EventRecord> events;
  for (auto& e : p_.events) {
    if (!events.empty() && events.back().index == e.index) {
      events.back() = std::move(e);
    } else {
      events.push_back(std::move(e));
    }
  }
  p_.events = std::move(events);
  p_.idle_tail_experiments = causal::drop_idle_tail(p_.experiments);
}

void ProcessBuilder::saw_time(uint64_t t) {
  if (t == 0) return;
  p_.first_time_ns = std::min(p_.first_time_ns, t);
  p_.last_time_ns = std::max(p_.last_time_ns, t);
}

uint32_t ProcessBuilder::thread_index(int64_t tid) {
  if (tid == last_tid_ && last_thread_ != ~uint32_t{0}) return last_thread_;
  auto [it, inserted] = thread_of_tid_.try_emplace(tid, static_cast<uint32_t>(p_.threads.size()));
  if (inserted) p_.threads.push_back(ThreadInfo{.tid = tid});
  last_tid_ = tid;
  last_thread_ = it->second;
  return it->second;
}

void ProcessBuilder::add(format::ProcessRecord&& r) {
  p_.has_process_record = true;
  p_.process = std::move(r);
}
void ProcessBuilder::add(format::ModuleRecord&& r) {
  saw_time(r.time_ns);
  p_.modules.push_back(std::move(r));
}
void ProcessBuilder::add(format::ThreadRecord&& r) {
  saw_time(r.time_ns);
  auto& t = p_.threads[thread_index(r.tid)];
  t.name = std::move(r.name);
  t.start_ns = r.time_ns;
  t.existed_before_start = r.existed_before_start;
  t.seen_record = true;
}
void ProcessBuilder::add(format::ThreadNameRecord&& r) {
  saw_time(r.time_ns);
  p_.threads[thread_index(r.tid)].name = std::move(r.name);
}
void ProcessBuilder::add(format::ThreadEndRecord&& r) {
  saw_time(r.time_ns);
  auto& t = p_.threads[thread_index(r.tid)];
  t.ended = true;
  t.end_ns = r.time_ns;
  t.cpu_time_ns = r.cpu_time_ns;
  t.dropped_samples = r.dropped_samples;
}
void ProcessBuilder::add(format::EventRecord&& r) { p_.events.push_back(std::move(r)); }
void ProcessBuilder::add(format::MetricRecord&& r) {
  saw_time(r.time_ns);
  p_.metrics.push_back(r);
}
void ProcessBuilder::add(format::MessageRecord&& r) {
  saw_time(r.time_ns);
  p_.messages.push_back(std::move(r));
}

void ProcessBuilder::add(format::ExperimentRecord&& r) {
  saw_time(r.time_ns);
  p_.experiments.push_back(std::move(r));
}
void ProcessBuilder::add(format::ProgressPointRecord&& r) {
  p_.progress_points.push_back(std::move(r));
}
void ProcessBuilder::add(format::RegionRecord&& r) { p_.regions.push_back(std::move(r)); }
void ProcessBuilder::add(format::RegionSpansRecord&& r) { p_.region_spans.push_back(std::move(r)); }

void ProcessBuilder::add(format::KernelRecord&& r) {
  saw_time(r.time_ns);
  gpu_.add(std::move(r));
}
void ProcessBuilder::add(format::CopyRecord&& r) {
  saw_time(r.time_ns);
  gpu_.add(std::move(r));
}
void ProcessBuilder::add(format::GpuDeviceRecord&& r) { gpu_.add(std::move(r)); }
void ProcessBuilder::add(format::GpuTraceWindowRecord&& r) {
  saw_time(r.start_ns);
  saw_time(r.end_ns);
  gpu_.add(r);
}

void ProcessBuilder::add(format::SampleRecord&& r) {
  add_sample(r.tid, r.time_ns, r.weight_ns, r.truncated, r.clock, !r.frames.empty(),
             [&] { return p_.stacks.intern(r.frames); }, r.counter_deltas);
}

template <typename Intern>
void ProcessBuilder::add_sample(int64_t tid, uint64_t time_ns, uint64_t weight_ns, bool truncated,
                                format::SampleClock clock, bool has_frames, Intern&& intern,
                                std::span<const uint64_t> counter_deltas) {
  // No sample stands for more than kMaxSampleWeightNs: a larger weight is damage (a
  // flipped bit, a crafted file), and summed it would wrap the totals.
  if (weight_ns > kMaxSampleWeightNs) {
    weight_ns = kMaxSampleWeightNs;
    ++implausible_weights_;
  }
  saw_time(time_ns);
  if (!clock_decided_) decide_clock();
  p_.wall_clock_samples += clock == format::SampleClock::wall;
  const uint32_t thread = thread_index(tid);
  auto& t = p_.threads[thread];
  if (clock == format::SampleClock::cpu) t.cpu_weight_ns += weight_ns;
  if (clock != p_.clock && !every_sample_) {
    // Set aside: not part of the profile, but its counter deltas are (counted once).
    ++p_.other_clock_samples;
    p_.other_clock_weight_ns += weight_ns;
    if (has_frames) add_count(other_counts_, p_.other_clock_counts, thread, intern(), weight_ns,
                              counter_deltas);
    return;
  }
  ++p_.samples;
  p_.weight_ns += weight_ns;
  p_.truncated_samples += truncated;
  ++t.samples;
  t.weight_ns += weight_ns;
  if (!has_frames) {
    ++p_.empty_samples;
    return;
  }
  const uint32_t stack = intern();
  if (keep_timeline_) {
    p_.timeline.push_back(
        {.time_ns = time_ns,
         .weight_ns = static_cast<uint32_t>(std::min<uint64_t>(weight_ns, UINT32_MAX)),
         .thread = thread,
         .stack = stack});
  }
  add_count(counts_, p_.counts, thread, stack, weight_ns, counter_deltas);
}

void ProcessBuilder::add_count(IndexMap& index_of, std::vector<StackCount>& counts, uint32_t thread,
                               uint32_t stack, uint64_t weight_ns,
                               std::span<const uint64_t> counter_deltas) {
  bool inserted = false;
  const uint32_t index = index_of.find_or_insert((static_cast<uint64_t>(thread) << 32) | stack,
                                                 static_cast<uint32_t>(counts.size()), inserted);
  if (inserted) counts.push_back(StackCount{.thread = thread, .stack = stack});
  auto& c = counts[index];
  ++c.samples;
  c.weight_ns += weight_ns;
  if (!counter_deltas.empty()) {
    if (c.counters.size() < counter_deltas.size()) c.counters.resize(counter_deltas.size());
    for (size_t i = 0; i < counter_deltas.size(); ++i) c.counters[i] += counter_deltas[i];
  }
}

void ProcessBuilder::decide_clock() {
  clock_decided_ = true;
  const bool wall = p_.sampled_on_wall_clock();
  const bool cpu = !p_.has_process_record || p_.process.clock.find("cpu") != std::string::npos ||
                   p_.process.clock.empty();
  const bool use_wall = every_sample_ ? p_.process.clock == "wall"
                        : choice_ == ClockChoice::cpu ? !cpu
                                                      : wall;  // wall, or automatic
  p_.clock = use_wall ? format::SampleClock::wall : format::SampleClock::cpu;
}

}  // namespace cprof::report
