// An MPI job's experiments in lockstep (causal/job_lockstep.h): the same experiment for a
// slot in every rank whatever it did before, slots on the realtime grid, the delay count
// shared by the ranks of a host (two DelayAccounting on one shared word act as one
// process's), and waits inside MPI blocked (DelayAccounting::peer_wait_begin/_end).
#include "causal/job_lockstep.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include "causal/delays.h"
#include "causal/sample_step.h"
#include "fake_time.h"

namespace cprof::causal {
namespace {

using testing::FakeTime;

constexpr uint64_t kP = 1000000;  // 1 ms period
const std::vector<double> kSpeedups = {0, 0.25, 0.5, 0.75};

TEST(JobLockstep, ASlotsExperimentIsAFunctionOfSeedAndSlotAlone) {
  std::set<double> speedups;
  std::set<size_t> locations;
  size_t baselines = 0;
  for (uint64_t slot = 1000; slot < 1400; ++slot) {
    const SlotPick a = pick_for_slot(42, slot, 3, kSpeedups, 0.5, std::nullopt);
    // Another rank asks later, in another order, after other draws: the same answer.
    (void)pick_for_slot(42, slot + 7, 3, kSpeedups, 0.5, std::nullopt);
    const SlotPick b = pick_for_slot(42, slot, 3, kSpeedups, 0.5, std::nullopt);
    EXPECT_EQ(a.location, b.location);
    EXPECT_EQ(a.speedup, b.speedup);
    speedups.insert(a.speedup);
    locations.insert(a.location);
    baselines += a.speedup == 0 ? 1 : 0;
  }
  EXPECT_EQ(speedups.size(), 4u);  // every speedup drawn
  EXPECT_EQ(locations.size(), 3u);
  EXPECT_GT(baselines, 400u * 0.5);  // half baselines, plus the list's own 0
  EXPECT_LT(baselines, 400u * 0.75);
  // Another seed, another schedule; a fixed speedup is every sped-up experiment's.
  size_t differ = 0;
  for (uint64_t slot = 0; slot < 100; ++slot) {
    differ += pick_for_slot(42, slot, 3, kSpeedups, 0.5, std::nullopt).speedup !=
              pick_for_slot(43, slot, 3, kSpeedups, 0.5, std::nullopt).speedup;
    const double s = pick_for_slot(42, slot, 3, kSpeedups, 0.5, 0.3).speedup;
    EXPECT_TRUE(s == 0 || s == 0.3) << s;
  }
  EXPECT_GT(differ, 20u);
}

TEST(JobLockstep, SlotsStartOnTheGrid) {
  const uint64_t slot_ns = 130 * kP;
  EXPECT_EQ(next_slot(0, slot_ns), 0u);
  EXPECT_EQ(next_slot(1, slot_ns), 1u);
  EXPECT_EQ(next_slot(slot_ns, slot_ns), 1u);
  EXPECT_EQ(slot_start_ns(next_slot(5 * slot_ns + 3, slot_ns), slot_ns), 6 * slot_ns);
}

TEST(JobLockstep, KeysNameSegmentsAndSeedsAlike) {
  EXPECT_EQ(job_segment_name("PMIX_NAMESPACE=17"), job_segment_name("PMIX_NAMESPACE=17"));
  EXPECT_NE(job_segment_name("PMIX_NAMESPACE=17"), job_segment_name("PMIX_NAMESPACE=18"));
  EXPECT_EQ(job_segment_name("x").rfind("/cprof-job-", 0), 0u);
  EXPECT_EQ(job_seed("k", 5), job_seed("k", 5));
  EXPECT_NE(job_seed("k", 5), job_seed("k", 6));
}

// Two ranks on one host: each its own DelayAccounting (its own process), one global count.
TEST(JobLockstep, ASelectedSampleInOneRankDelaysTheOther) {
  FakeTime time;
  std::atomic<uint64_t> shared{0};
  DelayAccounting rank0(time.sleeper()), rank1(time.sleeper());
  rank0.share_global(&shared);
  rank1.share_global(&shared);
  ThreadDelay main0, main1;
  rank0.thread_started(main0);
  rank1.thread_started(main1);
  rank0.begin_experiment(0.5, kP);
  rank1.begin_experiment(0.5, kP);
  rank1.on_sample_in_selected(main1);  // the straggler runs the line
  EXPECT_EQ(shared.load(), kP / 2);
  EXPECT_EQ(rank0.owed(main0), kP / 2);  // the other rank owes it
  EXPECT_EQ(rank1.owed(main1), 0u);
  // Waiting in MPI, rank 0 is released by rank 1 (which paid first): credited, no pause.
  rank0.peer_wait_begin(main0);
  EXPECT_EQ(main0.paid_ns.load(), kP / 2);  // its debt from before the wait, paid as it began
  rank1.on_sample_in_selected(main1);
  rank1.on_sample_in_selected(main1);
  rank0.peer_wait_end(main0);
  EXPECT_EQ(rank0.owed(main0), 0u);
  EXPECT_EQ(main0.credited_ns.load(), kP);
  EXPECT_EQ(rank1.end_experiment(), 3 * kP / 2);
  EXPECT_EQ(rank0.end_experiment(), 3 * kP / 2);  // one count: the same delay in both records
}

// Delays across hosts: a collective's exchange raises the host's count to the job's. The
// thread that waited in it is credited up to the time it waited and owes the rest, as the
// host's running threads owe all of it; a second rank of the host, which waited longer,
// owes nothing, although the first rank already raised the shared count.
TEST(JobLockstep, DelaysFromOtherHostsAreOwedBeyondTheWait) {
  FakeTime time;
  std::atomic<uint64_t> shared{0}, imported{0};
  DelayAccounting rank0(time.sleeper()), rank1(time.sleeper());
  for (DelayAccounting* d : {&rank0, &rank1}) {
    d->share_global(&shared);
    d->share_imported(&imported);
  }
  ThreadDelay waiter0, worker0, waiter1;
  rank0.thread_started(waiter0);
  rank0.thread_started(worker0);
  rank1.thread_started(waiter1);
  rank0.begin_experiment(0.5, kP);
  rank1.begin_experiment(0.5, kP);
  EXPECT_EQ(rank0.import_job_count(waiter0, 3 * kP, kP), 0u);  // not inside a wait: nothing
  EXPECT_EQ(shared.load(), 0u);
  rank0.peer_wait_begin(waiter0);
  rank1.peer_wait_begin(waiter1);
  EXPECT_EQ(rank0.import_job_count(waiter0, 3 * kP, kP), 2 * kP);
  EXPECT_EQ(shared.load(), 3 * kP);
  EXPECT_EQ(imported.load(), 3 * kP);
  EXPECT_EQ(rank1.import_job_count(waiter1, 3 * kP, 5 * kP), 0u);  // raised already
  EXPECT_EQ(imported.load(), 3 * kP);
  rank0.peer_wait_end(waiter0);
  rank1.peer_wait_end(waiter1);
  EXPECT_EQ(rank0.owed(waiter0), 2 * kP);
  EXPECT_EQ(waiter0.credited_ns.load(), kP);
  EXPECT_EQ(rank1.owed(waiter1), 0u);
  EXPECT_EQ(rank0.owed(worker0), 3 * kP);  // it ran meanwhile: all of it
  // A count behind this host's imports nothing.
  rank0.peer_wait_begin(waiter0);
  EXPECT_EQ(rank0.import_job_count(waiter0, kP, 0), 0u);
  EXPECT_EQ(shared.load(), 3 * kP);
  rank0.peer_wait_end(waiter0);
}

// A sample inside MPI does nothing: the library polls for the others, none of it the
// program's work, and a thread inside pays nothing.
TEST(JobLockstep, SamplesInsideMpiWaitsAreNeitherWorkNorPaid) {
  FakeTime time;
  DelayAccounting delays(time.sleeper());
  ThreadDelay waiter, worker;
  delays.thread_started(waiter);
  delays.thread_started(worker);
  LocationTable table;
  const uint32_t line = table.add("halo.cpp:41", {{0x1000, 0x1100}});
  table.finish();
  RecentLocations recent;
  const SampleStep step{delays, &table.at(line), &table, &recent, {}, {}};
  static constexpr uint64_t kInLine[] = {0x1010, 0x5000};
  delays.begin_experiment(0.5, kP);
  delays.peer_wait_begin(waiter);
  delays.peer_wait_begin(waiter);  // nested (MPI_Allreduce inside the library's own call)
  causal_sample(step, worker, kInLine);
  EXPECT_EQ(causal_sample(step, waiter, kInLine), SampleOutcome::in_runtime_wait);
  EXPECT_TRUE(time.sleeps.empty());
  EXPECT_EQ(waiter.selected_samples.load(), 0u);
  delays.peer_wait_end(waiter);
  EXPECT_TRUE(DelayAccounting::in_peer_wait(waiter));
  delays.peer_wait_end(waiter);
  EXPECT_FALSE(DelayAccounting::in_peer_wait(waiter));
  EXPECT_EQ(delays.owed(waiter), 0u);  // credited on leaving the outermost
}

// The shared page: two processes that open one key see one count.
TEST(JobLockstep, TheRanksOfAHostShareOnePage) {
  const std::string key = "test-" + std::to_string(getpid());
  JobSegment parent(key);
  ASSERT_NE(parent.get(), nullptr) << parent.error();
  parent.get()->global_delay_ns.store(0);
  const pid_t child = fork();
  if (child == 0) {
    JobSegment mine(key);
    if (mine.get() == nullptr) _exit(2);
    mine.get()->global_delay_ns.fetch_add(12345);
    mine.get()->progress_started.store(1);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(parent.get()->global_delay_ns.load(), 12345u);
  EXPECT_EQ(parent.get()->progress_started.load(), 1u);
  EXPECT_EQ(parent.get()->attached.load(), 2u);
  parent.unlink();
  JobSegment fresh(key);  // a new job under the same name starts from zero
  ASSERT_NE(fresh.get(), nullptr);
  EXPECT_EQ(fresh.get()->global_delay_ns.load(), 0u);
  fresh.unlink();
}

// Automatic selection: one rank of the host leads, its announcement of a slot is read
// back whole by another process, for that slot only.
TEST(JobLockstep, TheLeadersAnnouncementReachesTheOtherRanks) {
  const std::string key = "test-announce-" + std::to_string(getpid());
  JobSegment leader(key);
  ASSERT_NE(leader.get(), nullptr) << leader.error();
  EXPECT_FALSE(announced(*leader.get(), 7).has_value());  // nothing yet
  EXPECT_TRUE(claim_leader(*leader.get()));
  const std::string name = "src/solver/very_long_directory_name/stencil_kernels.cpp:1234";
  announce_slot(*leader.get(), 7, name, 0.25);
  const pid_t child = fork();
  if (child == 0) {
    JobSegment mine(key);
    if (mine.get() == nullptr) _exit(2);
    if (claim_leader(*mine.get())) _exit(3);  // taken
    const auto a = announced(*mine.get(), 7);
    if (!a || a->location != name || a->speedup != 0.25) _exit(4);
    if (announced(*mine.get(), 8)) _exit(5);  // another slot's
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // Names of 8, 7 and 9 characters end where words do and do not; a name past the
  // limit is cut to it.
  for (const std::string& n :
       std::vector<std::string>{"abcdefgh", "a.cpp:7", "abcdefghi", std::string(600, 'x')}) {
    announce_slot(*leader.get(), 9, n, 0.5);
    const auto a = announced(*leader.get(), 9);
    ASSERT_TRUE(a.has_value());
    EXPECT_EQ(a->location, n.substr(0, kAnnouncedNameChars));
    EXPECT_EQ(a->speedup, 0.5);
  }
  leader.unlink();
}

}  // namespace
}  // namespace cprof::causal
