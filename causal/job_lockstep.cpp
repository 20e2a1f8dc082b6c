#include "causal/job_lockstep.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <new>

#include "causal/rng.h"

namespace cprof::causal {
namespace {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace

std::string job_segment_name(const std::string& key) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string name = "/cprof-job-";
  const uint64_t h = fnv1a(key);
  for (int shift = 60; shift >= 0; shift -= 4) name += kHex[(h >> shift) & 15];
  return name;
}

uint64_t job_seed(const std::string& key, uint64_t seed) {
  return fnv1a(key) ^ (seed * 0x9E3779B97F4A7C15ull);
}

JobSegment::JobSegment(const std::string& key) : name_(job_segment_name(key)) {
  const int fd = shm_open(name_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    error_ = "shm_open " + name_ + ": " + std::strerror(errno);
    return;
  }
  // Zero-filled when created; a rank that extends it after another wrote keeps the data.
  struct stat st {};
  if (fstat(fd, &st) != 0 || (st.st_size < static_cast<off_t>(sizeof(JobShared)) &&
                              ftruncate(fd, static_cast<off_t>(sizeof(JobShared))) != 0)) {
    error_ = "sizing " + name_ + ": " + std::strerror(errno);
    close(fd);
    return;
  }
  void* p = mmap(nullptr, sizeof(JobShared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    error_ = "mmap " + name_ + ": " + std::strerror(errno);
    return;
  }
  // Zero bytes are valid atomics holding 0; nothing to construct.
  shared_ = static_cast<JobShared*>(p);
  shared_->attached.fetch_add(1, std::memory_order_relaxed);
}

JobSegment::~JobSegment() {
  if (shared_ != nullptr) munmap(shared_, sizeof(JobShared));
}

void JobSegment::unlink() const { shm_unlink(name_.c_str()); }

void announce_slot(JobShared& job, uint64_t slot, std::string_view location, double speedup) {
  job.version.fetch_add(1, std::memory_order_acq_rel);  // odd: being written
  std::atomic_thread_fence(std::memory_order_release);
  const std::string_view name = location.substr(0, kAnnouncedNameChars);
  std::array<char, sizeof(JobShared::announced_name)> text{};  // NUL-padded
  std::memcpy(text.data(), name.data(), name.size());
  for (size_t w = 0; w < job.announced_name.size(); ++w) {
    uint64_t word = 0;
    std::memcpy(&word, text.data() + w * sizeof word, sizeof word);
    job.announced_name[w].store(word, std::memory_order_relaxed);
  }
  uint64_t bits = 0;
  std::memcpy(&bits, &speedup, sizeof bits);
  job.announced_speedup.store(bits, std::memory_order_relaxed);
  job.announced_slot.store(slot + 1, std::memory_order_relaxed);
  job.version.fetch_add(1, std::memory_order_release);  // even: done
}

std::optional<Announcement> announced(const JobShared& job, uint64_t slot) {
  const uint64_t before = job.version.load(std::memory_order_acquire);
  if (before % 2 != 0) return std::nullopt;
  if (job.announced_slot.load(std::memory_order_relaxed) != slot + 1) return std::nullopt;
  std::array<char, sizeof(JobShared::announced_name)> text{};
  for (size_t w = 0; w < job.announced_name.size(); ++w) {
    const uint64_t word = job.announced_name[w].load(std::memory_order_relaxed);
    std::memcpy(text.data() + w * sizeof word, &word, sizeof word);
  }
  Announcement a;
  a.location.assign(text.data(), strnlen(text.data(), text.size()));
  const uint64_t bits = job.announced_speedup.load(std::memory_order_relaxed);
  std::memcpy(&a.speedup, &bits, sizeof bits);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (job.version.load(std::memory_order_relaxed) != before) return std::nullopt;
  return a;
}

SlotPick pick_for_slot(uint64_t seed, uint64_t slot, size_t locations,
                       std::span<const double> speedups, double baseline_share,
                       std::optional<double> fixed) {
  Rng rng(seed ^ (slot * 0xD1B54A32D192ED03ull));
  SlotPick pick;
  // Draw every number every time: the stream does not depend on which branch ran.
  pick.location = static_cast<size_t>(rng.below(locations));
  const bool baseline = rng.unit() < baseline_share;
  const double drawn = speedups[rng.below(speedups.size())];
  pick.speedup = baseline ? 0.0 : fixed ? *fixed : drawn;
  return pick;
}

}  // namespace cprof::causal
