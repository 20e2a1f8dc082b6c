// The sampling runtime's settings go from a launcher to the runtime through the
// environment: what environment_of writes, config_from_environment reads back.
#include "sampler/runtime/config.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "sampler/engines/engine.h"

namespace cprof::sampler {
namespace {

// Sets the variables for the test's life and clears them after.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const std::vector<std::pair<std::string, std::string>>& vars)
      : vars_(vars) {
    for (const auto& [name, value] : vars_) setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    for (const auto& [name, value] : vars_) unsetenv(name.c_str());
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::vector<std::pair<std::string, std::string>> vars_;
};

TEST(RuntimeConfigEnvironment, WhatALauncherWritesTheRuntimeReadsBack) {
  RuntimeConfig written;
  written.output_dir = "/tmp/some results";
  written.frequency_hz = 997.5;
  written.backend = "timer";
  written.wall_clock = true;
  written.unwinder = "fp";
  written.max_depth = 64;
  written.events = {"page-faults", "context-switches"};
  written.preload_library = "/opt/lib/libcprof-sampler.so";
  const ScopedEnvironment env(environment_of(written));
  std::vector<std::string> problems;
  const RuntimeConfig read = config_from_environment(problems);
  EXPECT_TRUE(problems.empty()) << problems.front();
  // Every field environment_of writes came back as it was written.
  EXPECT_EQ(environment_of(read), environment_of(written));
  EXPECT_EQ(read.frequency_hz, 997.5);
  EXPECT_TRUE(read.wall_clock);
  EXPECT_EQ(read.events.size(), 2u);
}

TEST(RuntimeConfigEnvironment, AHighFrequencyIsWrittenAsTheRuntimeParsesIt) {
  RuntimeConfig written;
  written.frequency_hz = 100000;
  const auto vars = environment_of(written);
  const ScopedEnvironment env(vars);
  std::vector<std::string> problems;
  EXPECT_EQ(config_from_environment(problems).frequency_hz, 100000);
  EXPECT_TRUE(problems.empty());
}

TEST(EngineSettingsFromConfig, ThePeriodComesFromTheFrequency) {
  RuntimeConfig config;
  config.frequency_hz = 250;
  config.signal = 40;
  const EngineSettings cpu = engine_settings(config);
  EXPECT_EQ(cpu.period_ns, 4000000u);
  EXPECT_EQ(cpu.signal, 40);
  EXPECT_EQ(cpu.slot, 0u);
  EXPECT_EQ(engine_settings(config, 1).slot, 1u);
}

}  // namespace
}  // namespace cprof::sampler
