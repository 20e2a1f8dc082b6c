#include "causal/runtime/patched_counters.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

#include "sampler/runtime/moved_code.h"
#include "sampler/runtime/process_metrics.h"

namespace cprof::causal {
namespace {

constexpr uint64_t kPage = 4096;
// Trampolines are looked for within this distance of the site, in steps of kStep, below
// it first (the executable's heap grows above it). 1 GiB keeps every target the window
// reaches (within 2 GiB of the site) within reach of the trampoline in nearly all
// programs; trampoline_code() checks each one.
constexpr uint64_t kReach = 1ULL << 30;
constexpr uint64_t kStep = 1ULL << 20;

// The process's thread count, from /proc/self/stat; 0 when unreadable.
uint64_t thread_count() {
  const int fd = ::open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::array<char, 1024> text{};
  const ssize_t n = ::read(fd, text.data(), text.size() - 1);
  ::close(fd);
  return n <= 0 ? 0 : sampler::stat_thread_count(text.data());
}

// Two pages within kReach of `site`, free until now: code, then data. nullptr if none.
uint8_t* map_near(uint64_t site) {
  const uint64_t base = site & ~(kPage - 1);
  for (uint64_t distance = kStep; distance < kReach; distance += kStep) {
    for (const bool below : {true, false}) {
      if (below && base < distance + kStep) continue;
      const uint64_t hint = below ? base - distance : base + distance;
      void* p = ::mmap(reinterpret_cast<void*>(hint), 2 * kPage, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
      if (p == MAP_FAILED) continue;
      if (reinterpret_cast<uint64_t>(p) != hint) {  // a kernel that ignores the flag
        ::munmap(p, 2 * kPage);
        continue;
      }
      return static_cast<uint8_t*>(p);
    }
  }
  return nullptr;
}

// Makes the pages holding [address, address + size) writable (and still executable), or
// back to read and execute.
bool set_code_writable(uint64_t address, size_t size, bool writable) {
  const uint64_t first = address & ~(kPage - 1);
  const uint64_t last = (address + size - 1) & ~(kPage - 1);
  const int prot = PROT_READ | PROT_EXEC | (writable ? PROT_WRITE : 0);
  return ::mprotect(reinterpret_cast<void*>(first), last - first + kPage, prot) == 0;
}

}  // namespace

std::atomic<uint64_t>* patch_counter(uint64_t site, const PatchPlan& plan, std::string& error,
                                     CodeState state) {
#if !defined(__x86_64__)
  (void)site;
  (void)plan;
  (void)state;
  error = "patching code is implemented for x86-64 only";
  return nullptr;
#else
  if (plan.bytes.size() < kPatchJumpBytes) {
    error = "a window of under 5 bytes";
    return nullptr;
  }
  if (const uint64_t threads = state == CodeState::at_start ? thread_count() : 1; threads != 1) {
    error = "the program had " + std::to_string(threads) + " threads when the runtime started";
    return nullptr;
  }
  if (std::memcmp(reinterpret_cast<const void*>(site), plan.bytes.data(), plan.bytes.size()) != 0) {
    error = "the loaded code differs from the file's";
    return nullptr;
  }
  uint8_t* pages = map_near(site);
  if (pages == nullptr) {
    error = "no free page within 1 GiB of the code";
    return nullptr;
  }
  const auto code = reinterpret_cast<uint64_t>(pages);
  const uint64_t counter = code + kPage;
  auto* count = new (reinterpret_cast<void*>(counter)) std::atomic<uint64_t>(0);
  std::vector<TrampolineRow> rows;
  const auto trampoline = trampoline_code(plan, site, code, counter, error, &rows);
  const auto jump = site_jump(plan, site, code);
  if (!trampoline || !jump) {
    if (error.empty()) error = "the trampoline is out of a jump's reach";
    ::munmap(pages, 2 * kPage);
    return nullptr;
  }
  std::memcpy(pages, trampoline->data(), trampoline->size());
  if (::mprotect(pages, kPage, PROT_READ | PROT_EXEC) != 0) {
    error = std::string("mprotect of the trampoline: ") + std::strerror(errno);
    ::munmap(pages, 2 * kPage);
    return nullptr;
  }
  // Before the jump is written: a sample in the trampoline is unwound from the line's
  // code. A full table leaves such samples unnamed, nothing worse.
  sampler::register_moved_code(code, code + trampoline->size(), site, rows);
  if (!set_code_writable(site, jump->size(), true)) {
    error = std::string("mprotect of the program's code: ") + std::strerror(errno);
    ::munmap(pages, 2 * kPage);
    return nullptr;
  }
  std::memcpy(reinterpret_cast<void*>(site), jump->data(), jump->size());
  set_code_writable(site, jump->size(), false);
  return count;
#endif
}

}  // namespace cprof::causal
