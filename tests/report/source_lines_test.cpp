// Where causal-report --source finds a file's text: at its recorded path, under a
// --source-dir DIR by the path's last components, or by an OLD=NEW prefix substitution.
#include "report/profile/source_lines.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace cprof::report {
namespace {

namespace fs = std::filesystem;

class SourceText : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cprof-source-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "checkout/src");
    std::ofstream(root_ / "checkout/src/a.c") << "int main() { return 0; }\n";
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(SourceText, TheRecordedPathFirst) {
  std::vector<std::string> tried;
  const std::string here = (root_ / "checkout/src/a.c").string();
  EXPECT_EQ(find_source_text(here, {"/nowhere"}, tried), here);
  EXPECT_EQ(tried.size(), 1u);
}

TEST_F(SourceText, ABuildMadeElsewhereByPrefix) {
  std::vector<std::string> tried;
  const std::string found = find_source_text(
      "/build/tree/src/a.c", {"/build/tree=" + (root_ / "checkout").string()}, tried);
  EXPECT_EQ(found, (root_ / "checkout/src/a.c").string());
}

TEST_F(SourceText, ADirectorySearchedByTheLastComponents) {
  std::vector<std::string> tried;
  // /build/tree/src/a.c: <dir>/build/tree/src/a.c, <dir>/tree/src/a.c, <dir>/src/a.c (found).
  const std::string found =
      find_source_text("/build/tree/src/a.c", {(root_ / "checkout").string()}, tried);
  EXPECT_EQ(found, (root_ / "checkout/src/a.c").string());
  EXPECT_EQ(tried.size(), 4u);
}

TEST_F(SourceText, NothingFoundSaysWhereItLooked) {
  std::vector<std::string> tried;
  EXPECT_EQ(
      find_source_text("/build/tree/src/b.c", {"/old=/new", (root_ / "checkout").string()}, tried),
      "");
  // The path itself; "/old=" does not apply to it; then the directory's four candidates.
  ASSERT_EQ(tried.size(), 5u);
  EXPECT_EQ(tried[0], "/build/tree/src/b.c");
  EXPECT_EQ(tried[4], (root_ / "checkout/b.c").string());
}

}  // namespace
}  // namespace cprof::report
