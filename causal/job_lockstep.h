#pragma once
// Causal experiments in lockstep across the ranks of an MPI job (docs/causal.md, "MPI").
//
// A bulk-synchronous job moves as fast as its slowest rank: a virtual speedup inserted in
// one rank at a time measures nothing useful. So every rank runs the same experiment at
// the same time, without talking to the others:
//   - slots on CLOCK_REALTIME (the one clock ranks on different hosts share, through NTP):
//     slot k is [k * slot_ns, (k + 1) * slot_ns); an experiment starts at a slot's start
//     and ends (warm-up, measurement) before the next one;
//   - what it is comes from (seed, k) alone: every rank with the same seed and the same
//     --line/--function list draws the same location and speedup for slot k, whenever
//     it joined, whatever it did before (no state to drift apart);
//   - the delays: a selected sample in any rank delays every thread of every rank, as Coz
//     delays every other thread of one process. The ranks of a host map one JobShared
//     (POSIX shared memory named after the job) and keep the global delay count there.
//     Each host has its own; the MPI wrappers exchange them at the collectives where
//     every rank of a communicator meets (docs/causal.md, "Delays across hosts").
// Waits inside MPI count as blocked (DelayAccounting::peer_wait_begin), through the MPI
// wrappers causal-run preloads with the runtime (causal/mpi/mpi_waits.cpp).
//
// Automatic selection (no --line/--function) draws from each rank's own samples, which a
// seed alone cannot make agree. So one rank of the host leads: the first to claim it
// draws each slot's location from its samples and announces it in the shared page; the
// others run the same location, found by name in their own table (every rank built it
// from the same program), at the same speedup. A rank that finds no announcement for a
// slot in time, or not the location, sits the slot out.

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cprof::causal {

// In a shared page: lock-free atomics only (address-free across processes).
struct JobShared {
  std::atomic<uint64_t> global_delay_ns;
  // Set once any rank of the host saw progress: the others (which may have no progress
  // point of their own) start their experiments then too.
  std::atomic<uint32_t> progress_started;
  std::atomic<uint32_t> attached;  // ranks that mapped it
  // Automatic selection: 1 once a rank of the host leads it (claim_leader).
  std::atomic<uint32_t> leader;
  // The leader's announcement of a slot's experiment, under a sequence lock: `version` is
  // odd while the leader writes (announce_slot, announced).
  std::atomic<uint64_t> version;
  std::atomic<uint64_t> announced_slot;                  // slot + 1; 0: none yet
  std::atomic<uint64_t> announced_speedup;               // the double's bits
  std::array<std::atomic<uint64_t>, 64> announced_name;  // the location's name, NUL-padded
  // The delay the host's count was raised by to reach other hosts' (import_job_count).
  std::atomic<uint64_t> imported_ns;
};
static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert(std::atomic<uint32_t>::is_always_lock_free);

// The job's shared page on this host, created by the first rank to open it.
class JobSegment {
 public:
  // `key`: CPROF_CAUSAL_JOB (causal-run derives it from the MPI launcher's job id). On
  // failure get() is null and error() says why.
  explicit JobSegment(const std::string& key);
  ~JobSegment();
  JobSegment(const JobSegment&) = delete;
  JobSegment& operator=(const JobSegment&) = delete;
  JobShared* get() const { return shared_; }
  const std::string& error() const { return error_; }
  const std::string& name() const { return name_; }
  // Removes the name (the ranks that mapped it keep their mapping). At the run's end.
  void unlink() const;

 private:
  std::string name_;
  std::string error_;
  JobShared* shared_ = nullptr;
};

// True for the one rank of the host that leads automatic selection (the first to ask).
inline bool claim_leader(JobShared& job) {
  return job.leader.exchange(1, std::memory_order_acq_rel) == 0;
}

// The longest location name an announcement carries (a longer one is announced cut, and
// no follower finds it).
inline constexpr size_t kAnnouncedNameChars = sizeof(JobShared::announced_name) - 1;

// The leader: slot `slot` runs `location` at `speedup`.
void announce_slot(JobShared& job, uint64_t slot, std::string_view location, double speedup);

struct Announcement {
  std::string location;
  double speedup = 0;
};
// What was announced for `slot`; nullopt when nothing yet (or another slot's), or while
// the leader is rewriting it.
std::optional<Announcement> announced(const JobShared& job, uint64_t slot);

// The shared memory name for a job key: "/cprof-job-<hex hash>".
std::string job_segment_name(const std::string& key);
// The seed every rank derives from the job key and the --seed (0 without one).
uint64_t job_seed(const std::string& key, uint64_t seed);

struct SlotPick {
  size_t location = 0;  // index into the --line/--function list
  double speedup = 0;
};

// The experiment of slot `slot`: a location drawn uniformly, a baseline (0) with
// probability `baseline_share`, else `fixed` or a uniform draw from `speedups`. A function
// of its arguments alone. `locations` > 0, `speedups` not empty.
SlotPick pick_for_slot(uint64_t seed, uint64_t slot, size_t locations,
                       std::span<const double> speedups, double baseline_share,
                       std::optional<double> fixed);

// The first slot that starts at or after `realtime_ns`, and its start.
inline uint64_t next_slot(uint64_t realtime_ns, uint64_t slot_ns) {
  return (realtime_ns + slot_ns - 1) / slot_ns;
}
inline uint64_t slot_start_ns(uint64_t slot, uint64_t slot_ns) { return slot * slot_ns; }

}  // namespace cprof::causal
