#include "sampler/attach/attach_session.h"

#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>

#include "common/monotonic.h"
#include "format/module_copies.h"
#include "format/writer.h"
#include "sampler/attach/remote_unwinder.h"
#include "sampler/attach/thread_events.h"
#include "sampler/runtime/process_identity.h"

namespace cprof::sampler {
namespace {

// A line of /proc/PID/status ("Tgid:", "PPid:", "State:"), without the key; "" if none.
std::string status_field(pid_t pid, const std::string& key) {
  std::ifstream in(fmt::format("/proc/{}/status", pid));
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with(key + ":")) {
      const auto v = line.find_first_not_of(" \t", key.size() + 1);
      return v == std::string::npos ? "" : line.substr(v);
    }
  }
  return {};
}

// Whether `pid` runs (not gone, not a zombie).
bool still_running(pid_t pid) {
  const std::string state = status_field(pid, "State");
  return !state.empty() && !state.starts_with("Z") && !state.starts_with("X");
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string perf_paranoid() { return read_line("/proc/sys/kernel/perf_event_paranoid"); }

std::vector<pid_t> threads_of(pid_t pid) {
  std::vector<pid_t> out;
  DIR* d = ::opendir(fmt::format("/proc/{}/task", pid).c_str());
  if (d == nullptr) return out;
  while (const dirent* e = ::readdir(d)) {
    char* end = nullptr;
    const long tid = std::strtol(e->d_name, &end, 10);
    if (*end == '\0' && tid > 0) out.push_back(static_cast<pid_t>(tid));
  }
  ::closedir(d);
  return out;
}

// The machine of the ELF file `path` runs; 0 when it cannot be read.
int elf_machine(const std::string& path, bool& is_64) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -errno;
  Elf64_Ehdr h{};
  const ssize_t n = ::read(fd, &h, sizeof h);
  ::close(fd);
  if (n < EI_NIDENT + 4 || std::memcmp(h.e_ident, ELFMAG, SELFMAG) != 0) return 0;
  is_64 = h.e_ident[EI_CLASS] == ELFCLASS64;
  return h.e_machine;
}

std::string machine_name(int machine) {
  switch (machine) {
    case EM_386:
      return "i386 (32-bit x86)";
    case EM_AARCH64:
      return "AArch64";
    case EM_ARM:
      return "ARM";
    case EM_RISCV:
      return "RISC-V";
    case EM_PPC64:
      return "PowerPC 64";
    default:
      return fmt::format("ELF machine {}", machine);
  }
}

std::string not_permitted(pid_t pid) {
  // "Uid:" lists the real, effective, saved and file-system uids.
  const long owner = std::strtol(status_field(pid, "Uid").c_str(), nullptr, 10);
  if (::geteuid() != 0 && static_cast<uid_t>(owner) != ::geteuid()) {
    return fmt::format(
        "not permitted to sample process {}: it belongs to another user (uid {}); sample it "
        "as that user, or as root (or with CAP_SYS_PTRACE and CAP_PERFMON)",
        pid, owner);
  }
  return fmt::format(
      "not permitted to sample process {} (perf_event_paranoid is {}): run as root or with "
      "CAP_PERFMON, or allow it with 'sysctl kernel.perf_event_paranoid=1'; Yama's "
      "/proc/sys/kernel/yama/ptrace_scope, where there is one, must also let this user "
      "trace it (0, or 1 for its own children)",
      pid, perf_paranoid());
}

// One thread being sampled.
struct Thread {
  ThreadEvent event;
  uint64_t samples = 0;
  uint64_t lost = 0;
  uint64_t cpu_ns = 0;  // the event's count, read at every pass
  // Wall mode: the sample taken when the thread last left its CPU, kept (with its stack
  // copy) until it runs again, and the off-CPU time not yet in a sample.
  bool off = false;
  ThreadSample off_sample;
  std::vector<uint8_t> off_stack;
  uint64_t off_pending_ns = 0;
  uint64_t counters[kMaxCounters] = {};  // -e: the totals at the last sample
};

