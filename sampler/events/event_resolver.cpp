#include "sampler/events/event_resolver.h"

#include <perfmon/pfmlib_perf_event.h>
#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "sampler/events/counter_group.h"
#include "sampler/events/pfm_api.h"
#include "sampler/runtime/owned_fds.h"

namespace cprof::sampler {
namespace {

// libpfm4 only searches the PMUs present on this machine. To tell "no such event" from
// "an event of a PMU this machine lacks" (a VM has no hardware PMU), search the tables of
// the absent PMUs by name. Returns the name of the PMU that has it, or "".
std::string absent_pmu_with_event(const PfmApi& pfm, const std::string& full_name) {
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
    if (pfm.get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || pinfo.is_present) continue;
    if (!pmu_prefix.empty() && pmu_prefix != pinfo.name) continue;
    for (int idx = pinfo.first_event; idx != -1; idx = pfm.get_event_next(idx)) {
      pfm_event_info_t einfo{};
      einfo.size = sizeof einfo;
      if (pfm.get_event_info(idx, PFM_OS_NONE, &einfo) != PFM_SUCCESS) continue;
      if (strcasecmp(einfo.name, event.c_str()) == 0) return pinfo.name;
    }
  }
  return {};
}

struct Encoding {
  int rc = PFM_ERR_NOTFOUND;
  perf_event_attr attr{};
  std::string fstr;  // libpfm4's fully qualified name with every modifier's value
};

// plm is the default privilege level: libpfm4 uses it unless the name sets u/k itself.
Encoding encode(const PfmApi& pfm, const std::string& name, int plm) {
  Encoding out;
  pfm_perf_encode_arg_t arg{};
  arg.attr = &out.attr;
  arg.size = sizeof arg;
  char* fstr = nullptr;
  arg.fstr = &fstr;
  out.rc = pfm.get_os_event_encoding(name.c_str(), plm, PFM_OS_PERF_EVENT_EXT, &arg);
  if (out.rc == PFM_SUCCESS) {
    out.fstr = fstr != nullptr ? fstr : name;
    out.attr.size = sizeof(perf_event_attr);
  }
  std::free(fstr);
  return out;
}

// perf writes levels as one modifier ("cycles:uk"), libpfm4 as one each ("cycles:u:k").
// Returns the libpfm4 spelling of a name whose last modifier is perf's, else "".
std::string with_libpfm_levels(const std::string& name) {
  const auto colon = name.rfind(':');
  if (colon == std::string::npos || colon == 0 || name[colon - 1] == ':') return {};
  const std::string levels = name.substr(colon + 1);
  if (levels.size() < 2 || levels.size() > 3) return {};
  std::string out = name.substr(0, colon);
  for (const char c : levels) {
    if ((c != 'u' && c != 'k' && c != 'h') || std::count(levels.begin(), levels.end(), c) > 1) {
      return {};
    }
    out += ':';
    out += c;
  }
  return out;
}

// "pmu::EVENT[:umask]" without libpfm4's "x=value" modifiers, then ":u" or ":k" when only
// one level is counted.
std::string canonical_of(const std::string& fstr, const perf_event_attr& attr) {
  std::string out = fstr;
  if (const auto eq = out.find('='); eq != std::string::npos) {
    if (const auto colon = out.rfind(':', eq); colon != std::string::npos) out.resize(colon);
  }
  if (attr.exclude_kernel != 0 && attr.exclude_user == 0) out += ":u";
  if (attr.exclude_user != 0 && attr.exclude_kernel == 0) out += ":k";
  return out;
}

// Why the kernel refused kernel-level counting: perf_event_paranoid >= 2 in the usual
// case (Documentation/admin-guide/perf-security.rst), else the errno itself.
std::string kernel_level_refusal(int err) {
  int paranoid = 0;
  if (const OwnedFile f = fopen_owned("/proc/sys/kernel/perf_event_paranoid"); f.file != nullptr) {
    const bool read = std::fscanf(f.file, "%d", &paranoid) == 1;
    fclose_owned(f);
    if (read && paranoid >= 2) return "perf_event_paranoid=" + std::to_string(paranoid);
  }
  return std::string("kernel level refused: ") + std::strerror(err);
}

// Keeps the level asked for where the kernel allows it; otherwise falls back to user
// level, or says why the event cannot be counted usefully (see the header).
void choose_level(ResolvedEvent& ev, bool level_written, PerfOpenProbe probe) {
  int err = probe(ev.attr);
  if (err == 0) return;
  if ((err == EACCES || err == EPERM) && ev.attr.exclude_kernel == 0) {
    const std::string why = kernel_level_refusal(err);
    if (level_written) {
      ev.kind = ResolvedEvent::Kind::not_permitted;
      ev.detail = "kernel level asked for, and " + why +
                  " refuses it; set perf_event_paranoid to 1 or run as root";
      return;
    }
    perf_event_attr user = ev.attr;
    user.exclude_kernel = 1;
    user.exclude_hv = 1;
    err = probe(user);
    if (err == 0 && happens_only_in_kernel(ev.attr)) {
      ev.kind = ResolvedEvent::Kind::not_permitted;
      ev.detail = "user only: " + why +
                  ", and this event happens only in the kernel, so it would count 0; set "
                  "perf_event_paranoid to 1 or run as root to count it";
      return;
    }
    if (err == 0) {
      ev.attr = user;
      ev.user_only_fallback = true;
      ev.detail = "user only: " + why +
                  " (what happens in the kernel is not counted; set perf_event_paranoid to 1 "
                  "or run as root to count both)";
      return;
    }
  }
  ev.open_errno = err;
}

}  // namespace

