// Naming the package that installed a library, from dpkg's lists (report/symbols/
// debug_package.h), on a directory of lists written here.
#include "report/symbols/debug_package.h"

#include <gtest/gtest.h>

#include "tests/report/results_fixture.h"
#include "tests/report/tool_shell.h"

namespace cprof::report {
namespace {

using testing::TempDir;
using testing::write_file;

TEST(DebugPackage, EitherSpellingOfAMergedUsrPathIsFound) {
  TempDir dpkg;
  write_file(dpkg.path() / "zlib1g:amd64.list",
             "/.\n/lib\n/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu/libz.so.1.2.13\n");
  write_file(dpkg.path() / "libbz2-1.0:amd64.list", "/usr/lib/x86_64-linux-gnu/libbz2.so.1.0.4\n");
  write_file(dpkg.path() / "coreutils.list", "/bin/ls\n");
  write_file(dpkg.path() / "coreutils.md5sums", "0123 usr/lib/x86_64-linux-gnu/libmissing.so\n");
  const auto owners = owning_packages(
      {"/usr/lib/x86_64-linux-gnu/libz.so.1.2.13", "/lib/x86_64-linux-gnu/libbz2.so.1.0.4",
       "/usr/bin/ls", "/usr/lib/x86_64-linux-gnu/libmissing.so", "/opt/app/lib.so"},
      dpkg.path());
  EXPECT_EQ(owners.at("/usr/lib/x86_64-linux-gnu/libz.so.1.2.13"), "zlib1g");  // no ":amd64"
  EXPECT_EQ(owners.at("/lib/x86_64-linux-gnu/libbz2.so.1.0.4"), "libbz2-1.0");
  EXPECT_EQ(owners.at("/usr/bin/ls"), "coreutils");
  EXPECT_EQ(owners.count("/usr/lib/x86_64-linux-gnu/libmissing.so"), 0u);  // only .list files
  EXPECT_EQ(owners.count("/opt/app/lib.so"), 0u);
  EXPECT_TRUE(owning_packages({"/lib/libz.so"}, dpkg.path() / "absent").empty());
}

TEST(DebugPackage, DbgsymExceptWhereDebianStillShipsDbg) {
  EXPECT_EQ(debug_package_of("zlib1g"), "zlib1g-dbgsym");
  EXPECT_EQ(debug_package_of("libc6"), "libc6-dbg");
}

}  // namespace
}  // namespace cprof::report
