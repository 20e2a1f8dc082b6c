#include "sampler/runtime/process_identity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "format/writer.h"
#include "sampler/runtime/jit_map.h"

namespace cprof::sampler {
namespace {

TEST(ProcessIdentity, RankComesFromTheLaunchersVariables) {
  unsetenv("OMPI_COMM_WORLD_RANK");
  unsetenv("PMI_RANK");
  unsetenv("PMIX_RANK");
  unsetenv("SLURM_PROCID");
  EXPECT_EQ(rank_from_environment(), -1);
  setenv("SLURM_PROCID", "12", 1);
  EXPECT_EQ(rank_from_environment(), 12);
  setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  EXPECT_EQ(rank_from_environment(), 3);  // Open MPI's own variable wins
  setenv("OMPI_COMM_WORLD_RANK", "x", 1);
  EXPECT_EQ(rank_from_environment(), 12);
  unsetenv("OMPI_COMM_WORLD_RANK");
  unsetenv("SLURM_PROCID");
}

TEST(ProcessIdentity, FileNameHasHostPidRankAndNeverOverwrites) {
  const auto dir = std::filesystem::temp_directory_path() / ("ident-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ProcessIdentity id;
  id.executable = "/usr/bin/app";
  id.hostname = "node1";
  id.rank = 5;
  const std::string stem = results_file_stem(dir, id);
  EXPECT_EQ(std::filesystem::path(stem).filename(),
            "app.node1." + std::to_string(getpid()) + ".rank5");
  format::ResultsWriter first;
  ASSERT_EQ(first.open_unique(stem), "");
  EXPECT_EQ(first.path(), stem + ".cprof");
  format::ResultsWriter second;
  ASSERT_EQ(second.open_unique(stem), "");
  EXPECT_EQ(second.path(), stem + ".1.cprof");
  std::filesystem::remove_all(dir);
}

// Another user who can write the results directory plants links under the names the
// runtime will pick: a dangling one (the runtime would create its file at the target)
// and one to a file of the profiled program's user (it would be truncated).
TEST(ProcessIdentity, PlantedLinksAreNeverOpenedThrough) {
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / ("ident-links-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "victim");
  std::ofstream(dir / "victim" / "precious") << "keep me";
  ProcessIdentity id;
  id.executable = "/usr/bin/app";
  id.hostname = "vm";
  const std::string stem = results_file_stem(dir, id);
  fs::create_symlink(dir / "victim" / "created-here", stem + ".cprof");
  fs::create_symlink(dir / "victim" / "precious", stem + ".1.cprof");
  format::ResultsWriter writer;
  ASSERT_EQ(writer.open_unique(stem), "");
  EXPECT_EQ(writer.path(), stem + ".2.cprof");
  writer.close();
  EXPECT_FALSE(fs::exists(dir / "victim" / "created-here"));
  std::ifstream in(dir / "victim" / "precious");
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "keep me");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(writer.path())));

  // The JIT map copied beside the results: a link planted under its name is left alone.
  const std::string map = jit_map_path_for(writer.path());
  fs::create_symlink(dir / "victim" / "precious", map);
  { std::ofstream(dir / ("perf-map-source")) << "1000 10 f\n"; }
  EXPECT_FALSE(copy_jit_map_from((dir / "perf-map-source").string(), writer.path()));
  std::ifstream again(dir / "victim" / "precious");
  std::getline(again, text);
  EXPECT_EQ(text, "keep me");
  fs::remove_all(dir);
}

// The launchers of an MPI job's ranks share one directory; each sums up the files of its
// own rank, read from their names.
TEST(ProcessIdentity, RankOfAResultsFileFromItsName) {
  ProcessIdentity id{
      .hostname = "node.rank7.example", .executable = "/opt/app.rank3.bin", .rank = 12};
  const std::string stem = results_file_stem("/r", id);
  EXPECT_EQ(rank_of_results_file(stem + ".cprof"), 12);
  EXPECT_EQ(rank_of_results_file(results_file_stem("/r", id, "gpu") + ".1.cprof"), 12);
  id.rank = -1;  // no rank: the ".rank" in the host's and the executable's names do not count
  EXPECT_EQ(rank_of_results_file(results_file_stem("/r", id) + ".cprof"), -1);
  EXPECT_EQ(rank_of_results_file("app.host.12.rank.cprof"), -1);
  EXPECT_EQ(rank_of_results_file("/dir.rank4.d/app.host.12.cprof"), -1);
}

}  // namespace
}  // namespace cprof::sampler
