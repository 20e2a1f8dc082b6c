// Loading a results directory: files found by their name or header (also in run
// subdirectories), samples folded into interned stacks, damage reported with the file
// and offset while the intact chunks still count, unreadable files one warning each.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>

#include "format/framing.h"
#include "report/load/launches.h"
#include "report/load/loader.h"
#include "tests/report/results_fixture.h"

namespace cprof::report {
namespace {

using testing::ProcessWriter;
using testing::TempDir;

void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// A file whose header claims a future major version.
void write_newer_version(const std::filesystem::path& p) {
  std::string header(format::kFileMagic, sizeof format::kFileMagic);
  header += std::string("\x63\x00\x00\x00\x00\x00\x00\x00", 8);  // major 99
  write_text(p, header);
}

ProcessProfile process(int64_t pid, int64_t ppid, int64_t rank = -1, std::string run = "") {
  ProcessProfile p;
  p.has_process_record = true;
  p.process.hostname = "h";
  p.process.pid = pid;
  p.process.ppid = ppid;
  p.process.rank = rank;
  p.run = std::move(run);
  return p;
}

// A launcher's child is a root (its parent is not among the processes), the program's own
// children are not; each launcher is a run.
TEST(Launches, SeparateLaunchesInOneDirectoryAreSaid) {
  // One launch: the program (parent 10, the launcher), its child, an exec'd image of it.
  std::vector<ProcessProfile> one{process(100, 10), process(101, 100), process(101, 100)};
  EXPECT_EQ(separate_launches_warning(one), "");
  // causal-run -n 3: three roots of one launcher.
  EXPECT_EQ(separate_launches_warning({process(100, 10), process(200, 10), process(300, 10)}), "");
  // MPI ranks, each under its own launcher: one job.
  EXPECT_EQ(separate_launches_warning({process(100, 10, 0), process(200, 20, 1)}), "");
  // Each run in a subdirectory of its own: nothing merged.
  EXPECT_EQ(separate_launches_warning({process(100, 10, -1, "a"), process(200, 20, -1, "b")}), "");
  // Two launches (sample-run twice with --append).
  const std::string w =
      separate_launches_warning({process(100, 10), process(101, 100), process(200, 20)});
  EXPECT_NE(w.find("holds 2 separately launched runs, merged here: as --append asks"),
            std::string::npos)
      << w;
}

TEST(StackTable, InternsEqualSequencesOnce) {
  StackTable t;
  const std::vector<uint64_t> a = {1, 2, 3}, b = {1, 2}, c = {1, 2, 3};
  EXPECT_EQ(t.intern(a), 0u);
  EXPECT_EQ(t.intern(b), 1u);
  EXPECT_EQ(t.intern(c), 0u);
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(std::vector<uint64_t>(t.frames(1).begin(), t.frames(1).end()), b);
}

TEST(StackTable, SurvivesGrowth) {
  StackTable t;
  for (uint64_t i = 0; i < 10'000; ++i) {
    const std::vector<uint64_t> s = {i, i * 7, 42};
    ASSERT_EQ(t.intern(s), i);
  }
  for (uint64_t i = 0; i < 10'000; i += 97) {
    const std::vector<uint64_t> s = {i, i * 7, 42};
    ASSERT_EQ(t.intern(s), i);
  }
  EXPECT_EQ(t.size(), 10'000u);
}

TEST(Loader, FoldsSamplesIntoStackCountsPerThread) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "app.host.5.cprof", 5);
    w.thread(1, "main");
    for (int i = 0; i < 1000; ++i) w.sample(1, {0x1000, 0x2000}, 10);
    for (int i = 0; i < 500; ++i) w.sample(2, {0x1000, 0x2000}, 10);
    w.sample(2, {0x1000}, 10);
    w.add(format::SampleRecord{.tid = 2, .weight_ns = 10});  // no frames
  }
  const auto loaded = load_results(find_results_files(dir.path()));
  ASSERT_EQ(loaded.processes.size(), 1u);
  const auto& p = loaded.processes[0];
  EXPECT_EQ(p.samples, 1502u);
  EXPECT_EQ(p.empty_samples, 1u);
  EXPECT_EQ(p.weight_ns, 15020u);
  EXPECT_EQ(p.stacks.size(), 2u);
  EXPECT_EQ(p.counts.size(), 3u);  // (1, A), (2, A), (2, B)
  ASSERT_EQ(p.threads.size(), 2u);
  EXPECT_EQ(p.threads[0].name, "main");
  EXPECT_EQ(p.threads[1].samples, 502u);
  EXPECT_FALSE(p.threads[1].seen_record);
  EXPECT_EQ(p.process.pid, 5);
  EXPECT_EQ(p.label(), "app[5]");
}

