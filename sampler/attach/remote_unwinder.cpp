#include "sampler/attach/remote_unwinder.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace cprof::sampler {
namespace {

// One executable file mapping of the process.
struct CodeMapping {
  uint64_t start = 0;
  uint64_t end = 0;
  std::string path;       // as /proc/PID/maps names it, without " (deleted)"
  std::string map_files;  // /proc/PID/map_files/<start>-<end>
};

constexpr const char* kDeleted = " (deleted)";

std::vector<CodeMapping> read_code_mappings(pid_t pid, std::string& error) {
  std::vector<CodeMapping> out;
  std::ifstream in(fmt::format("/proc/{}/maps", pid));
  if (!in) {
    error = fmt::format("cannot read /proc/{}/maps: {}", pid, std::strerror(errno));
    return out;
  }
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string range;
    std::string perms;
    std::string offset;
    std::string dev;
    std::string inode;
    fields >> range >> perms >> offset >> dev >> inode;
    std::string path;
    std::getline(fields >> std::ws, path);
    if (perms.size() < 3 || perms[2] != 'x' || path.empty() || path[0] != '/') continue;
    if (path.size() > std::strlen(kDeleted) && path.ends_with(kDeleted)) {
      path.resize(path.size() - std::strlen(kDeleted));
    }
    const auto dash = range.find('-');
    if (dash == std::string::npos) continue;
    CodeMapping m;
    m.start = std::stoull(range.substr(0, dash), nullptr, 16);
    m.end = std::stoull(range.substr(dash + 1), nullptr, 16);
    m.path = path;
    m.map_files = fmt::format("/proc/{}/map_files/{}", pid, range);
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

struct RemoteUnwinder::State {
  pid_t pid = 0;
  Dwfl* dwfl = nullptr;
  Dwfl_Callbacks callbacks{};
  bool attached = false;
  std::vector<CodeMapping> code;  // sorted by start
  // The first map_files entry of each path: the file that runs, even if deleted.
  std::map<std::string, std::string> file_of_path;
  // The walk in progress.
  const ThreadSample* sample = nullptr;
  uint64_t* frames = nullptr;
  size_t max = 0;
  size_t count = 0;
  bool truncated = false;

  const CodeMapping* mapping_at(uint64_t a) const {
    auto it = std::upper_bound(code.begin(), code.end(), a,
                               [](uint64_t x, const CodeMapping& m) { return x < m.start; });
    if (it == code.begin()) return nullptr;
    --it;
    return a < it->end ? &*it : nullptr;
  }
};

namespace {

using State = RemoteUnwinder::State;

// The unwinder libdwfl calls back into (its module callbacks take no argument of ours).
thread_local State* t_state = nullptr;

// libdwfl's find_elf: the file through /proc/PID/map_files (the one that runs, even when
// deleted, replaced, or in another mount namespace), else by its name as libdwfl would.
int find_elf(Dwfl_Module* mod, void** userdata, const char* name, Dwarf_Addr base, char** file_name,
             Elf** elfp) {
  if (t_state != nullptr && name != nullptr) {
    if (const auto it = t_state->file_of_path.find(name); it != t_state->file_of_path.end()) {
      const int fd = ::open(it->second.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd >= 0) {
        *file_name = ::strdup(name);
        return fd;
      }
    }
  }
  return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
}

// No separate debug files: the unwinder needs .eh_frame only, and reading a module's
// DWARF would cost seconds on a big binary.
int no_debuginfo(Dwfl_Module*, void**, const char*, Dwarf_Addr, const char*, const char*, GElf_Word,
                 char**) {
  return -1;
}

pid_t next_thread(Dwfl*, void* dwfl_arg, void** thread_argp) {
  auto* s = static_cast<State*>(dwfl_arg);
  if (*thread_argp != nullptr || s->sample == nullptr) return 0;
  *thread_argp = s;
  return s->sample->tid;
}

bool get_thread(Dwfl*, pid_t, void* dwfl_arg, void** thread_argp) {
  *thread_argp = dwfl_arg;
  return true;
}

bool memory_read(Dwfl*, Dwarf_Addr addr, Dwarf_Word* result, void* dwfl_arg) {
  auto* s = static_cast<State*>(dwfl_arg);
  const ThreadSample& sample = *s->sample;
  if (addr >= sample.stack_start &&
      addr + sizeof(Dwarf_Word) <= sample.stack_start + sample.stack.size()) {
    std::memcpy(result, sample.stack.data() + (addr - sample.stack_start), sizeof(Dwarf_Word));
    return true;
  }
  // Past the copy on the stack: what is there now is not what was there at the sample.
  // Inside a mapped file (a CFA expression reading data): the live process, unchanged
  // since.
  if (s->mapping_at(addr) == nullptr) return false;
  iovec local{result, sizeof(Dwarf_Word)};
  iovec remote{reinterpret_cast<void*>(addr), sizeof(Dwarf_Word)};
  return ::process_vm_readv(s->pid, &local, 1, &remote, 1, 0) ==
         static_cast<ssize_t>(sizeof(Dwarf_Word));
}

bool set_initial_registers(Dwfl_Thread* thread, void* thread_arg) {
  const auto* s = static_cast<State*>(thread_arg);
  const auto& r = s->sample->regs;
  // DWARF register numbers for x86-64: rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8-r15, rip.
  const Dwarf_Word regs[17] = {r[kRegAx],  r[kRegDx],  r[kRegCx],  r[kRegBx],  r[kRegSi],
                               r[kRegDi],  r[kRegBp],  r[kRegSp],  r[kRegR8],  r[kRegR9],
                               r[kRegR10], r[kRegR11], r[kRegR12], r[kRegR13], r[kRegR14],
                               r[kRegR15], r[kRegIp]};
  dwfl_thread_state_register_pc(thread, r[kRegIp]);
  return dwfl_thread_state_registers(thread, 0, 17, regs);
}

int on_frame(Dwfl_Frame* frame, void* arg) {
  auto* s = static_cast<State*>(arg);
  Dwarf_Addr pc = 0;
  bool activation = false;
  if (!dwfl_frame_pc(frame, &pc, &activation)) return DWARF_CB_ABORT;
  if (s->count == s->max) {
    s->truncated = true;
    return DWARF_CB_ABORT;
  }
  // A return address of 0 ends the stack (as the in-process unwinders end it).
  if (s->count > 0 && pc == 0) return DWARF_CB_ABORT;
  s->frames[s->count++] = pc;
  return DWARF_CB_OK;
}

const Dwfl_Thread_Callbacks kThreadCallbacks = {
    next_thread, get_thread, memory_read, set_initial_registers, nullptr, nullptr,
};

}  // namespace

RemoteUnwinder::RemoteUnwinder(pid_t pid) : state_(std::make_unique<State>()) {
  state_->pid = pid;
  state_->callbacks.find_elf = find_elf;
  state_->callbacks.find_debuginfo = no_debuginfo;
  state_->callbacks.section_address = dwfl_offline_section_address;
  state_->dwfl = dwfl_begin(&state_->callbacks);
}

RemoteUnwinder::~RemoteUnwinder() {
  if (state_->dwfl != nullptr) dwfl_end(state_->dwfl);
}

std::string RemoteUnwinder::refresh() {
  State& s = *state_;
  t_state = &s;
  if (s.dwfl == nullptr) return "libdwfl: " + std::string(dwfl_errmsg(-1));
  std::string error;
  auto code = read_code_mappings(s.pid, error);
  if (!error.empty()) return error;
  std::sort(code.begin(), code.end(),
            [](const CodeMapping& a, const CodeMapping& b) { return a.start < b.start; });
  s.code = std::move(code);
  s.file_of_path.clear();
  for (const auto& m : s.code) s.file_of_path.emplace(m.path, m.map_files);
  dwfl_report_begin(s.dwfl);
  const int rc = dwfl_linux_proc_report(s.dwfl, s.pid);
  dwfl_report_end(s.dwfl, nullptr, nullptr);
  if (rc != 0) {
    return fmt::format("cannot read the modules of process {}: {}", s.pid,
                       rc > 0 ? std::strerror(rc) : dwfl_errmsg(-1));
  }
  if (!s.attached) s.attached = dwfl_attach_state(s.dwfl, nullptr, s.pid, &kThreadCallbacks, &s);
  return {};
}

std::string RemoteUnwinder::running_file(const std::string& path) const {
  const auto it = state_->file_of_path.find(path);
  return it == state_->file_of_path.end() ? std::string() : it->second;
}

bool RemoteUnwinder::knows(uint64_t pc) const { return state_->mapping_at(pc) != nullptr; }

size_t RemoteUnwinder::unwind(const ThreadSample& sample, uint64_t* frames, size_t max,
                              bool& truncated) {
  State& s = *state_;
  truncated = false;
  if (max == 0) return 0;
  if (!sample.user_regs || !s.attached || sample.stack.empty()) {
    frames[0] = sample.regs[kRegIp];
    return 1;
  }
  t_state = &s;
  s.sample = &sample;
  s.frames = frames;
  s.max = max;
  s.count = 0;
  s.truncated = false;
  dwfl_getthread_frames(s.dwfl, sample.tid, on_frame, &s);
  s.sample = nullptr;
  truncated = s.truncated;
  if (s.count == 0) {
    frames[0] = sample.regs[kRegIp];
    return 1;
  }
  return s.count;
}

std::vector<format::ModuleRecord> RemoteUnwinder::modules() const {
  std::vector<format::ModuleRecord> out;
  State& s = *state_;
  t_state = &s;
  // One record per file: its executable range, and the bias libdwfl computed.
  std::map<std::string, format::ModuleRecord> by_path;
  std::vector<std::string> order;
  for (const auto& m : s.code) {
    auto [it, added] = by_path.try_emplace(m.path);
    auto& r = it->second;
    if (added) {
      r.path = m.path;
      r.start = m.start;
      r.end = m.end;
      order.push_back(m.path);
    } else {
      r.start = std::min(r.start, m.start);
      r.end = std::max(r.end, m.end);
    }
  }
  for (const auto& path : order) {
    auto& r = by_path[path];
    if (Dwfl_Module* mod = dwfl_addrmodule(s.dwfl, r.start)) {
      Dwarf_Addr bias = 0;
      if (dwfl_module_getelf(mod, &bias) != nullptr) r.load_bias = bias;
      const unsigned char* bits = nullptr;
      GElf_Addr vaddr = 0;
      const int n = dwfl_module_build_id(mod, &bits, &vaddr);
      for (int i = 0; i < n; ++i) r.build_id += fmt::format("{:02x}", bits[i]);
    }
    r.id = static_cast<uint32_t>(out.size());
    out.push_back(r);
  }
  return out;
}

}  // namespace cprof::sampler
