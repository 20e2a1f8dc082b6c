#include "causal/visit_counter.h"

#include <fcntl.h>
#include <link.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>

#include "sampler/unwind/loader_walk.h"

namespace cprof::causal {
namespace {

// The dynamic PMU type of uprobes, from sysfs; -1 when the kernel has none.
int uprobe_pmu_type() {
  const int fd = ::open("/sys/bus/event_source/devices/uprobe/type", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  std::array<char, 32> text{};
  const ssize_t n = ::read(fd, text.data(), text.size() - 1);
  ::close(fd);
  if (n <= 0) return -1;
  char* end = nullptr;
  const long type = std::strtol(text.data(), &end, 10);
  return end == text.data() || type < 0 || type > INT_MAX ? -1 : static_cast<int>(type);
}

struct Search {
  uint64_t address = 0;
  std::optional<CodePlace> found;
};

int find_segment(dl_phdr_info* info, size_t /*size*/, void* data) {
  auto* search = static_cast<Search*>(data);
  for (size_t i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const uint64_t start = info->dlpi_addr + ph.p_vaddr;
    // p_filesz, not p_memsz: a uprobe goes on bytes of the file.
    if (ph.p_type != PT_LOAD || search->address < start || search->address >= start + ph.p_filesz) {
      continue;
    }
    CodePlace place;
    place.address = search->address;
    place.file_offset = search->address - start + ph.p_offset;
    if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') {
      place.file = info->dlpi_name;
    } else {
      // The executable: dl_iterate_phdr gives it no name.
      std::array<char, PATH_MAX> path{};
      const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size() - 1);
      if (n <= 0) return 1;
      place.file.assign(path.data(), static_cast<size_t>(n));
    }
    search->found = std::move(place);
    return 1;
  }
  return 0;
}

}  // namespace

const char* to_string(VisitCounter kind) {
  return kind == VisitCounter::uprobe ? "uprobe" : "breakpoint";
}

std::optional<VisitCounter> visit_counter_named(std::string_view name) {
  if (name == "breakpoint") return VisitCounter::breakpoint;
  if (name == "uprobe") return VisitCounter::uprobe;
  return std::nullopt;
}

std::optional<CodePlace> code_place(uint64_t address) {
  Search search{address, std::nullopt};
  sampler::walk_loaded_objects(find_segment, &search);
  return search.found;
}

int open_visit_counter(VisitCounter kind, const CodePlace& where, pid_t tid) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  if (kind == VisitCounter::breakpoint) {
    attr.type = PERF_TYPE_BREAKPOINT;
    attr.bp_type = HW_BREAKPOINT_X;
    attr.bp_addr = where.address;
    attr.bp_len = sizeof(long);
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
  } else {
    const int type = uprobe_pmu_type();
    if (type < 0) {
      errno = ENOENT;
      return -1;
    }
    attr.type = static_cast<uint32_t>(type);
    attr.config = 0;  // bit 0 would make it a return probe
    attr.uprobe_path = reinterpret_cast<uintptr_t>(where.file.c_str());
    attr.probe_offset = where.file_offset;
  }
  return static_cast<int>(::syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

}  // namespace cprof::causal