// node compiled a sort comparator over the code of a function that had run: the perf map
// has no times, so the comparator took that function's samples. The loader says so.
TEST(Loader, JitCodeCompiledOverAnotherFunctionIsSaid) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "node.host.7.cprof", 7);
    w.thread(7, "node");
    w.sample(7, {0x7f0000001040}, 10);
  }
  {
    std::ofstream map(dir.path() / "node.host.7.perf-map");
    map << "7f0000001000 100 JS:*sieve\n7f0000001000 80 JS:*compare\n";
  }
  const auto loaded = load_results(find_results_files(dir.path()));
  ASSERT_EQ(loaded.processes.size(), 1u);
  EXPECT_EQ(loaded.processes[0].jit_symbols.size(), 2u);  // compare, and sieve's tail
  const auto said = std::find_if(loaded.warnings.begin(), loaded.warnings.end(), [](const auto& w) {
    return w.find("the JIT compiled other functions over the code of 1 earlier one") !=
           std::string::npos;
  });
  EXPECT_NE(said, loaded.warnings.end());
}

// A thread renamed after its thread record carries its last name; binary and TSV alike.
TEST(Loader, AThreadNameRecordRenamesTheThread) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "app.host.5.cprof", 5);
    w.thread(1, "main");
    w.thread(2, "java");
    w.sample(2, {0x1000}, 10);
    w.add(format::ThreadNameRecord{.tid = 2, .time_ns = 20, .name = "beta"});
    w.add(format::ThreadNameRecord{.tid = 2, .time_ns = 30, .name = "gamma"});
  }
  write_text(dir.path() / "run.tsv",
             "process\t6\t1\t-1\th\t/bin/app\t0\t0\ttimer\tcpu\t1000\t1000000\n"
             "thread\t3\tjava\t5\nthread_name\t3\t9\talpha\n");
  const auto loaded = load_results(find_results_files(dir.path()));
  ASSERT_EQ(loaded.processes.size(), 2u);
  for (const auto& p : loaded.processes) {
    if (p.process.pid == 5) {
      ASSERT_EQ(p.threads.size(), 2u);
      EXPECT_EQ(p.threads[0].name, "main");
      EXPECT_EQ(p.threads[1].name, "gamma");
      EXPECT_EQ(p.threads[1].samples, 1u);
    } else {
      ASSERT_EQ(p.threads.size(), 1u);
      EXPECT_EQ(p.threads[0].name, "alpha");
    }
  }
}

TEST(Loader, TruncatedFileKeepsItsIntactChunksAndNamesTheFile) {
  TempDir dir;
  const auto file = dir.path() / "app.host.9.cprof";
  uint64_t last_chunk = 0;
  uint64_t end_chunk = 0;  // the chunk with the end record, written as the writer closes
  {
    ProcessWriter w(file, 9);
    for (int chunk = 0; chunk < 3; ++chunk) {
      last_chunk = w.bytes_written();
      for (int i = 0; i < 100; ++i) w.sample(1, {0x1000 + static_cast<uint64_t>(chunk)});
      w.flush();
    }
    end_chunk = w.bytes_written();
  }
  std::filesystem::resize_file(file, end_chunk - 7);
  const auto loaded = load_results(find_results_files(dir.path()));
  ASSERT_EQ(loaded.processes.size(), 1u);
  EXPECT_EQ(loaded.processes[0].samples, 200u);
  EXPECT_TRUE(loaded.processes[0].cut);
  ASSERT_EQ(loaded.warnings.size(), 2u);
  const bool torn_first = loaded.warnings[0].find("torn tail") != std::string::npos;
  const auto& w = loaded.warnings[torn_first ? 0 : 1];
  EXPECT_EQ(w.rfind(file.string() + ": offset " + std::to_string(last_chunk) + ": ", 0), 0u) << w;
  EXPECT_NE(w.find("torn tail"), std::string::npos) << w;
  const auto& end = loaded.warnings[torn_first ? 1 : 0];
  EXPECT_NE(end.find("no end record"), std::string::npos) << end;
}