// One process followed: its results file, its unwinder, its threads.
class Process {
 public:
  Process(pid_t pid, const AttachOptions& o, const ThreadEventSettings& s)
      : pid_(pid), options_(o), settings_(s) {}

  pid_t pid() const { return pid_; }
  bool ended() const { return ended_; }
  uint64_t samples() const { return samples_; }
  const std::vector<std::string>& notes() const { return notes_; }
  uint64_t lost() const { return lost_; }

  // Opens this image's file and writes its process record. "" or why not.
  std::string open_file() {
    unwinder_ = std::make_unique<RemoteUnwinder>(pid_);
    if (std::string err = unwinder_->refresh(); !err.empty()) return err;
    ProcessIdentity id = process_identity_of(pid_);
    id.ppid = std::strtoll(status_field(pid_, "PPid").c_str(), nullptr, 10);
    auto record = process_record_now(id);
    record.engine = "perf_event";
    record.clock = options_.wall ? "cpu+wall" : "cpu";
    record.unwinder = "libdw";
    record.frequency_hz = options_.frequency_hz;
    record.period_ns = settings_.period_ns;
    writer_ = std::make_unique<format::ResultsWriter>();
    if (std::string err = writer_->open_unique(results_file_stem(options_.results_dir, id));
        !err.empty()) {
      return err;
    }
    writer_->add(record);
    for (size_t i = 0; i < options_.events.size(); ++i) {
      const auto& ev = options_.events[i];
      format::EventRecord r;
      r.index = static_cast<uint32_t>(i);
      r.name = ev.name;
      r.canonical_name = ev.canonical_name;
      const bool counted = ev.kind == ResolvedEvent::Kind::resolved && ev.open_errno == 0;
      r.status = counted ? format::EventStatus::ok : format::EventStatus::unavailable;
      r.detail =
          ev.open_errno != 0 && ev.detail.empty() ? perf_open_error(ev.open_errno) : ev.detail;
      writer_->add(r);
    }
    written_modules_.clear();
    write_new_modules();
    return {};
  }

  // Starts sampling `tid` (a thread of this process). "" or why not.
  std::string add_thread(pid_t tid, bool existed) {
    if (threads_.contains(tid)) return {};
    Thread t;
    if (std::string err = t.event.open(tid, settings_); !err.empty()) return err;
    // A counter this thread cannot count: said once per process, as the runtime says it.
    for (size_t i = 0; i < t.event.counter_errors().size(); ++i) {
      const std::string& err = t.event.counter_errors()[i];
      // (One the launcher could not open either has been named already.)
      if (err.empty() || settings_.counters[i] == nullptr || counter_said_[i] ||
          options_.events[i].open_errno != 0) {
        continue;
      }
      counter_said_[i] = true;
      writer_->add(format::MessageRecord{monotonic_ns(), format::MessageLevel::warning,
                                         fmt::format("event '{}' not counted in thread {}: {}",
                                                     options_.events[i].name, tid, err)});
    }
    format::ThreadRecord r;
    r.tid = tid;
    r.name = read_line(fmt::format("/proc/{}/task/{}/comm", pid_, tid));
    r.time_ns = monotonic_ns();
    r.existed_before_start = existed;
    writer_->add(r);
    // Wall mode: a thread already waiting shows no switch-out until it runs again; its
    // wait counts from now, at the stack it waits on.
    if (options_.wall &&
        read_blocked_thread(pid_, tid, settings_.stack_bytes, t.off_sample, t.off_stack)) {
      t.off_sample.time_ns = monotonic_ns();
      t.off_sample.stack = t.off_stack;
      t.off = true;
    }
    threads_.emplace(tid, std::move(t));
    return {};
  }

  // Every thread of the process now (a second pass catches threads created meanwhile).
  void add_all_threads(std::vector<std::string>& notes, bool existed) {
    for (const pid_t tid : threads_of(pid_)) {
      if (threads_.contains(tid)) continue;
      if (std::string err = add_thread(tid, existed); !err.empty() && errno != ESRCH) {
        notes.push_back(fmt::format("thread {} of process {} not sampled: {}", tid, pid_, err));
      }
    }
  }

