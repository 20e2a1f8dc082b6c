// Locations resolved for exec'd programs, shared by one run's processes
// (causal/runtime/locations_cache.h).
#include "causal/runtime/locations_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cprof::causal {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    char t[] = "/tmp/cprof-locations-cache-test-XXXXXX";
    path = ::mkdtemp(t);
  }
  ~TempDir() { fs::remove_all(path); }
};

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

std::string read(const fs::path& p) {
  std::stringstream s;
  s << std::ifstream(p).rdbuf();
  return s.str();
}

TEST(LocationsCache, AStoredEntryIsFoundByTheNextProcessOfTheSameProgram) {
  TempDir dir;
  const fs::path program = dir.path / "program";
  write(program, "an executable");
  const fs::path resolved = dir.path / "resolved.tmp";
  write(resolved, "main.cpp:3\t10-20\n");
  EXPECT_FALSE(LocationsCache(dir.path, program).locations().has_value());
  ASSERT_TRUE(LocationsCache(dir.path, program).store_locations(resolved));
  EXPECT_FALSE(fs::exists(resolved));  // moved, not copied
  const auto found = LocationsCache(dir.path, program).locations();
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(read(*found), "main.cpp:3\t10-20\n");
  EXPECT_FALSE(LocationsCache(dir.path, program).error().has_value());
}

TEST(LocationsCache, ErrorsAreCachedAndARebuiltProgramMisses) {
  TempDir dir;
  const fs::path program = dir.path / "tool";
  write(program, "v1");
  LocationsCache(dir.path, program).store_error("tool has no debug information");
  EXPECT_EQ(LocationsCache(dir.path, program).error(), "tool has no debug information");
  EXPECT_FALSE(LocationsCache(dir.path, program).locations().has_value());
  write(program, "version two");  // another size (and time): another key
  EXPECT_FALSE(LocationsCache(dir.path, program).error().has_value());
}

TEST(LocationsCache, NoDirectoryOrNoProgramMeansNoCache) {
  TempDir dir;
  const fs::path resolved = dir.path / "resolved.tmp";
  write(resolved, "x\n");
  EXPECT_FALSE(LocationsCache("", "/bin/sh").store_locations(resolved));
  EXPECT_FALSE(LocationsCache(dir.path, dir.path / "missing").store_locations(resolved));
  EXPECT_TRUE(fs::exists(resolved));
  EXPECT_FALSE(LocationsCache("", "/bin/sh").locations().has_value());
}

TEST(LocationsCache, APairLocationIsKeptPerSeedAndTheFirstStoredStays) {
  TempDir dir;
  const fs::path program = dir.path / "program";
  write(program, "an executable");
  const LocationsCache cache(dir.path, program);
  EXPECT_FALSE(cache.pair_location(4).has_value());
  cache.store_pair_location(4, "main.cpp:12");
  cache.store_pair_location(4, "main.cpp:99");  // a forked child's later pick: ignored
  cache.store_pair_location(5, "hot_loop");
  EXPECT_EQ(LocationsCache(dir.path, program).pair_location(4), "main.cpp:12");
  EXPECT_EQ(LocationsCache(dir.path, program).pair_location(5), "hot_loop");
  EXPECT_FALSE(LocationsCache(dir.path, program).pair_location(6).has_value());
  EXPECT_FALSE(LocationsCache("", program).pair_location(4).has_value());  // no cache
}

}  // namespace
}  // namespace cprof::causal
