// Every option error of the tools is one line in our words (common/cli.h), also where no
// validator sees the value: CLI11's "Could not convert: --seed = abc", "--exe: 1 required
// TEXT missing" and "command is required".
#include "common/cli.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cprof::cli {
namespace {

// The one line `args` give on a small tool with each kind of option ("" when they parse).
std::string error_of(std::vector<std::string> args) {
  CLI::App app{"test", "tool"};
  uint64_t seed = 0;
  std::vector<int64_t> pids;
  std::string style = "GNU";
  double frequency = 500;
  bool quiet = false;
  std::vector<std::string> command;
  app.add_option("--seed-unchecked", seed, "a number CLI11 converts");
  app.add_option("--seed", seed, "seed")->check(whole_number_in(0, UINT64_MAX, "a seed"));
  app.add_option("--pid", pids, "pids")
      ->delimiter(',')
      ->check(whole_number_in(0, INT64_MAX, "process ids"));
  app.add_option("--style", style, "style")->check(one_of({"GNU", "LLVM"}));
  app.add_option("-f,--frequency", frequency, "rate")
      ->check(number_in(1, 100000, "samples per second"));
  app.add_flag("-q,--quiet", quiet, "quiet");
  app.add_option("command", command, "-- PROGRAM [ARGS...]")->required();
  args.insert(args.begin(), "tool");
  std::vector<char*> argv;
  argv.reserve(args.size());
  for (auto& a : args) argv.push_back(a.data());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return usage_error(app, e);
  }
  return "";
}

TEST(CliErrors, ValuesThatDoNotConvertNameTheOptionAndValue) {
  EXPECT_EQ(error_of({"--seed-unchecked", "abc", "--", "prog"}),
            "--seed-unchecked: 'abc' is not a valid value");
  EXPECT_EQ(error_of({"--seed", "abc", "--", "prog"}),
            "--seed: 'abc' is not a whole number; give a seed, 0 to 18446744073709551615");
  EXPECT_EQ(error_of({"--pid", "1,y", "--", "prog"}),
            "--pid: 'y' is not a whole number; give process ids, 0 to 9223372036854775807");
  EXPECT_EQ(error_of({"--pid", "12,34", "--", "prog"}), "");
}

TEST(CliErrors, MissingValueFlagValueAndMissingProgram) {
  EXPECT_EQ(error_of({"--style"}), "--style: no value given");
  EXPECT_EQ(error_of({"--quiet=abc", "--", "prog"}), "--quiet: 'abc' is not a valid value");
  EXPECT_EQ(error_of({"-f", "100"}),
            "no program to run: give -- PROGRAM [ARGS...] after the options");
}

TEST(CliErrors, NearMissesAreSuggested) {
  EXPECT_EQ(error_of({"--style", "gnu", "--", "prog"}),
            "--style: 'gnu' is not one of GNU, LLVM (did you mean GNU?)");
  EXPECT_EQ(error_of({"--fequency", "5", "--", "prog"}),
            "unknown option --fequency (did you mean --frequency?)");
  EXPECT_EQ(error_of({"-f", "abc", "--", "prog"}),
            "--frequency: 'abc' is not a number; give samples per second, 1 to 100000");
}

}  // namespace
}  // namespace cprof::cli