  void add_pollfds(std::vector<pollfd>& fds, std::vector<std::pair<Process*, pid_t>>& owners) {
    for (auto& [tid, t] : threads_) {
      fds.push_back({t.event.fd(), POLLIN, 0});
      owners.emplace_back(this, tid);
    }
  }

  // Reads every ring. New threads and processes found are returned through `forks`
  // (pid, tid) pairs; a new process's own first thread has pid == tid.
  void drain(std::vector<std::pair<pid_t, pid_t>>& forks) {
    for (auto& entry : threads_) {
      Thread& t = entry.second;  // (a structured binding cannot be captured before C++20's P1091)
      t.event.drain([&](const ThreadSample& s) { on_sample(t, s); },
                    [&](const ThreadSideRecord& r) { on_side(t, r, forks); });
      if (const uint64_t c = t.event.cpu_time_ns(); c > t.cpu_ns) t.cpu_ns = c;
    }
    if (exec_seen_) on_exec();
  }

  // The thread's event said it ended (POLLHUP), or it is gone.
  void end_thread(pid_t tid) {
    const auto it = threads_.find(tid);
    if (it == threads_.end()) return;
    std::vector<std::pair<pid_t, pid_t>> ignored;
    Thread& t = it->second;
    t.event.drain([&](const ThreadSample& s) { on_sample(t, s); },
                  [&](const ThreadSideRecord& r) { on_side(t, r, ignored); });
    write_thread_end(tid, t);
    threads_.erase(it);
    if (threads_.empty()) ended_ = true;
  }

  // Detaches: ends every thread's record and the file.
  void finish() {
    const uint64_t now = monotonic_ns();
    for (auto& [tid, t] : threads_) {
      settle_off_cpu(t, now);  // still off its CPU at the detach
      if (const uint64_t c = t.event.cpu_time_ns(); c > t.cpu_ns) t.cpu_ns = c;
      write_thread_end(tid, t);
      t.event.close();
    }
    threads_.clear();
    if (writer_) writer_->close();
  }

  bool has_threads() const { return !threads_.empty(); }

 private:
  void write_thread_end(pid_t tid, const Thread& t) {
    format::ThreadEndRecord e;
    e.tid = tid;
    e.time_ns = monotonic_ns();
    e.cpu_time_ns = t.cpu_ns;
    e.samples = t.samples;
    e.dropped_samples = t.lost;
    writer_->add(e);
  }

  void write_new_modules() {
    for (auto m : unwinder_->modules()) {
      const auto key = std::make_pair(m.path, m.load_bias);
      if (written_modules_.contains(key)) continue;
      m.id = static_cast<uint32_t>(written_modules_.size());
      m.time_ns = monotonic_ns();
      written_modules_.emplace(key, m.id);
      keep_copy_if_gone(m);
      writer_->add(m);
    }
  }

  // A module whose path no longer holds the file the process runs (deleted, or replaced
  // by a rebuild): its copy goes into the results (format/module_copies.h).
  void keep_copy_if_gone(const format::ModuleRecord& m) {
    if (m.build_id.size() < 3) return;
    const std::string running = unwinder_->running_file(m.path);
    struct stat now {};
    struct stat ran {};
    if (running.empty() || ::stat(running.c_str(), &ran) != 0) return;
    if (::stat(m.path.c_str(), &now) == 0 && now.st_dev == ran.st_dev && now.st_ino == ran.st_ino) {
      return;
    }
    const std::string copy = format::module_copy_path(options_.results_dir, m.build_id);
    std::error_code ec;
    if (std::filesystem::exists(copy, ec)) return;
    std::filesystem::create_directories(std::filesystem::path(copy).parent_path(), ec);
    if (!ec) std::filesystem::copy_file(running, copy, ec);
    if (ec) {
      notes_.push_back(
          fmt::format("{} is gone from its path and could not be kept ({}): its code "
                      "will be unnamed",
                      m.path, ec.message()));
    }
  }

