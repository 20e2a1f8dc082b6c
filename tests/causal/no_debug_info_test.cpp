// Folding the warnings of exec'd programs without debug information (a script's helpers).
#include "causal/launcher/no_debug_info.h"

#include <gtest/gtest.h>

namespace cprof::causal {
namespace {

std::string warning_for(const std::string& program) {
  return "no experiments in " + program + ": " + no_debug_info_error(program);
}

TEST(NoDebugInfo, TwoOrMoreProgramsFoldIntoOneLineInThePlaceOfTheFirst) {
  std::vector<std::string> w = {"something else", warning_for("/usr/bin/basename"),
                                "no experiments in /usr/bin/x: not loaded",
                                warning_for("/usr/bin/bash"), warning_for("/usr/bin/env")};
  group_no_debug_info_warnings(w);
  EXPECT_EQ(w, (std::vector<std::string>{
                   "something else",
                   "no experiments in 3 programs it ran that have no debug information (rebuild "
                   "one with -g, or install its debug symbols, to experiment in it): "
                   "/usr/bin/basename, /usr/bin/bash, /usr/bin/env",
                   "no experiments in /usr/bin/x: not loaded"}));
}

// A system file is not rebuilt: its debug information comes in a package.
TEST(NoDebugInfo, ASystemFileIsPointedAtItsDebugSymbols) {
  EXPECT_EQ(no_debug_info_error("/usr/bin/xz"),
            "/usr/bin/xz has no debug information: install its debug symbols (Debian: the "
            "package's -dbgsym or -dbg) or rebuild it with -g");
  EXPECT_EQ(no_debug_info_error("/lib/x86_64-linux-gnu/liblzma.so.5").find("install its debug"),
            std::string("/lib/x86_64-linux-gnu/liblzma.so.5 has no debug information: ").size());
  EXPECT_EQ(no_debug_info_error("/home/me/app"),
            "/home/me/app has no debug information: rebuild it with -g (e.g. -O2 -g)");
}

TEST(NoDebugInfo, OneProgramKeepsItsOwnLine) {
  std::vector<std::string> w = {warning_for("/opt/app")};
  group_no_debug_info_warnings(w);
  EXPECT_EQ(w, std::vector<std::string>{warning_for("/opt/app")});
  // The message of one program naming another is not this warning.
  std::vector<std::string> other = {"no experiments in /a: " + no_debug_info_error("/b"),
                                    "no experiments in /c: " + no_debug_info_error("/d")};
  const auto before = other;
  group_no_debug_info_warnings(other);
  EXPECT_EQ(other, before);
}

}  // namespace
}  // namespace cprof::causal
