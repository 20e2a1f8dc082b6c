#include "sampler/runtime/process_identity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

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
  std::filesystem::create_directories(dir);
  ProcessIdentity id;
  id.executable = "/usr/bin/app";
  id.hostname = "node1";
  id.rank = 5;
  const std::string first = results_file_path(dir, id);
  EXPECT_EQ(std::filesystem::path(first).filename(),
            "app.node1." + std::to_string(getpid()) + ".rank5.cprof");
  std::ofstream(first) << "x";
  const std::string second = results_file_path(dir, id);
  EXPECT_NE(first, second);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cprof::sampler
