#include "sampler/events/event_resolver.h"

#include <perfmon/pfmlib_perf_event.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <strings.h>

namespace cprof::sampler {
namespace {

bool initialize_pfm(std::string& error) {
  static int result = PFM_SUCCESS;
  static std::once_flag once;
  std::call_once(once, [] { result = pfm_initialize(); });
  if (result != PFM_SUCCESS) error = std::string("libpfm4 initialization failed: ") + pfm_strerror(result);
  return result == PFM_SUCCESS;
}

// libpfm4 only searches the PMUs present on this machine. To tell "no such event" from
// "an event of a PMU this machine lacks" (a VM has no hardware PMU), search the tables of
// the absent PMUs by name. Returns the name of the PMU that has it, or "".
std::string absent_pmu_with_event(const std::string& full_name) {
  std::string pmu_prefix;
  std::string event = full_name;
  if (const auto sep = event.find("::"); sep != std::string::npos) {
    pmu_prefix = event.substr(0, sep);
    event = event.substr(sep + 2);
  }
  if (const auto colon = event.find(':'); colon != std::string::npos) event.resize(colon);

  // pfm_for_all_pmus increments an enum, which C++ does not allow.
  for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p) {
    const auto pmu = static_cast<pfm_pmu_t>(p);
    pfm_pmu_info_t pinfo{};
    pinfo.size = sizeof pinfo;
    if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || pinfo.is_present) continue;
    if (!pmu_prefix.empty() && pmu_prefix != pinfo.name) continue;
    for (int idx = pinfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
      pfm_event_info_t einfo{};
      einfo.size = sizeof einfo;
      if (pfm_get_event_info(idx, PFM_OS_NONE, &einfo) != PFM_SUCCESS) continue;
      if (strcasecmp(einfo.name, event.c_str()) == 0) return pinfo.name;
    }
  }
  return {};
}

}  // namespace

std::vector<std::string> split_event_list(const std::string& list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::vector<ResolvedEvent> resolve_events(const std::vector<std::string>& names) {
  std::vector<ResolvedEvent> out;
  std::string init_error;
  const bool ready = initialize_pfm(init_error);
  for (const auto& name : names) {
    ResolvedEvent ev;
    ev.name = name;
    if (!ready) {
      ev.detail = init_error;
      out.push_back(ev);
      continue;
    }
    pfm_perf_encode_arg_t arg{};
    arg.attr = &ev.attr;
    arg.size = sizeof arg;
    char* fstr = nullptr;
    arg.fstr = &fstr;
    // PFM_PLM3: user level only, like perf's default for unprivileged users.
    const int rc = pfm_get_os_event_encoding(name.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
    if (rc == PFM_SUCCESS) {
      ev.kind = ResolvedEvent::Kind::resolved;
      ev.canonical_name = fstr != nullptr ? fstr : name;
      // Keep only "pmu::EVENT[:umask]" without the modifier noise libpfm4 appends.
      if (const auto pos = ev.canonical_name.find(":u="); pos != std::string::npos) {
        ev.canonical_name.resize(pos);
      }
      ev.attr.size = sizeof(perf_event_attr);
    } else if (const std::string pmu = absent_pmu_with_event(name); !pmu.empty()) {
      ev.kind = ResolvedEvent::Kind::absent_pmu;
      ev.canonical_name = pmu + "::" + name;
      ev.detail = "needs the '" + pmu +
                  "' hardware PMU, which this machine does not have (a VM without PMU "
                  "passthrough has none)";
    } else {
      ev.detail = std::string("unknown event (libpfm4: ") + pfm_strerror(rc) +
                  "); list events with 'perf list' or libpfm4's showevtinfo";
    }
    std::free(fstr);
    out.push_back(std::move(ev));
  }
  return out;
}

}  // namespace cprof::sampler