  void on_sample(Thread& t, const ThreadSample& s) {
    if (s.pid != pid_ || exec_seen_) return;
    // Code mapped since the last look that no mmap record announced: look again, at most
    // once a second.
    if (s.user_regs && !unwinder_->knows(s.regs[kRegIp]) &&
        s.time_ns > last_refresh_ns_ + 1'000'000'000) {
      last_refresh_ns_ = s.time_ns;
      unwinder_->refresh();
      write_new_modules();
    }
    if (s.switch_out) {
      t.off = true;
      t.off_sample = s;
      t.off_stack.assign(s.stack.begin(), s.stack.end());
      t.off_sample.stack = t.off_stack;
      return;
    }
    write_sample(t, s, s.time_ns, s.period, format::SampleClock::cpu);
  }

  // Unwinds `s` and writes it; in wall mode a CPU sample is a wall sample too (the time
  // it stands for passed on the wall clock as well).
  void write_sample(Thread& t, const ThreadSample& s, uint64_t time_ns, uint64_t weight_ns,
                    format::SampleClock clock) {
    frames_.resize(options_.depth);
    bool truncated = false;
    const size_t n = unwinder_->unwind(s, frames_.data(), frames_.size(), truncated);
    format::SampleRecord r;
    r.tid = s.tid;
    r.time_ns = time_ns;
    r.weight_ns = weight_ns;
    r.clock = clock;
    r.truncated = truncated;
    r.frames.assign(frames_.begin(), frames_.begin() + static_cast<ptrdiff_t>(n));
    if (clock == format::SampleClock::cpu && !options_.events.empty()) {
      r.counter_deltas.resize(options_.events.size());
      for (size_t i = 0; i < r.counter_deltas.size() && i < kMaxCounters; ++i) {
        r.counter_deltas[i] = s.counters[i] >= t.counters[i] ? s.counters[i] - t.counters[i] : 0;
        t.counters[i] = s.counters[i];
      }
    }
    writer_->add(r);
    if (clock == format::SampleClock::cpu) {
      ++t.samples;
      ++samples_;
      if (options_.wall) {
        r.clock = format::SampleClock::wall;
        r.counter_deltas.clear();  // counted once, with the CPU sample
        writer_->add(r);
      }
    }
  }

  // The thread ran again at `now` after leaving its CPU: its time off it is wall time
  // spent where it left. As a wall timer would, one sample each time the off-CPU time
  // adds up to a period, at the stack where it crossed it, weighing what added up.
  void settle_off_cpu(Thread& t, uint64_t now) {
    if (!t.off) return;
    t.off = false;
    if (now > t.off_sample.time_ns) t.off_pending_ns += now - t.off_sample.time_ns;
    if (t.off_pending_ns < settings_.period_ns) return;
    write_sample(t, t.off_sample, t.off_sample.time_ns, t.off_pending_ns,
                 format::SampleClock::wall);
    t.off_pending_ns = 0;
  }

  void on_side(Thread& t, const ThreadSideRecord& r, std::vector<std::pair<pid_t, pid_t>>& forks) {
    using Kind = ThreadSideRecord::Kind;
    switch (r.kind) {
      case Kind::fork:
        if (options_.tid == 0) forks.emplace_back(r.pid, r.tid);
        break;
      case Kind::comm: {
        format::ThreadNameRecord n;
        n.tid = r.tid;
        n.time_ns = r.time_ns;
        n.name = r.text;
        writer_->add(n);
        break;
      }
      case Kind::exec:
        if (r.pid == pid_) exec_seen_ = true;
        break;
      case Kind::mmap:
        // Loaded code is recorded when it loads, as the in-process runtime does. Anonymous
        // code ("//anon": a JIT's) has no file to read.
        if (r.pid == pid_ && r.text.starts_with("/") && !r.text.starts_with("//")) {
          unwinder_->refresh();
          write_new_modules();
        }
        break;
      case Kind::lost:
        t.lost += r.lost;
        lost_ += r.lost;
        break;
      case Kind::switch_in:
        settle_off_cpu(t, r.time_ns);
        break;
      case Kind::exit:
        break;
    }
  }