// A process killed by SIGKILL leaves whole chunks and no end record: its file read as
// complete. Now it is marked cut, with a warning, and a file ended by its writer is not.
TEST(Loader, AFileWithoutItsEndRecordIsMarkedCut) {
  TempDir dir;
  const auto killed = dir.path() / "app.host.9.cprof";
  const auto ended = dir.path() / "app.host.10.cprof";
  uint64_t end_chunk = 0;
  {
    ProcessWriter w(killed, 9);
    w.sample(1, {0x1000});
    w.flush();
    end_chunk = w.bytes_written();
  }
  std::filesystem::resize_file(killed, end_chunk);  // cut exactly at a chunk edge
  {
    ProcessWriter w(ended, 10);
    w.sample(1, {0x1000});
  }
  const auto loaded = load_results(find_results_files(dir.path()));
  ASSERT_EQ(loaded.processes.size(), 2u);
  for (const auto& p : loaded.processes) EXPECT_EQ(p.cut, p.process.pid == 9) << p.file;
  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_NE(loaded.warnings[0].find(killed.string() + ": no end record"), std::string::npos)
      << loaded.warnings[0];
}

// A results file copied (into another run's folder, or under another name) was counted
// twice: the same process now counts once, and the copy is named.
TEST(Loader, ACopiedFileCountsOnce) {
  TempDir dir;
  const auto file = dir.path() / "app.host.9.cprof";
  {
    ProcessWriter w(file, 9);
    for (int i = 0; i < 10; ++i) w.sample(1, {0x1000});
  }
  std::filesystem::create_directories(dir.path() / "again");
  std::filesystem::copy_file(file, dir.path() / "again" / "app.host.9.cprof");
  const auto loaded = load_results(find_results_files(dir.path()));
  ASSERT_EQ(loaded.processes.size(), 1u);
  EXPECT_EQ(loaded.processes[0].samples, 10u);
  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_NE(loaded.warnings[0].find("a copy, not counted again"), std::string::npos)
      << loaded.warnings[0];
}

// A FIFO or a symbolic link loop named like a results file was skipped in silence (and a
// FIFO opened for reading would have blocked the report): each is a warning now.
TEST(Loader, AFifoOrALinkLoopNamedLikeAResultsFileIsAWarning) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "app.host.9.cprof", 9);
    w.sample(1, {0x1000});
  }
  const auto fifo = dir.path() / "fifo.cprof";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto loop = dir.path() / "loop.cprof";
  std::filesystem::create_symlink(loop, loop);
  const auto loaded = load_results(find_results_files(dir.path()));
  ASSERT_EQ(loaded.processes.size(), 1u);
  ASSERT_EQ(loaded.warnings.size(), 2u);
  EXPECT_NE(loaded.warnings[0].find(fifo.string() + ": not a regular file (a FIFO)"),
            std::string::npos)
      << loaded.warnings[0];
  EXPECT_NE(loaded.warnings[1].find(loop.string() + ": cannot open"), std::string::npos)
      << loaded.warnings[1];
}

// A sample's weight of 2^64-1 (a flipped bit, a crafted file) wrapped the totals.
TEST(Loader, AnImplausibleWeightIsCappedAndSaid) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "app.host.9.cprof", 9);
    w.sample(1, {0x1000}, ~uint64_t{0});
    w.sample(1, {0x1000}, ~uint64_t{0});
    w.sample(1, {0x1000});
  }
  const auto loaded = load_results(find_results_files(dir.path()));
  ASSERT_EQ(loaded.processes.size(), 1u);
  EXPECT_GT(loaded.processes[0].weight_ns, uint64_t{1} << 50);  // not wrapped to ~1 ms
  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_NE(loaded.warnings[0].find("2 samples weigh more than 13 days"), std::string::npos)
      << loaded.warnings[0];
}

TEST(Loader, NewerVersionIsAWarningAndTheOtherFilesLoad) {
  TempDir dir;
  { ProcessWriter w(dir.path() / "good.cprof", 1); w.sample(1, {0x1000}); }
  write_newer_version(dir.path() / "future.cprof");
  const auto loaded = load_results(find_results_files(dir.path()));
  EXPECT_EQ(loaded.files_found, 2u);
  EXPECT_EQ(loaded.files_failed, 1u);
  ASSERT_EQ(loaded.processes.size(), 1u);
  ASSERT_EQ(loaded.warnings.size(), 1u);
  EXPECT_NE(loaded.warnings[0].find("future.cprof"), std::string::npos);
  EXPECT_NE(loaded.warnings[0].find("newer"), std::string::npos) << loaded.warnings[0];
}

