#include "causal/launcher/cpu_wait_warnings.h"

#include <algorithm>
#include <optional>

#include "causal/runtime/settings.h"

namespace cprof::causal {
namespace {

constexpr const char* kShareFrom = " during the experiments, ";

// The share a CPU-wait warning gives ("... during the experiments, 69% of the time ..."),
// and where its number starts.
struct Share {
  int percent = 0;
  size_t at = 0, end = 0;
};

std::optional<Share> share_of(const std::string& w) {
  if (w.rfind(kCpuWaitWarningStart, 0) != 0) return std::nullopt;
  const size_t from = w.find(kShareFrom);
  if (from == std::string::npos) return std::nullopt;
  Share s;
  s.at = from + std::char_traits<char>::length(kShareFrom);
  s.end = w.find('%', s.at);
  if (s.end == std::string::npos || s.end == s.at) return std::nullopt;
  for (size_t i = s.at; i < s.end; ++i) {
    if (w[i] < '0' || w[i] > '9') return std::nullopt;
    s.percent = s.percent * 10 + (w[i] - '0');
  }
  return s;
}

}  // namespace

void group_cpu_wait_warnings(std::vector<std::string>& warnings) {
  int low = 101, high = -1;
  size_t count = 0;
  for (const auto& w : warnings) {
    if (const auto s = share_of(w)) {
      low = std::min(low, s->percent);
      high = std::max(high, s->percent);
      ++count;
    }
  }
  if (count < 2) return;
  const auto first = std::find_if(warnings.begin(), warnings.end(),
                                  [](const std::string& w) { return share_of(w).has_value(); });
  const Share s = *share_of(*first);
  const std::string range = low == high
                                ? std::to_string(low) + "%"
                                : std::to_string(low) + "% to " + std::to_string(high) + "%";
  *first = first->substr(0, s.at - 2) + " of " + std::to_string(count) + " processes, " + range +
           first->substr(s.end + 1);
  warnings.erase(std::remove_if(std::next(first), warnings.end(),
                                [](const std::string& w) { return share_of(w).has_value(); }),
                 warnings.end());
}

}  // namespace cprof::causal
