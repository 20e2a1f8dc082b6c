// --binary-scope and --source-scope patterns (causal/launcher/scope.h).
#include "causal/launcher/scope.h"

#include <gtest/gtest.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "causal/launcher/scope_miss.h"

namespace cprof::causal {
namespace {

TEST(Scope, ListsSplitOnCommasAcrossRepeatedOptions) {
  EXPECT_EQ(split_scope_list({"MAIN,%libfoo%", "", "a,,b"}),
            (std::vector<std::string>{"MAIN", "%libfoo%", "a", "b"}));
}

TEST(Scope, PercentIsCozsWildcard) {
  EXPECT_TRUE(scope_pattern_matches("%/src/%", "/home/u/app/src/main.cpp"));
  EXPECT_TRUE(scope_pattern_matches("*/src/*.cpp", "/home/u/app/src/main.cpp"));
  EXPECT_FALSE(scope_pattern_matches("%/src/%", "/home/u/app/include/x.h"));
}

TEST(Scope, BinaryScopeDefaultsToTheExecutable) {
  const BinaryScope def({});
  EXPECT_TRUE(def.includes_main());
  EXPECT_FALSE(def.includes_library("/usr/lib/libfoo.so.1"));
  const BinaryScope libs({"%libfoo%"});
  EXPECT_FALSE(libs.includes_main());
  EXPECT_TRUE(libs.includes_library("/usr/lib/libfoo.so.1"));
  EXPECT_FALSE(libs.includes_library("/usr/lib/libbar.so.1"));
  // A file-name pattern matches wherever the library lies.
  EXPECT_TRUE(BinaryScope({"libbar.so*"}).includes_library("/opt/x/libbar.so.2"));
}

// A pattern with a '/' names library files on disk (a program may load them later with
// dlopen): as real paths, directories and missing files left out; a library path spelled
// through a link is in scope.
TEST(Scope, APathPatternNamesTheFilesOnDisk) {
  char dir_template[] = "/tmp/cprof-scope-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  char real[PATH_MAX];
  ASSERT_NE(realpath(dir_template, real), nullptr);
  const std::string dir = real;
  for (const char* name : {"/a.so", "/b.so"}) std::ofstream(dir + name) << "x";
  ASSERT_EQ(mkdir((dir + "/c.so").c_str(), 0700), 0);
  ASSERT_EQ(symlink((dir + "/b.so").c_str(), (dir + "/link.so").c_str()), 0);
  const BinaryScope scope({"MAIN", dir + "/%.so", dir + "/missing.so", "libz.so*"});
  std::vector<std::string> files = scope.named_files();
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{dir + "/a.so", dir + "/b.so"}));
  EXPECT_TRUE(scope.includes_library(dir + "/link.so"));
  EXPECT_TRUE(BinaryScope({dir + "/link.so"}).includes_library(dir + "/b.so"));
  EXPECT_FALSE(BinaryScope({dir + "/a.so"}).includes_library(dir + "/b.so"));
  EXPECT_TRUE(BinaryScope({"libz.so*"}).named_files().empty());  // a name, not a path
  for (const char* name : {"/a.so", "/b.so", "/link.so"}) std::remove((dir + name).c_str());
  rmdir((dir + "/c.so").c_str());
  rmdir(dir.c_str());
}

TEST(Scope, RelativePathPatternsAreMadeAbsolute) {
  char cwd[PATH_MAX];
  ASSERT_NE(getcwd(cwd, sizeof cwd), nullptr);
  EXPECT_EQ(absolute_path_patterns({"MAIN", "%libfoo%", "./plugins/%.so", "lib/x.so", "/opt/x.so"}),
            (std::vector<std::string>{"MAIN", "%libfoo%", std::string(cwd) + "/plugins/%.so",
                                      std::string(cwd) + "/lib/x.so", "/opt/x.so"}));
}