  // The process exec'd: the old image's file ends; the new image gets its own, as a
  // launched run's exec does. Its only thread is the one that called exec (now pid).
  void on_exec() {
    exec_seen_ = false;
    for (auto& [tid, t] : threads_) write_thread_end(tid, t);
    auto old = std::move(threads_);
    threads_.clear();
    writer_->close();
    if (!open_file().empty()) {
      ended_ = true;
      return;
    }
    for (auto& [tid, t] : old) {
      if (::access(fmt::format("/proc/{}/task/{}", pid_, tid).c_str(), F_OK) != 0) continue;
      Thread fresh;
      fresh.event = std::move(t.event);
      format::ThreadRecord rec;
      rec.tid = tid;
      rec.name = read_line(fmt::format("/proc/{}/task/{}/comm", pid_, tid));
      rec.time_ns = monotonic_ns();
      writer_->add(rec);
      threads_.emplace(tid, std::move(fresh));
    }
    if (threads_.empty()) ended_ = true;
  }

  pid_t pid_;
  const AttachOptions& options_;
  const ThreadEventSettings& settings_;
  std::unique_ptr<RemoteUnwinder> unwinder_;
  std::unique_ptr<format::ResultsWriter> writer_;
  std::map<pid_t, Thread> threads_;
  std::map<std::pair<std::string, uint64_t>, uint32_t> written_modules_;
  std::vector<uint64_t> frames_;
  bool exec_seen_ = false;
  uint64_t last_refresh_ns_ = 0;
  bool ended_ = false;
  uint64_t samples_ = 0;
  uint64_t lost_ = 0;
  std::vector<std::string> notes_;
  bool counter_said_[kMaxCounters] = {};
};

}  // namespace

std::string check_attach_target(pid_t pid, bool is_thread) {
  const char* what = is_thread ? "thread" : "process";
  if (pid <= 0) return fmt::format("{} {}: not a valid id", what, pid);
  if (::access(fmt::format("/proc/{}", pid).c_str(), F_OK) != 0) {
    return fmt::format("no {} {} is running", what, pid);
  }
  const std::string state = status_field(pid, "State");
  if (state.starts_with("Z") || state.starts_with("X")) {
    return fmt::format("{} {} has ended (it is a zombie its parent has not waited for)", what, pid);
  }
  const pid_t tgid =
      static_cast<pid_t>(std::strtol(status_field(pid, "Tgid").c_str(), nullptr, 10));
  if (!is_thread && tgid != 0 && tgid != pid) {
    return fmt::format("{} is a thread of process {}: name it with --tid, or give --pid {}", pid,
                       tgid, tgid);
  }
  char exe[4096] = {};
  if (::readlink(fmt::format("/proc/{}/exe", pid).c_str(), exe, sizeof exe - 1) < 0) {
    if (errno == EACCES || errno == EPERM) return not_permitted(pid);
    return fmt::format("{} {} runs no program of its own (a kernel thread)", what, pid);
  }
  bool is_64 = false;
  const int machine = elf_machine(fmt::format("/proc/{}/exe", pid), is_64);
  if (machine == -EACCES || machine == -EPERM) return not_permitted(pid);
  if (machine > 0 && (machine != EM_X86_64 || !is_64)) {
    return fmt::format("{} {} runs {} code ({}); only x86-64 processes can be sampled", what, pid,
                       machine_name(machine), exe);
  }
  // The event itself says whether this user may sample it (perf_event_paranoid, ptrace
  // access mode, Yama).
  ThreadEvent probe;
  ThreadEventSettings s;
  s.ring_pages = 1;
  if (std::string err = probe.open(pid, s); !err.empty()) {
    if (errno == EACCES || errno == EPERM) return not_permitted(pid);
    if (errno == ESRCH) return fmt::format("{} {} ended while attaching", what, pid);
    return fmt::format("cannot sample {} {}: {}", what, pid, err);
  }
  return {};
}

