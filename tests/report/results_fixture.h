#pragma once
// Builds small results directories for the report's tests with the real ResultsWriter:
// a process with one module mapped at a known load bias, and samples given as ELF
// addresses (the fixture adds the bias), so tests read like the stacks they describe.

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "format/writer.h"

namespace cprof::report::testing {

// A fresh directory under the temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("cprof-report-test." + std::to_string(::getpid()) + "." + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline constexpr uint64_t kLoadBias = 0x555555550000;
inline constexpr uint64_t kModuleStart = kLoadBias + 0x1000;
inline constexpr uint64_t kModuleEnd = kLoadBias + 0x100000;

// Writes one process's file; samples are added with sample().
class ProcessWriter {
 public:
  // clock: the process record's ("cpu+wall": sample-run --clock wall).
  ProcessWriter(const std::filesystem::path& file, int64_t pid, int64_t rank = -1,
                const std::string& clock = "cpu", const std::string& executable = "/usr/bin/app") {
    error_ = writer_.open(file.string());
    writer_.add(format::ProcessRecord{.pid = pid,
                                      .ppid = 1,
                                      .rank = rank,
                                      .hostname = "testhost",
                                      .executable = executable,
                                      .command_line = {"app"},
                                      .start_realtime_ns = 1'700'000'000'000'000'000,
                                      .start_monotonic_ns = 1'000'000'000,
                                      .engine = "timer",
                                      .clock = clock,
                                      .unwinder = "libunwind",
                                      .frequency_hz = 1000,
                                      .period_ns = 1'000'000});
    writer_.add(format::ModuleRecord{.id = 0,
                                     .path = "/usr/bin/app",
                                     .build_id = "abcdef",
                                     .load_bias = kLoadBias,
                                     .start = kModuleStart,
                                     .end = kModuleEnd,
                                     .time_ns = 1'000'000'000});
  }
  const std::string& error() const { return error_; }

  void thread(int64_t tid, const std::string& name) {
    writer_.add(format::ThreadRecord{.tid = tid, .name = name, .time_ns = 1'000'000'001});
  }

  // `elf_frames`: [0] the PC, [1..] return addresses, as ELF addresses of the module.
  void sample(int64_t tid, std::vector<uint64_t> elf_frames, uint64_t weight_ns = 1'000'000,
              uint64_t time_ns = 1'500'000'000) {
    for (auto& f : elf_frames) f += kLoadBias;
    writer_.add(format::SampleRecord{
        .tid = tid, .time_ns = time_ns, .weight_ns = weight_ns, .frames = std::move(elf_frames)});
  }

  // A sample of either clock, with counter deltas (by EventRecord::index).
  void sample(int64_t tid, std::vector<uint64_t> elf_frames, format::SampleClock clock,
              std::vector<uint64_t> counter_deltas = {}, uint64_t weight_ns = 1'000'000,
              uint64_t time_ns = 1'500'000'000) {
    for (auto& f : elf_frames) f += kLoadBias;
    writer_.add(format::SampleRecord{.tid = tid,
                                     .time_ns = time_ns,
                                     .weight_ns = weight_ns,
                                     .clock = clock,
                                     .frames = std::move(elf_frames),
                                     .counter_deltas = std::move(counter_deltas)});
  }

  void add(const format::Record& r) { writer_.add(r); }
  void flush() { writer_.flush(); }
  void close() { writer_.close(); }
  uint64_t bytes_written() const { return writer_.bytes_written(); }

 private:
  format::ResultsWriter writer_;
  std::string error_;
};

}  // namespace cprof::report::testing