int probe_perf_open(const perf_event_attr& attr) {
  perf_event_attr probe = attr;
  probe.size = sizeof probe;
  probe.disabled = 1;
  probe.read_format = PERF_FORMAT_GROUP;  // as CounterGroup opens it
  const int fd = perf_event_open_fd(probe, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
  if (fd < 0) return errno;
  ::close(fd);
  return 0;
}

bool happens_only_in_kernel(const perf_event_attr& attr) {
  if (attr.type == PERF_TYPE_TRACEPOINT) return true;
  if (attr.type != PERF_TYPE_SOFTWARE) return false;
  // Page faults are not here: those taken in user code count at user level too.
  constexpr uint64_t kCgroupSwitches = 11;  // PERF_COUNT_SW_CGROUP_SWITCHES, Linux 5.13
  return attr.config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
         attr.config == PERF_COUNT_SW_CPU_MIGRATIONS || attr.config == kCgroupSwitches;
}

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

std::vector<ResolvedEvent> resolve_events(const std::vector<std::string>& names,
                                          PerfOpenProbe probe) {
  std::vector<ResolvedEvent> out;
  if (names.empty()) return out;  // libpfm4 is loaded only for a run that names events
  std::string init_error;
  const PfmApi* pfm = pfm_api(init_error);
  for (const auto& name : names) {
    ResolvedEvent ev;
    ev.name = name;
    if (pfm == nullptr) {
      ev.detail = init_error;
      out.push_back(ev);
      continue;
    }
    std::string spelling = name;
    // User and kernel level unless the name says otherwise.
    Encoding both = encode(*pfm, spelling, PFM_PLM0 | PFM_PLM3);
    if (both.rc != PFM_SUCCESS) {
      if (std::string alt = with_libpfm_levels(name); !alt.empty()) {
        if (Encoding retry = encode(*pfm, alt, PFM_PLM0 | PFM_PLM3); retry.rc == PFM_SUCCESS) {
          spelling = std::move(alt);
          both = std::move(retry);
        }
      }
    }
    if (both.rc == PFM_SUCCESS) {
      ev.kind = ResolvedEvent::Kind::resolved;
      ev.attr = both.attr;
      ev.encoding = both.fstr;
      // The name sets the level itself when another default does not change it.
      const Encoding user = encode(*pfm, spelling, PFM_PLM3);
      const bool level_written = user.rc == PFM_SUCCESS &&
                                 user.attr.exclude_kernel == both.attr.exclude_kernel &&
                                 user.attr.exclude_user == both.attr.exclude_user;
      choose_level(ev, level_written, probe);
      ev.canonical_name = canonical_of(both.fstr, ev.attr);
    } else if (const std::string pmu = absent_pmu_with_event(*pfm, name); !pmu.empty()) {
      ev.kind = ResolvedEvent::Kind::absent_pmu;
      ev.canonical_name = pmu + "::" + name;
      ev.detail = "needs the '" + pmu +
                  "' hardware PMU, which this machine does not have (a VM without PMU "
                  "passthrough has none)";
    } else {
      ev.detail = std::string("unknown event (libpfm4: ") + pfm->strerror(both.rc) +
                  "); list events with 'perf list' or libpfm4's showevtinfo";
    }
    out.push_back(std::move(ev));
  }
  return out;
}

std::string duplicate_event_error(const std::vector<ResolvedEvent>& events) {
  for (size_t i = 1; i < events.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      const ResolvedEvent& first = events[j];
      const ResolvedEvent& again = events[i];
      if (first.name == again.name) {
        return "'" + again.name + "' is named twice; name each event once";
      }
      if (!first.encoding.empty() && first.encoding == again.encoding) {
        return "'" + first.name + "' and '" + again.name + "' are the same event (" +
               first.canonical_name + "); name it once";
      }
    }
  }
  return {};
}

}  // namespace cprof::sampler