AttachOutcome attach_and_sample(const AttachOptions& o, const std::atomic<bool>& stop) {
  AttachOutcome out;
  ThreadEventSettings settings;
  settings.wall = o.wall;
  for (const auto& ev : o.events) {
    settings.counters.push_back(ev.kind == ResolvedEvent::Kind::resolved ? &ev.attr : nullptr);
  }
  settings.period_ns = static_cast<uint64_t>(std::llround(1e9 / o.frequency_hz));
  std::map<pid_t, std::unique_ptr<Process>> processes;

  auto follow = [&](pid_t pid, pid_t only_tid) -> std::string {
    auto p = std::make_unique<Process>(pid, o, settings);
    if (std::string err = p->open_file(); !err.empty()) return err;
    if (only_tid != 0) {
      if (std::string err = p->add_thread(only_tid, true); !err.empty()) {
        p->finish();
        return fmt::format("thread {}: {}", only_tid, err);
      }
    } else {
      p->add_all_threads(out.notes, true);
      p->add_all_threads(out.notes, true);  // threads created while the first pass ran
    }
    if (!p->has_threads()) {
      p->finish();
      return fmt::format("process {} ended while attaching", pid);
    }
    processes.emplace(pid, std::move(p));
    ++out.processes;
    return {};
  };

  if (o.tid != 0) {
    const pid_t tgid =
        static_cast<pid_t>(std::strtol(status_field(o.tid, "Tgid").c_str(), nullptr, 10));
    if (std::string err = follow(tgid > 0 ? tgid : o.tid, o.tid); !err.empty()) {
      out.error = err;
      return out;
    }
  }
  for (const pid_t pid : o.pids) {
    if (std::string err = follow(pid, 0); !err.empty()) {
      // The others are still sampled; with none at all, that is the error.
      out.notes.push_back(err);
    }
  }
  if (processes.empty()) {
    out.error = out.notes.empty() ? "nothing to attach to" : out.notes.back();
    out.notes.clear();
    return out;
  }

  if (o.on_attached) o.on_attached();
  const uint64_t start = monotonic_ns();
  const uint64_t deadline =
      o.seconds > 0 ? start + static_cast<uint64_t>(o.seconds * 1e9) : UINT64_MAX;
  uint64_t last_scan = start;
  std::vector<pollfd> fds;
  std::vector<std::pair<Process*, pid_t>> owners;
  std::vector<std::pair<pid_t, pid_t>> forks;
  while (!stop.load(std::memory_order_relaxed) && monotonic_ns() < deadline) {
    fds.clear();
    owners.clear();
    for (auto& [pid, p] : processes) p->add_pollfds(fds, owners);
    if (fds.empty()) {
      out.ended = true;
      break;
    }
    ::poll(fds.data(), fds.size(), 10);
    forks.clear();
    for (auto& [pid, p] : processes) p->drain(forks);
    for (size_t i = 0; i < fds.size(); ++i) {
      if ((fds[i].revents & (POLLHUP | POLLERR)) != 0)
        owners[i].first->end_thread(owners[i].second);
    }
    for (const auto& [pid, tid] : forks) {
      if (const auto it = processes.find(pid); it != processes.end()) {
        if (!it->second->ended()) it->second->add_thread(tid, false);
      } else if (std::string err = follow(pid, 0); !err.empty() && still_running(pid)) {
        // A child that ended before it could be followed (a short command a shell ran)
        // is not worth a line.
        out.notes.push_back(fmt::format("forked process {} not followed: {}", pid, err));
      }
    }
    // Threads made by a thread not sampled yet when it made them, once a second.
    if (o.tid == 0 && monotonic_ns() - last_scan > 1'000'000'000) {
      last_scan = monotonic_ns();
      for (auto& [pid, p] : processes) {
        if (!p->ended()) p->add_all_threads(out.notes, false);
      }
    }
  }
  for (auto& [pid, p] : processes) {
    std::vector<std::pair<pid_t, pid_t>> ignored;
    p->drain(ignored);
    p->finish();
    out.samples += p->samples();
    out.notes.insert(out.notes.end(), p->notes().begin(), p->notes().end());
    out.lost += p->lost();
  }
  return out;
}

}  // namespace cprof::sampler