TEST(Scope, DefaultSourceScopeLeavesOutSystemAndLibraryCode) {
  const SourceScope own({});
  EXPECT_TRUE(own.includes("/home/u/app/main.cpp"));
  EXPECT_TRUE(own.includes("main.cpp"));
  EXPECT_FALSE(own.includes("/usr/include/c++/12/bits/stl_vector.h"));
  EXPECT_FALSE(own.includes("/usr/lib/gcc/x86_64-linux-gnu/12/include/avxintrin.h"));
  EXPECT_FALSE(own.includes("../sysdeps/x86_64/start.S"));
  EXPECT_FALSE(own.includes(""));
  const SourceScope only_src({"%/src/%"});
  EXPECT_FALSE(only_src.is_default());
  EXPECT_TRUE(only_src.includes("/app/src/a.cpp"));
  EXPECT_FALSE(only_src.includes("/app/test/a.cpp"));
  // An explicit pattern may take system headers in.
  EXPECT_TRUE(SourceScope({"/usr/include/%"}).includes("/usr/include/stdio.h"));
}

// The hint for an automatic run with no experiment: only when a process said none of its
// samples had a frame in scope, naming the busiest module outside the binary scope.
TEST(ScopeMiss, NamesTheBusiestModuleOutsideTheScope) {
  SampleModules where;
  where.samples = 100;
  where.modules = {{"/opt/py/bin/python3.11", 90, true},
                   {"/opt/py/lib/libpython3.11.so.1.0", 8, false},
                   {"/usr/lib/libc.so.6", 2, false}};
  EXPECT_EQ(scope_miss_hint(where, BinaryScope({})), "");  // no process said so
  where.processes_without_scope_samples = 1;
  EXPECT_EQ(scope_miss_hint(where, BinaryScope({})),
            "no sample had a frame in the code it may select (--binary-scope MAIN); 8% of them "
            "ran in /opt/py/lib/libpython3.11.so.1.0: add --binary-scope "
            "'%libpython3.11.so.1.0%' to select code there (it needs debug information)");
  // A scope without MAIN whose samples ran in the executable points back at it.
  EXPECT_NE(scope_miss_hint(where, BinaryScope({"%libpython%"})).find("90% of them ran in "
                                                                      "/opt/py/bin/python3.11: "
                                                                      "add --binary-scope MAIN"),
            std::string::npos);
  // Every module in scope: the source scope left the code out.
  where.modules.resize(1);
  EXPECT_NE(scope_miss_hint(where, BinaryScope({})).find("and --source-scope"), std::string::npos);
  EXPECT_EQ(scope_miss_hint(SampleModules{}, BinaryScope({})), "");
}

// A run that experimented although nearly every sample ran outside the scope: a note
// names where they ran. Not when a fair share had a frame in scope, nor on few samples.
TEST(ScopeMiss, NotesExperimentsOnCodeThatHardlyRuns) {
  SampleModules where;
  where.samples = 1000;
  where.samples_in_scope = 2;
  where.modules = {{"/opt/app/lib/libwork.so", 990, false}, {"/opt/app/bin/app", 10, true}};
  EXPECT_EQ(scarce_scope_note(where, BinaryScope({})),
            "only 2 of 1000 samples had a frame in the code it may select (--binary-scope MAIN), "
            "so its experiments measure code that hardly runs; 99% of them ran in "
            "/opt/app/lib/libwork.so: add --binary-scope '%libwork.so%' to select code there (it "
            "needs debug information)");
  where.samples_in_scope = 10;  // 1%: enough to measure something
  EXPECT_EQ(scarce_scope_note(where, BinaryScope({})), "");
  where.samples_in_scope = 0;
  where.processes_without_scope_samples = 1;  // then the miss hint says it
  EXPECT_EQ(scarce_scope_note(where, BinaryScope({})), "");
  where.processes_without_scope_samples = 0;
  where.samples = 50;
  EXPECT_EQ(scarce_scope_note(where, BinaryScope({})), "");
}

}  // namespace
}  // namespace cprof::causal
