#include "sampler/events/counter_group.h"

#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sampler/runtime/owned_fds.h"

namespace cprof::sampler {

int perf_event_open_fd(const perf_event_attr& attr, pid_t tid, int cpu, int group_fd,
                       unsigned long flags) {
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, cpu, group_fd, flags));
}

std::string perf_open_error(int err) {
  std::string why = std::string("perf_event_open: ") + std::strerror(err);
  switch (err) {
    case ENOENT:
    case EOPNOTSUPP:
      return why + " (the event does not exist here: no hardware PMU, e.g. in a VM)";
    case EACCES:
    case EPERM:
      return why + " (not permitted: see /proc/sys/kernel/perf_event_paranoid)";
    case ENOSYS:
      return why + " (the kernel has no perf_event support)";
    case EMFILE:
      return why + " (too many open files: raise 'ulimit -n')";
    default:
      return why;
  }
}

std::vector<std::string> CounterGroup::open(pid_t tid,
                                            const std::vector<const perf_event_attr*>& attrs) {
  std::vector<std::string> errors(attrs.size());
  count_ = attrs.size() < kMaxCounters ? attrs.size() : kMaxCounters;
  for (size_t i = 0; i < count_; ++i) {
    slot_of_event_[i] = -1;
    if (attrs[i] == nullptr) {
      errors[i] = "not resolved";
      continue;
    }
    perf_event_attr attr = *attrs[i];
    attr.size = sizeof attr;
    attr.read_format = PERF_FORMAT_GROUP;
    attr.disabled = leader_.fd < 0 ? 1 : 0;  // members follow the leader
    attr.inherit = 0;
    // The privilege level was chosen once for the process by resolve_events, which
    // records a fallback to user level; a silent retry here would hide it.
    const OwnedFd owned =
        adopt_fd(perf_event_open_fd(attr, tid, -1, leader_.fd, PERF_FLAG_FD_CLOEXEC));
    if (owned.fd < 0) {
      errors[i] = perf_open_error(errno);
      continue;
    }
    fds_[i] = owned;
    slot_of_event_[i] = static_cast<int>(opened_++);
    if (leader_.fd < 0) leader_ = owned;
  }
  if (leader_.fd >= 0) {
    if (::ioctl(leader_.fd, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) != 0 ||
        ::ioctl(leader_.fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0) {
      for (size_t i = 0; i < count_; ++i) {
        if (fds_[i].fd >= 0) errors[i] = std::string("enable: ") + std::strerror(errno);
      }
      close();
    }
  }
  return errors;
}

void CounterGroup::close() {
  for (size_t i = 0; i < kMaxCounters; ++i) {
    close_owned(fds_[i]);
    fds_[i] = {};
  }
  leader_ = {};
  opened_ = 0;
}

void CounterGroup::read_deltas(uint64_t* deltas) {
  uint64_t buf[1 + kMaxCounters] = {};
  // Not a number the program has taken with dup2 since: that read would consume its data.
  const bool ok = owns(leader_) && ::read(leader_.fd, buf, sizeof buf) > 0;
  for (size_t i = 0; i < count_; ++i) {
    const int slot = slot_of_event_[i];
    if (!ok || slot < 0 || static_cast<uint64_t>(slot) >= buf[0]) {
      deltas[i] = 0;
      continue;
    }
    const uint64_t now = buf[1 + slot];
    deltas[i] = now - last_[i];
    last_[i] = now;
  }
}

}  // namespace cprof::sampler