TEST(Loader, FindsFilesByHeaderAndInRunSubdirectories) {
  TempDir dir;
  { ProcessWriter w(dir.path() / "a.cprof", 1); }
  std::filesystem::create_directories(dir.path() / "run2");
  { ProcessWriter w(dir.path() / "run2" / "named-oddly.dat", 2); }
  write_text(dir.path() / "notes.dat", "not a results file");
  write_text(dir.path() / "README", "hello");
  const auto files = find_results_files(dir.path());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path.filename(), "a.cprof");
  EXPECT_EQ(files[0].run, "");
  EXPECT_EQ(files[1].path.filename(), "named-oddly.dat");
  EXPECT_EQ(files[1].run, "run2");
}

// Regression: an empty or garbage *.cprof was skipped in silence (its header decided
// whether it was a results file), so that process's data went missing unsaid. A file
// named like a results file is one now: each unreadable one is one warning, counted.
TEST(Loader, EmptyAndGarbageCprofFilesAreCountedWarningsAndTheRestLoads) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "app.host.1.cprof", 1);
    w.sample(1, {0x1000});
  }
  write_text(dir.path() / "app.host.2.cprof", "");  // its process died before writing
  write_text(dir.path() / "app.host.3.cprof", "garbage, not a results file");
  write_text(dir.path() / "app.host.1.gpu.cprof", "CPRO");  // a GPU companion, cut short
  write_text(dir.path() / "notes.txt", "unrelated files stay ignored");
  const auto loaded = load_results(find_results_files(dir.path()));
  EXPECT_EQ(loaded.files_found, 4u);
  EXPECT_EQ(loaded.files_failed, 3u);
  ASSERT_EQ(loaded.processes.size(), 1u);
  EXPECT_EQ(loaded.processes[0].samples, 1u);
  const std::string d = dir.path().string() + "/";
  EXPECT_EQ(loaded.warnings,
            (std::vector<std::string>{
                d + "app.host.1.gpu.cprof: not a results file (no CPROFRES header)",
                d + "app.host.2.cprof: empty: the process may have ended before writing",
                d + "app.host.3.cprof: not a results file (no CPROFRES header)"}));
  EXPECT_EQ(loaded.first_failure,
            d + "app.host.1.gpu.cprof: not a results file (no CPROFRES header)");
}

// The same for the text inputs: an empty one, or one not a line of which could be used,
// is one warning and not loaded (never an empty process counted as read).
TEST(Loader, TextInputWithNothingReadableIsOneWarningNotAnEmptyProcess) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "app.host.1.cprof", 1);
    w.sample(1, {0x1000});
  }
  write_text(dir.path() / "empty.tsv", "");
  write_text(dir.path() / "blank.jsonl", "\n\n");
  write_text(dir.path() / "profile.coz", "garbage\nmore garbage\n");
  const auto loaded = load_results(find_results_files(dir.path()));
  EXPECT_EQ(loaded.files_found, 4u);
  EXPECT_EQ(loaded.files_failed, 3u);
  ASSERT_EQ(loaded.processes.size(), 1u);
  const std::string d = dir.path().string() + "/";
  EXPECT_EQ(loaded.warnings,
            (std::vector<std::string>{
                d + "blank.jsonl: no JSON-lines records in it", d + "empty.tsv: empty",
                d + "profile.coz: not a Coz profile: none of its 2 lines could be read "
                    "(line 1: unknown line type 'garbage')"}));
}

TEST(Loader, EmptyCprofNamedDirectlyIsLoadedToSayWhy) {
  TempDir dir;
  const auto file = dir.path() / "app.host.2.cprof";
  write_text(file, "");
  const auto files = find_results_files(file);
  ASSERT_EQ(files.size(), 1u);
  const auto loaded = load_results(files);
  EXPECT_EQ(loaded.files_failed, 1u);
  EXPECT_EQ(loaded.first_failure,
            file.string() + ": empty: the process may have ended before writing");
}

TEST(Loader, MissingDirectoryThrowsNamingIt) {
  try {
    find_results_files("/nonexistent/results");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/results: no such directory");
  }
}

TEST(Loader, ManyFilesLoadInParallelInFileOrder) {
  TempDir dir;
  for (int p = 0; p < 12; ++p) {
    ProcessWriter w(dir.path() / ("app.host." + std::to_string(100 + p) + ".cprof"), 100 + p);
    for (int i = 0; i <= p; ++i) w.sample(1, {0x1000});
  }
  const auto loaded = load_results(find_results_files(dir.path()));
  ASSERT_EQ(loaded.processes.size(), 12u);
  for (int p = 0; p < 12; ++p) {
    EXPECT_EQ(loaded.processes[p].process.pid, 100 + p);
    EXPECT_EQ(loaded.processes[p].samples, static_cast<uint64_t>(p + 1));
  }
}

}  // namespace
}  // namespace cprof::report
