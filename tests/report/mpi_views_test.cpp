// MPI in the report: the calls where ranks wait named as such, an MPI launcher's own
// processes told apart from the ranks and from other processes, and the spread across
// ranks with the straggler the others wait for.
#include <gtest/gtest.h>

#include "report/profile/mpi_calls.h"
#include "report/render/render.h"
#include "tests/report/views_fixture.h"

namespace cprof::report {
namespace {

using testing::FakeSymbols;
using testing::ProcessWriter;
using testing::TempDir;

TEST(MpiCalls, WaitingCallsByNameInEveryBinding) {
  for (const char* name :
       {"MPI_Allreduce", "PMPI_Allreduce", "MPI_Waitall", "PMPI_Wait", "MPI_Recv", "MPI_Barrier",
        "MPI_Neighbor_alltoall", "mpi_allreduce_", "pmpi_waitall__", "MPI_ALLREDUCE",
        "MPI_Allreduce@@OMPI_1.0", "MPI_Finalize"}) {
    EXPECT_TRUE(is_mpi_wait_call(name)) << name;
    EXPECT_TRUE(is_mpi_function(name)) << name;
  }
  // Polling, starting a non-blocking call, or no MPI function at all.
  for (const char* name : {"MPI_Test", "MPI_Iprobe", "MPI_Isend", "MPI_Init", "MPI_Comm_rank",
                           "ompi_coll_base_allreduce_intra_ring", "MPIR_Allreduce_impl",
                           "mpi_allreduce", "MPI_", "compute"}) {
    EXPECT_FALSE(is_mpi_wait_call(name)) << name;
  }
  EXPECT_TRUE(is_mpi_function("MPI_Init"));
  EXPECT_TRUE(is_mpi_function("mpi_comm_rank_"));
  EXPECT_FALSE(is_mpi_function("MPIR_Init_thread"));
  EXPECT_FALSE(is_mpi_function("ompi_request_default_wait_all"));
}

TEST(MpiCalls, LaunchersByExecutable) {
  for (const char* exe : {"mpirun", "/usr/bin/orterun", "/usr/bin/orted", "prted",
                          "/opt/mpich/bin/hydra_pmi_proxy", "srun"}) {
    EXPECT_TRUE(is_mpi_launcher(exe)) << exe;
  }
  EXPECT_FALSE(is_mpi_launcher("/usr/bin/app"));
  EXPECT_FALSE(is_mpi_launcher("/usr/bin/mpirunner"));
}

// Four ranks of a bulk-synchronous step loop, 1 ms a sample: each rank's main thread
// computes (main > compute) and waits (main > reduce > MPI_Allreduce > ompi_internal); a
// progress thread of its own polls (no MPI call on its stack). Rank 2 computes
// `straggler_work` samples, the others 60, each waiting the difference to 100 and then
// some. mpirun (orterun) and a shell without a rank run beside them.
void write_job(const std::filesystem::path& dir, int straggler_work) {
  for (int rank = 0; rank < 4; ++rank) {
    ProcessWriter w(dir / ("halo.host." + std::to_string(200 + rank) + ".rank" +
                           std::to_string(rank) + ".cprof"),
                    200 + rank, rank);
    w.thread(1, "main");
    w.thread(2, "progress");
    const int work = rank == 2 ? straggler_work : 60;
    for (int i = 0; i < work; ++i) w.sample(1, {0x1010, 0x3011});
    for (int i = 0; i < 101 - work; ++i) w.sample(1, {0x4010, 0x5011, 0x6011, 0x3011});
    for (int i = 0; i < 100; ++i) w.sample(2, {0x7010});
  }
  ProcessWriter launcher(dir / "orterun.host.199.cprof", 199, -1, "cpu", "/usr/bin/orterun");
  launcher.thread(199, "orterun");
  launcher.sample(199, {0x7010});
  ProcessWriter shell(dir / "sh.host.198.cprof", 198, -1, "cpu", "/bin/sh");
  shell.thread(198, "sh");
  shell.sample(198, {0x7010});
}

Report job_report(const std::filesystem::path& dir, int straggler_work) {
  write_job(dir, straggler_work);
  FakeSymbols symbols;
  symbols.add(0x1000, 0x1100, {{.function = "compute", .file = "/src/halo.cpp", .line = 10}});
  symbols.add(0x3000, 0x3100, {{.function = "main", .file = "/src/halo.cpp", .line = 30}});
  symbols.add(0x4000, 0x4100, {{.function = "ompi_coll_base_allreduce", .file = "", .line = 0}});
  symbols.add(0x5000, 0x5100, {{.function = "MPI_Allreduce", .file = "", .line = 0}});
  symbols.add(0x6000, 0x6100, {{.function = "reduce", .file = "/src/halo.cpp", .line = 20}});
  symbols.add(0x7000, 0x7100, {{.function = "poll", .file = "", .line = 0}});
  return build_report(load_results(find_results_files(dir)), symbols, {.call_tree = true});
}

TEST(MpiViews, RanksWaitsLauncherAndStraggler) {
  TempDir dir;
  const auto r = job_report(dir.path(), 100);
  const auto& ranks = r.breakdown.ranks;
  ASSERT_EQ(ranks.size(), 6u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ranks[i].rank, i);
  EXPECT_EQ(ranks[4].rank, kLauncherRank);  // orterun, told apart from the others
  EXPECT_EQ(ranks[5].rank, kNoRank);        // the shell
  // The progress thread calls no MPI: only the main thread's time counts as the rank's.
  EXPECT_EQ(ranks[0].mpi_threads.samples, 101u);
  EXPECT_EQ(ranks[0].mpi_wait.samples, 41u);
  EXPECT_EQ(ranks[0].outside_mpi_wait_ns(), 60 * testing::kViewsMs);
  EXPECT_EQ(ranks[2].mpi_wait.samples, 1u);
  const RankSpread& s = r.breakdown.rank_spread;
  EXPECT_EQ(s.ranks, 4u);
  EXPECT_EQ(s.straggler, 2);
  EXPECT_NEAR(s.straggler_excess, 100.0 / 60.0 - 1, 1e-9);
  EXPECT_DOUBLE_EQ(s.peers_mean_wait_ns, 41.0 * testing::kViewsMs);
  EXPECT_DOUBLE_EQ(s.outside_wait_ns.max(), 100.0 * testing::kViewsMs);
  EXPECT_DOUBLE_EQ(s.outside_wait_ns.min(), 60.0 * testing::kViewsMs);
  ASSERT_EQ(s.wait_calls.size(), 1u);  // the program's call, not the library's inside it
  EXPECT_EQ(r.symbols.table.functions[s.wait_calls[0].first].name, "MPI_Allreduce");
  EXPECT_EQ(s.wait_calls[0].second.samples, 3u * 41u + 1u);

  const std::string text = render_text(r, {.by = RowKind::rank});
  EXPECT_NE(text.find("launcher"), std::string::npos) << text;
  EXPECT_NE(text.find("straggler: rank 2 works 67% more than the others' mean"), std::string::npos)
      << text;
  EXPECT_NE(text.find("waiting in MPI: MPI_Allreduce"), std::string::npos) << text;
  EXPECT_NE(text.find("MPI: 4 ranks; "), std::string::npos) << text;  // the header says it too
  const std::string json = render_json(r, {});
  EXPECT_NE(json.find("\"straggler\": 2"), std::string::npos);
  EXPECT_NE(json.find("\"mpi_wait_ns\": 41000000"), std::string::npos);
  const std::string html = render_html(r, {});
  EXPECT_NE(html.find("<ul id=\"rank-spread\">"), std::string::npos);
}

TEST(MpiViews, RanksOfEqualWorkHaveNoStraggler) {
  TempDir dir;
  const auto r = job_report(dir.path(), 63);  // 5% more: within what is no straggler
  EXPECT_EQ(r.breakdown.rank_spread.ranks, 4u);
  EXPECT_EQ(r.breakdown.rank_spread.straggler, -1);
  EXPECT_NE(render_text(r, {.by = RowKind::rank}).find("no straggler"), std::string::npos);
}

}  // namespace
}  // namespace cprof::report
