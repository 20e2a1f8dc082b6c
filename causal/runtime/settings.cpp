#include "causal/runtime/settings.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace cprof::causal {
namespace {

const char* get(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

std::optional<uint64_t> number(const char* name, std::vector<std::string>& problems) {
  const char* v = get(name);
  if (v == nullptr) return std::nullopt;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  if (end == v || *end != '\0') {
    problems.push_back(std::string(name) + "='" + v + "' is not a number; ignored");
    return std::nullopt;
  }
  return n;
}

std::optional<double> real(const char* name, std::vector<std::string>& problems) {
  const char* v = get(name);
  if (v == nullptr) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(v, &end);
  if (end == v || *end != '\0') {
    problems.push_back(std::string(name) + "='" + v + "' is not a number; ignored");
    return std::nullopt;
  }
  return d;
}

}  // namespace

CausalSettings causal_settings_from_environment(std::vector<std::string>& problems) {
  CausalSettings s;
  if (const char* v = get(env::kLocations)) s.locations_file = v;
  if (const char* v = get(env::kExecutable)) s.executable = v;
  if (const char* v = get(env::kResolver)) s.resolver = v;
  if (const char* v = get(env::kLocationsCache)) s.locations_cache = v;
  if (const char* v = get(env::kSelectionArgs)) {
    std::string all = v;
    size_t start = 0;
    while (start < all.size()) {
      const size_t tab = all.find('\t', start);
      s.selection_args.push_back(all.substr(start, tab == std::string::npos ? tab : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
  }
  if (const char* v = get(env::kSelection)) s.automatic = std::string_view(v) == "auto";
  if (const char* v = get(env::kSpeedups)) {
    std::string error;
    if (auto list = parse_speedups(v, error)) {
      s.experiments.speedups = *list;
    } else {
      problems.push_back(error);
    }
  }
  if (auto p = real(env::kFixedSpeedup, problems)) s.experiments.fixed_speedup = *p / 100.0;
  if (auto n = number(env::kSeed, problems)) {
    s.experiments.seed = *n;
    s.seed_given = true;
  }
  if (auto ms = number(env::kDurationMs, problems); ms && *ms > 0) {
    s.experiments.initial_duration_ns = *ms * 1000000ull;
    s.experiments.min_duration_ns = *ms * 1000000ull;
  }
  if (auto ms = number(env::kCooloffMs, problems)) s.experiments.cooloff_ns = *ms * 1000000ull;
  if (auto b = real(env::kBaselineShare, problems); b && *b >= 0 && *b <= 1) {
    s.experiments.baseline_share = *b;
  }
  if (auto w = real(env::kWarmupShare, problems)) {
    if (*w >= 0) {
      s.experiments.warmup_share = *w;
    } else {
      problems.push_back(std::string(env::kWarmupShare) + " must not be negative; ignored");
    }
  }
  if (auto p = real(env::kEndToEndSpeedup, problems)) s.end_to_end_speedup = *p / 100.0;
  if (auto p = real(env::kCpuWaitWarnPercent, problems)) {
    if (*p >= 0 && *p <= 100) {
      s.cpu_wait_warn_share = *p / 100.0;
    } else {
      problems.push_back(std::string(env::kCpuWaitWarnPercent) + " must be a percentage; ignored");
    }
  }
  if (const char* v = get(env::kJob)) s.job = v;
  if (auto n = number(env::kOnlyRank, problems)) s.only_rank = static_cast<int64_t>(*n);
  if (const char* v = get(env::kHostPerRank)) s.host_per_rank = std::string_view(v) == "1";
  if (const char* v = get(env::kWholeSamples)) s.whole_samples = std::string_view(v) == "1";
  if (const char* v = get(env::kVisitCounter); v != nullptr && std::string_view(v) != "patch") {
    // "patch": the launcher's choice to count in the code; the kernel kind stays the default.
    if (const auto kind = visit_counter_named(v)) {
      s.visit_counter = *kind;
    } else {
      problems.push_back(std::string(env::kVisitCounter) +
                         " must be breakpoint or uprobe; ignored");
    }
  }
  if (const char* v = get(env::kBreakpoints)) {
    std::string_view text(v);
    while (!text.empty()) {
      const size_t nl = std::min(text.find('\n'), text.size());
      const std::string_view item = text.substr(0, nl);
      text.remove_prefix(std::min(nl + 1, text.size()));
      const size_t tab = item.find('\t');
      if (tab == std::string_view::npos) continue;
      CausalSettings::Breakpoint bp;
      bp.name = std::string(item.substr(0, tab));
      // NAME \t ADDRESS [\t LIBRARY [\t PLAN]]: LIBRARY for a point in a library the
      // program loads at start, PLAN where the place can be counted in the code.
      std::string_view rest = item.substr(tab + 1);
      const size_t tab2 = rest.find('\t');
      bp.address = std::strtoull(std::string(rest.substr(0, tab2)).c_str(), nullptr, 16);
      if (tab2 != std::string_view::npos) {
        rest.remove_prefix(tab2 + 1);
        const size_t tab3 = rest.find('\t');
        bp.module = std::string(rest.substr(0, tab3));
        if (tab3 != std::string_view::npos) bp.patch = std::string(rest.substr(tab3 + 1));
      }
      if (bp.address != 0) s.breakpoints.push_back(std::move(bp));
    }
  }
  return s;
}

std::string format_location_line(const LocationLine& line) {
  std::string out = line.name + "\t";
  char buf[64];
  for (size_t i = 0; i < line.ranges.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%llx-%llx", i == 0 ? "" : ",",
                  static_cast<unsigned long long>(line.ranges[i].start),
                  static_cast<unsigned long long>(line.ranges[i].end));
    out += buf;
  }
  if (!line.module.empty()) out += "\t" + line.module;
  return out;
}

std::optional<LocationLine> parse_location_line(const std::string& text) {
  // Names have no TAB: the first one ends the name, a second one starts the module.
  const size_t tab = text.find('\t');
  if (tab == std::string::npos || tab == 0) return std::nullopt;
  LocationLine line;
  line.name = text.substr(0, tab);
  const size_t module_tab = text.find('\t', tab + 1);
  if (module_tab != std::string::npos) line.module = text.substr(module_tab + 1);
  const std::string ranges = text.substr(tab + 1, module_tab == std::string::npos
                                                      ? std::string::npos
                                                      : module_tab - tab - 1);
  const char* p = ranges.c_str();
  while (*p != '\0') {
    char* end = nullptr;
    const uint64_t start = std::strtoull(p, &end, 16);
    if (end == p || *end != '-') return std::nullopt;
    p = end + 1;
    const uint64_t stop = std::strtoull(p, &end, 16);
    if (end == p) return std::nullopt;
    if (stop > start) line.ranges.push_back(AddressRange{start, stop});
    p = end;
    if (*p == ',') ++p;
    else if (*p != '\0') return std::nullopt;
  }
  if (line.ranges.empty()) return std::nullopt;
  return line;
}

}  // namespace cprof::causal
