// End-to-end under a real mpirun (Debian's Open MPI): a halo exchange with an
// MPI_Allreduce per step and one rank given twice the work (programs/halo.cpp), sampled
// with the launcher inside mpirun (one launcher per rank) and around it. Either way: one
// file per rank with the rank in its name, mpirun's own processes told apart from the
// ranks, and a report whose rank view shows the straggler and its peers waiting in MPI.

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/support/results_loader.h"

namespace cprof::testing {
namespace {

const std::string kSampleRun = SAMPLE_RUN;
const std::string kCausalRun = CAUSAL_RUN;
const std::string kHaloSource = HALO_SOURCE;
const std::string kReport = CAUSAL_REPORT;
const std::string kHalo = HALO_PROGRAM;
const std::string kMpirun = MPIRUN;
const std::string kHaloFortran = HALO_FORTRAN;
const std::string kHaloFortranSource = HALO_FORTRAN_SOURCE;

#define SKIP_WITHOUT_MPI() \
  if (kHalo.empty())       \
  GTEST_SKIP() << "no MPI (mpicxx, mpirun) was found when the suite was configured"

// Four ranks on however many cores; as root (CI) Open MPI wants both variables; no
// single-copy (CMA) transfers, which a container without ptrace rights refuses.
const std::string kMpiEnv = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ";
std::string mpirun(int ranks) {
  return kMpirun + " -np " + std::to_string(ranks) +
         " --oversubscribe --mca btl_vader_single_copy_mechanism none ";
}

// 120 steps of 1.5 M cell updates; rank 2 does twice as many.
const std::string kHaloArgs = " 120 1500000 2 100";

std::set<std::string> files_in(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    out.insert(e.path().filename().string());
  }
  return out;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The report's JSON checked by Python: ranks 0-3 present, rank 2 the straggler, MPI waits
// named, and `extra` (more assertions on `d`, the document).
void expect_job_report(const std::string& dir, const std::string& extra = "") {
  std::string out;
  ASSERT_EQ(run_command(kReport + " -q --format json -o " + dir + "/report.json " + dir, out), 0)
      << out;
  const std::string check = dir + "/check.py";
  {
    std::FILE* f = std::fopen(check.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(("import json, sys\n"
                "d = json.load(open(sys.argv[1]))\n"
                "p = d['profile']\n"
                "ranks = {r['rank']: r for r in p['by_rank']}\n"
                "assert all(k in ranks for k in range(4)), sorted(ranks)\n"
                "s = p['rank_spread']\n"
                "assert s['ranks'] == 4, s\n"
                "assert s['straggler'] == 2, s\n"
                "names = [c['function'] for c in s['mpi_wait_calls']]\n"
                "assert any(n.endswith(('MPI_Allreduce', 'MPI_Waitall')) for n in names), names\n"
                "assert sum(ranks[k]['mpi_wait_ns'] for k in range(4)) > 0, ranks\n" +
                extra + "print('ok')\n")
                   .c_str(),
               f);
    std::fclose(f);
  }
  ASSERT_EQ(run_command("python3 " + check + " " + dir + "/report.json", out), 0) << out;
  EXPECT_NE(out.find("ok"), std::string::npos) << out;
}

TEST(MpiJob, SampledWithALauncherPerRank) {
  SKIP_WITHOUT_MPI();
  const std::string dir = fresh_directory("mpi-inside");
  std::string out;
  ASSERT_EQ(run_command(
                kMpiEnv + mpirun(4) + kSampleRun + " -o " + dir + " -- " + kHalo + kHaloArgs, out),
            0)
      << out;
  EXPECT_NE(out.find("halo: 4 ranks, 120 steps"), std::string::npos) << out;  // its output
  EXPECT_EQ(out.find("SIG"), std::string::npos) << out;                       // no rank died
  // One file per rank, the rank in its name; nothing else.
  const auto files = files_in(dir);
  ASSERT_EQ(files.size(), 4u) << out;
  for (int rank = 0; rank < 4; ++rank) {
    const std::regex name("mpi_halo\\..*\\.rank" + std::to_string(rank) + "\\.cprof");
    EXPECT_EQ(std::count_if(files.begin(), files.end(),
                            [&](const std::string& f) { return std::regex_match(f, name); }),
              1)
        << rank;
    // Each rank's launcher sums up its own rank, not the whole directory four times.
    EXPECT_EQ(count_of(out, "sample-run: rank " + std::to_string(rank) + ": "), 1u) << out;
  }
  EXPECT_EQ(count_of(out, "view with: causal-report"), 1u) << out;
  expect_job_report(dir);
}

TEST(MpiJob, SampledAroundMpirunWithItsProcessesApart) {
  SKIP_WITHOUT_MPI();
  const std::string dir = fresh_directory("mpi-around");
  std::string out;
  ASSERT_EQ(run_command(
                kMpiEnv + kSampleRun + " -o " + dir + " -- " + mpirun(4) + kHalo + kHaloArgs, out),
            0)
      << out;
  EXPECT_EQ(out.find("SIG"), std::string::npos) << out;
  size_t ranked = 0, others = 0;
  for (const auto& f : files_in(dir)) (f.find(".rank") != std::string::npos ? ranked : others)++;
  EXPECT_EQ(ranked, 4u);
  EXPECT_GE(others, 1u);  // mpirun itself (and its forks before they exec a rank)
  // mpirun's processes: a row of their own, not among the ranks nor "none".
  expect_job_report(dir,
                    "assert -2 in ranks, sorted(ranks)\n"
                    "assert -1 not in ranks, sorted(ranks)\n");
  ASSERT_EQ(run_command(kReport + " -q --by rank " + dir, out), 0) << out;
  EXPECT_NE(out.find("launcher"), std::string::npos) << out;
  EXPECT_NE(out.find("straggler: rank 2"), std::string::npos) << out;
}

// The wall clock: where the peers' time goes while rank 2 computes (MPI waits, not work).
// On the CPU clock a waiting rank's time is what its polling got of a CPU (little, with
// four ranks on two cores); on the wall clock each peer waits longer than the straggler.
//
// The straggler has four times the cells here, not twice: on the wall clock a rank's work
// is also the time it waited for one of the two cores, and a peer that shared a core with
// the straggler came out as the straggler once in a clean-clone CI run (rank 0: 2.96 s of
// work, 27% above the mean).
TEST(MpiJob, WallClockShowsThePeersWaitingInMpi) {
  SKIP_WITHOUT_MPI();
  const std::string dir = fresh_directory("mpi-wall");
  std::string out;
  ASSERT_EQ(run_command(kMpiEnv + mpirun(4) + kSampleRun + " --clock wall -o " + dir + " -- " +
                            kHalo + " 120 1500000 2 300",
                        out),
            0)
      << out;
  expect_job_report(dir,
                    "assert d['summary']['profile_clock'] == 'wall', d['summary']\n"
                    "assert any(n.endswith('MPI_Allreduce') for n in names), names\n"
                    "assert any(n.endswith('MPI_Waitall') for n in names), names\n"
                    "peers = [ranks[k]['mpi_wait_ns'] for k in (0, 1, 3)]\n"
                    "assert min(peers) > ranks[2]['mpi_wait_ns'], (peers, ranks[2])\n");
}

// "FILE:N" of the line of `source` holding `marker`; halo.cpp's by default.
std::string halo_line(const std::string& marker, const std::string& source = kHaloSource) {
  std::ifstream in(source);
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    if (text.find(marker) != std::string::npos)
      return std::filesystem::path(source).filename().string() + ":" + std::to_string(n);
  }
  ADD_FAILURE() << marker << " not in " << source;
  return "";
}

// `columns` (SQL over a and b) of the pairs of experiments, a of rank 0 and b of rank 1,
// that start within 20 ms of each other, from the report's SQLite file `db`.
std::string paired_experiments(const std::string& db, const std::string& columns) {
  std::string out;
  EXPECT_EQ(run_command("sqlite3 " + db + " \"select " + columns +
                            " from experiments a join processes pa on pa.id = a.process_id "
                            "join experiments b join processes pb on pb.id = b.process_id "
                            "where pa.rank = 0 and pb.rank = 1 and "
                            "abs(a.time_ns - b.time_ns) < 20000000\"",
                        out),
            0)
      << out;
  return out;
}

// The experiments of a causal run of the halo job in DIR (two ranks): every rank-0
// experiment pairs with a rank-1 one that starts within 20 ms, with the same speedup and
// (one count, read at each window's ends a moment apart) the same delay; the MPI waits
// seen in both ranks; a prediction for the work line.
void expect_lockstep(const std::string& dir) {
  std::string out;
  const std::string db = dir + "/r.db";
  ASSERT_EQ(run_command(kReport + " -q --format sqlite -o " + db + " " + dir, out), 0) << out;
  out = paired_experiments(db,
                           "count(*), sum(a.speedup = b.speedup), sum(abs(a.delay_ns - b.delay_ns) "
                           "<= 2000000 + a.delay_ns / 10), sum(a.delay_ns > 0)");
  int pairs = 0, same_speedup = 0, same_delay = 0, delayed = 0;
  ASSERT_EQ(std::sscanf(out.c_str(), "%d|%d|%d|%d", &pairs, &same_speedup, &same_delay, &delayed),
            4)
      << out;
  EXPECT_GE(pairs, 8) << out;
  EXPECT_EQ(same_speedup, pairs) << out;
  // One count, so the same delay, but for what falls between the two windows' edges: a
  // step's worth when a rank is descheduled at one (1 pair of 171 once, in a loaded CI).
  EXPECT_GE(same_delay, pairs - pairs / 30) << out;
  EXPECT_GT(delayed, 0) << out;
  ASSERT_EQ(run_command("sqlite3 " + db +
                            " \"select count(distinct process_id) from messages where "
                            "text like 'MPI waits seen: %'\"",
                        out),
            0);
  EXPECT_EQ(std::atoi(out.c_str()), 2) << out;
  ASSERT_EQ(run_command(kReport + " -q " + dir, out), 0) << out;
  EXPECT_NE(out.find(halo_line("the work line") + " "), std::string::npos) << out;
}

// causal-run as each rank's launcher: the ranks run the same experiments at the same
// time (slots on the realtime clock, one seed from the job's id), with one delay count
// (the host's shared page), waits in MPI seen as such, and the report makes one
// prediction of them.
TEST(MpiJob, CausalExperimentsRunInLockstepAcrossRanks) {
  SKIP_WITHOUT_MPI();
  const std::string dir = fresh_directory("mpi-causal");
  std::string out;
  ASSERT_EQ(run_command(kMpiEnv + mpirun(2) + kCausalRun + " --line " + halo_line("the work line") +
                            " --speedups 0,50 -o " + dir + " -- " + kHalo + " 400 1500000 1 100",
                        out),
            0)
      << out;
  EXPECT_EQ(count_of(out, "causal-run: rank 0: "), 1u) << out;
  EXPECT_EQ(count_of(out, "causal-run: rank 1: "), 1u) << out;
  // Only rank 0 visits the progress point; rank 1's launcher does not say it saw none.
  EXPECT_EQ(out.find("no experiment saw a progress point"), std::string::npos) << out;
  expect_lockstep(dir);
}

// causal-run around mpirun: --line names code of the ranks' program (found in mpirun's
// command line), which the ranks exec; the same lockstep.
TEST(MpiJob, CausalRunAroundMpirunResolvesTheRanksProgram) {
  SKIP_WITHOUT_MPI();
  const std::string dir = fresh_directory("mpi-causal-around");
  std::string out;
  ASSERT_EQ(run_command(kMpiEnv + kCausalRun + " --line " + halo_line("the work line") +
                            " --speedups 0,50 -o " + dir + " -- " + mpirun(2) + kHalo +
                            " 400 1500000 1 100",
                        out),
            0)
      << out;
  EXPECT_EQ(out.find("has no debug information"), std::string::npos) << out;  // not mpirun's
  expect_lockstep(dir);
}

// Automatic selection under MPI: the host's first rank leads, drawing each slot's location
// from its samples and announcing it; the other runs the same location at the same
// speedup. Their experiments pair up as with --line, location for location.
TEST(MpiJob, AutomaticExperimentsRunInLockstepToo) {
  SKIP_WITHOUT_MPI();
  const std::string dir = fresh_directory("mpi-causal-auto");
  std::string out;
  ASSERT_EQ(run_command(kMpiEnv + mpirun(2) + kCausalRun + " --speedups 0,50 -o " + dir + " -- " +
                            kHalo + " 400 1500000 1 100",
                        out),
            0)
      << out;
  EXPECT_EQ(out.find("each rank experiments on its own"), std::string::npos) << out;
  const std::string db = dir + "/r.db";
  ASSERT_EQ(run_command(kReport + " -q --format sqlite -o " + db + " " + dir, out), 0) << out;
  out = paired_experiments(db,
                           "count(*), sum(a.location = b.location), sum(a.speedup = b.speedup), "
                           "sum(a.location = '" +
                               halo_line("the work line") + "')");
  int pairs = 0, same_location = 0, same_speedup = 0, work_line = 0;
  ASSERT_EQ(
      std::sscanf(out.c_str(), "%d|%d|%d|%d", &pairs, &same_location, &same_speedup, &work_line), 4)
      << out;
  EXPECT_GE(pairs, 8) << out;
  // A follower that finds no announcement within 20 ms of the slot's start sits it out (1
  // pair of 174 once, in a loaded CI); a lockstep that does not hold misses far more.
  EXPECT_GE(same_location, pairs - pairs / 30) << out;
  EXPECT_GE(same_speedup, pairs - pairs / 30) << out;
  // Drawn from the samples, of which the work line holds nearly all (the side line a few).
  EXPECT_GT(work_line, pairs / 2) << out;
}

// Per rank, what a `causal-run --line LINE --rank 0` job on the halo program left: its
// experiments, those named "LINE (rank 0)", those that selected samples, and the sped-up
// ones that recorded delays. `env` goes before mpirun.
struct RankExperiments {
  int rank = -1, experiments = 0, named = 0, selected = 0, delayed = 0;
};
std::vector<RankExperiments> run_rank_zero_only(const std::string& name, const std::string& env) {
  const std::string dir = fresh_directory(name);
  const std::string line = halo_line("the work line");
  std::string out;
  EXPECT_EQ(
      run_command(env + kMpiEnv + mpirun(2) + kCausalRun + " --line " + line +
                      " --rank 0 --speedups 0,50 -o " + dir + " -- " + kHalo + " 400 1500000 1 100",
                  out),
      0)
      << out;
  const std::string db = dir + "/r.db";
  EXPECT_EQ(run_command(kReport + " -q --format sqlite -o " + db + " " + dir, out), 0) << out;
  EXPECT_EQ(run_command("sqlite3 " + db + " \"select pa.rank, count(*), sum(a.location = '" + line +
                            " (rank 0)'), sum(a.selected_samples > 0), sum(a.speedup > 0 and "
                            "a.delay_ns > 0) from experiments a join processes pa on pa.id = "
                            "a.process_id group by pa.rank order by pa.rank\"",
                        out),
            0)
      << out;
  std::vector<RankExperiments> ranks(2);
  EXPECT_EQ(std::sscanf(out.c_str(), "%d|%d|%d|%d|%d\n%d|%d|%d|%d|%d", &ranks[0].rank,
                        &ranks[0].experiments, &ranks[0].named, &ranks[0].selected,
                        &ranks[0].delayed, &ranks[1].rank, &ranks[1].experiments, &ranks[1].named,
                        &ranks[1].selected, &ranks[1].delayed),
            10)
      << out;
  return ranks;
}

// --rank: the line sped up in one rank only. Both ranks run the experiments, named
// "LINE (rank 0)"; only rank 0's samples of the line count (its experiments select
// samples, rank 1's none), and rank 1 pays the delays they insert (the shared count).
TEST(MpiJob, ALineSpedUpInOneRankOnly) {
  SKIP_WITHOUT_MPI();
  const auto ranks = run_rank_zero_only("mpi-causal-rank", "");
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(ranks[r].rank, r);
    EXPECT_GE(ranks[r].experiments, 8);
    EXPECT_EQ(ranks[r].named, ranks[r].experiments);
    EXPECT_GT(ranks[r].delayed, 0);  // the delays rank 0's samples inserted, in both
  }
  EXPECT_GT(ranks[0].selected, 0);
  EXPECT_EQ(ranks[1].selected, 0);
}

// Delays across hosts: each rank as if on a host of its own (a page each), so rank 0's
// delays reach rank 1 only through the exchange at the halo's MPI_Allreduce. Without it
// rank 1's sped-up experiments recorded no delay at all.
TEST(MpiJob, DelaysReachRanksOnOtherHostsAtCollectives) {
  SKIP_WITHOUT_MPI();
  const auto ranks = run_rank_zero_only("mpi-causal-hosts", "CPROF_CAUSAL_HOST_PER_RANK=1 ");
  ASSERT_EQ(ranks[1].rank, 1);
  EXPECT_GE(ranks[1].experiments, 8);
  EXPECT_EQ(ranks[1].selected, 0);
  EXPECT_GT(ranks[0].selected, 0);
  EXPECT_GT(ranks[0].delayed, 0);
  // Rank 1's sped-up experiments are rank 0's: nearly all of them recorded its delays.
  EXPECT_GE(ranks[1].delayed, ranks[0].delayed * 3 / 4);
}

// A rank past the job's end would leave every rank sitting out: refused before the program
// runs, in one line (rank 0's), not once per rank.
TEST(MpiJob, ARankPastTheJobIsRefused) {
  SKIP_WITHOUT_MPI();
  const std::string dir = fresh_directory("mpi-causal-rank-past");
  std::string out;
  EXPECT_NE(run_command(kMpiEnv + mpirun(2) + kCausalRun + " --line " +
                            halo_line("the work line") + " --rank 2 -o " + dir + " -- " + kHalo +
                            " 20 1000 1 100",
                        out),
            0);
  const std::string said = "causal-run: --rank 2: this job has 2 ranks (0 to 1)";
  const size_t at = out.find(said);
  ASSERT_NE(at, std::string::npos) << out;
  EXPECT_EQ(out.find(said, at + 1), std::string::npos) << out;
  EXPECT_EQ(out.find("halo: 2 ranks"), std::string::npos) << out;  // the program never ran
}

// Fortran's MPI calls enter the library past the C names (Open MPI's mpi_allreduce_ calls
// PMPI_Allreduce): the wrappers catch them under their Fortran names, `use mpi`'s
// mpi_allreduce_ and `use mpi_f08`'s barrier through ompi_barrier_f. Two waits a step in
// each rank, where the C wrappers alone saw none.
TEST(MpiJob, FortranCallsWaitLikeCOnes) {
  SKIP_WITHOUT_MPI();
  if (kHaloFortran.empty())
    GTEST_SKIP() << "no mpifort (libopenmpi-dev, gfortran) when the suite was configured";
  const std::string dir = fresh_directory("mpi-fortran");
  std::string out;
  constexpr int kSteps = 60;
  ASSERT_EQ(
      run_command(kMpiEnv + mpirun(2) + kCausalRun + " --line " +
                      halo_line("the work line", kHaloFortranSource) + " --progress " +
                      halo_line("the step line", kHaloFortranSource) + " --speedups 0,50 -o " +
                      dir + " -- " + kHaloFortran + " " + std::to_string(kSteps) + " 300000",
                  out),
      0)
      << out;
  EXPECT_NE(out.find("halo_f: 60 steps"), std::string::npos) << out;  // its output unchanged
  const std::string db = dir + "/r.db";
  ASSERT_EQ(run_command(kReport + " -q --format sqlite -o " + db + " " + dir, out), 0) << out;
  ASSERT_EQ(run_command("sqlite3 " + db +
                            " \"select text from messages where text like 'MPI waits seen: %'\"",
                        out),
            0);
  const std::string line = "MPI waits seen: " + std::to_string(2 * kSteps) + " ";
  EXPECT_EQ(count_of(out, line), 2u) << out;
}

}  // namespace
}  // namespace cprof::testing
