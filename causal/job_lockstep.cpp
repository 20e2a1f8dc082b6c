#include "causal/job_lockstep.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
