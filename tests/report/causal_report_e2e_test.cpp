// The causal-report binary as a user runs it: exit codes, one-line errors, warnings on
// stderr, text and JSON on stdout or in -o FILE.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/report/results_fixture.h"
#include "tests/report/tool_shell.h"

namespace cprof::report {
namespace {

using testing::ProcessWriter;
using testing::TempDir;

struct Run {
  int status = -1;
  std::string out, err;
};

Run run(const std::string& args) {
  TempDir tmp;
  const auto err_file = tmp.path() / "stderr";
  const testing::ShellResult shell =
      testing::run_shell(std::string(CAUSAL_REPORT_BIN) + " " + args + " 2>" + err_file.string());
  Run r{shell.status, shell.out, ""};
  std::ifstream in(err_file);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  return r;
}

void write_results(const std::filesystem::path& dir) {
  for (int p = 0; p < 3; ++p) {
    ProcessWriter w(dir / ("app.host." + std::to_string(200 + p) + ".rank" + std::to_string(p) +
                           ".cprof"),
                    200 + p, p);
    for (int i = 0; i < 50; ++i) w.sample(1, {0x1010, 0x3011});
    w.flush();  // two chunks: a torn tail loses only the second
    for (int i = 0; i < 10; ++i) w.sample(2, {0x2010, 0x3011});
  }
}

TEST(CausalReport, TextReportOnStdout) {
  TempDir dir;
  write_results(dir.path());
  const auto r = run(dir.path().string());
  EXPECT_EQ(r.status, 0) << r.err;
  // The binary the results name does not exist here: said once, and the report goes on.
  EXPECT_EQ(r.err,
            "causal-report: warning: /usr/bin/app: module file not found (No such file or "
            "directory); its frames are shown as addresses\n");
  EXPECT_NE(r.out.find("causal-report: 3 processes, 6 threads, 180 samples"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("app[201] rank 1 on testhost"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Functions by self time"), std::string::npos) << r.out;
}

// Results from another kernel: their [vdso] is not this host's (the build ids differ), so
// its frames stay addresses, and the report says why rather than naming them wrongly.
TEST(CausalReport, VdsoOfAnotherKernelIsSaidNotNamed) {
  TempDir dir;
  ProcessWriter w(dir.path() / "app.host.300.cprof", 300);
  constexpr uint64_t kVdso = 0x7ffff7fc1000;
  w.add(format::ModuleRecord{.id = 1,
                             .path = "[vdso]",
                             .build_id = "00112233445566778899aabbccddeeff00112233",
                             .load_bias = kVdso,
                             .start = kVdso,
                             .end = kVdso + 0x2000,
                             .time_ns = 1'000'000'000});
  for (int i = 0; i < 20; ++i) {
    w.add(format::SampleRecord{.tid = 1,
                               .time_ns = 1'500'000'000,
                               .weight_ns = 1'000'000,
                               .frames = {kVdso + 0xbe1, testing::kLoadBias + 0x1010}});
  }
  w.close();
  const auto r = run(dir.path().string());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("causal-report: warning: [vdso]: not this host's vDSO (build-id mismatch"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("[vdso]+0xbe1"), std::string::npos) << r.out;
}

TEST(CausalReport, NoSymbolsReadsNoBinary) {
  TempDir dir;
  write_results(dir.path());
  const auto r = run(dir.path().string() + " --symbols none");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("symbols: none"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("app+0x1010"), std::string::npos) << r.out;
}

TEST(CausalReport, JsonToFile) {
  TempDir dir;
  write_results(dir.path());
  const auto file = dir.path() / "report.json";
  const auto r = run(dir.path().string() + " --format json --top 1 -o " + file.string());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  const auto json = ss.str();
  EXPECT_EQ(json.rfind("{\n", 0), 0u);
  EXPECT_NE(json.find("\"profile\""), std::string::npos);
  EXPECT_NE(json.find("\"samples\": 180"), std::string::npos) << json;
}

TEST(CausalReport, ByLine) {
  TempDir dir;
  write_results(dir.path());
  const auto r = run(dir.path().string() + " --by line --top 2");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Lines by self time (top 2 of"), std::string::npos) << r.out;
}

TEST(CausalReport, EveryFormatToFile) {
  TempDir dir;
  write_results(dir.path());
  // The first bytes of each format: what a reader of it checks first.
  const std::pair<const char*, std::string> kFormats[] = {
      {"text", "causal-report: 3 processes"},
      {"json", "{\n"},
      {"html", "<!DOCTYPE html>"},
      {"folded", "app+0x3010;app+0x1010 150\n"},
      {"speedscope", "{\n  \"$schema\""},
      {"pprof", "\x1f\x8b"},
      {"chrome", "{\n  \"displayTimeUnit\""},
      {"firefox", "{\n  \"meta\": {\n    \"version\": 24,\n    \"preprocessedProfileVersion\": 57,"},
      {"sqlite", "SQLite format 3"},
      {"coz", "startup\ttime="}};
  for (const auto& [format, start] : kFormats) {
    const auto file = dir.path() / (std::string("out.") + format);
    const auto r =
        run(dir.path().string() + " --symbols none -f " + format + " -o " + file.string());
    EXPECT_EQ(r.status, 0) << format << ": " << r.err;
    std::ifstream in(file, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ss.str().substr(0, start.size()), start) << format;
  }
}

TEST(CausalReport, ViewsOnTheCommandLine) {
  TempDir dir;
  write_results(dir.path());
  auto r = run(dir.path().string() + " --symbols none --view tree");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Call tree, top-down (3 nodes;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("100.00%   0.00%    180 ms  app+0x3010\n"), std::string::npos) << r.out;
  r = run(dir.path().string() + " --symbols none --by thread");
  EXPECT_NE(r.out.find("Threads by time (top 6 of 6)"), std::string::npos) << r.out;
  r = run(dir.path().string() + " --symbols none --by process");
  EXPECT_NE(r.out.find("Processes by time (top 3 of 3)"), std::string::npos) << r.out;
  r = run(dir.path().string() + " --symbols none --by rank");
  EXPECT_NE(r.out.find("Ranks (top 3 of 3;"), std::string::npos) << r.out;
}

TEST(CausalReport, SqliteNeedsAnOutputFile) {
  TempDir dir;
  write_results(dir.path());
  const auto r = run(dir.path().string() + " --format sqlite");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "causal-report: --format sqlite writes a database file: give it with -o FILE\n");
}

TEST(CausalReport, UsageErrorsExitOne) {
  for (const std::string args : {"", "--format xml /nonexistent", "--by file /nonexistent",
                                 "--view graph /nonexistent",
                                 "--top -3 /nonexistent", "--top x /nonexistent",
                                 "--symbols elf /nonexistent", "--no-such-option /nonexistent",
                                 "--pid x /nonexistent", "--pid 1,y /nonexistent",
                                 "/nonexistent /nonexistent"}) {
    const auto r = run(args);
    EXPECT_EQ(r.status, 1) << args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("causal-report: ", 0), 0u) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
}

// Option errors were CLI11's words: "Value abc not in range 1.000000 to 100000.000000",
// "Check lines value in {function->0,...} FAILED", a 300-digit bound for --top -1, no
// suggestion for a misspelled option. Each is now one line of ours: the option, the value
// and what is accepted, and the closest name where one is near.
TEST(CausalReport, OptionErrorsAreInOurWords) {
  const std::pair<std::string, std::string> cases[] = {
      {"--by lines /nonexistent",
       "causal-report: --by: 'lines' is not one of function, line, thread, process, rank, "
       "module, wait (did you mean line?) (see --help)\n"},
      {"--top -1 /nonexistent",
       "causal-report: --top: '-1' is not a whole number; give rows (0 for all), 0 to "
       "1000000000 (see --help)\n"},
      {"--formt json /nonexistent",
       "causal-report: unknown option --formt (did you mean --format?) (see --help)\n"},
      {"--view tre /nonexistent",
       "causal-report: --view: 'tre' is not one of flat, tree (did you mean tree?) (see "
       "--help)\n"},
      // Where no validator looked: CLI11's "Could not convert: --pid = x", "--format: 1
      // required TEXT:VALUE missing", "DIR is required".
      {"--pid x /nonexistent",
       "causal-report: --pid: 'x' is not a whole number; give process ids, 0 to "
       "9223372036854775807 (see --help)\n"},
      {"/nonexistent --format", "causal-report: --format: no value given (see --help)\n"},
      {"", "causal-report: missing DIR (see --help)\n"},
  };
  for (const auto& [args, says] : cases) {
    const auto r = run(args);
    EXPECT_EQ(r.status, 1) << args;
    EXPECT_EQ(r.err, says) << args;
  }
}

// --pid and --thread keep some processes and threads; one that matches nothing is one
// error naming what there is to choose from, and the exit status of bad input.
TEST(CausalReport, PidAndThreadFiltersOnTheCommandLine) {
  TempDir dir;
  write_results(dir.path());
  auto r = run("-q --pid 201,202 --thread 2 " + dir.path().string());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("causal-report: 2 processes, 2 threads, 20 samples"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  only --pid 201 --pid 202 --thread '2': 2 of 3 processes, 2 of 6 "
                       "threads, 20 of 180 samples"),
            std::string::npos)
      << r.out;
  r = run("-q --thread 'work*' " + dir.path().string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "causal-report: --thread 'work*': no process or thread of the results "
                   "matches (pids: 200, 201, 202; thread names: none)\n");
}

TEST(CausalReport, HelpExitsZero) {
  const auto r = run("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--format"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--top"), std::string::npos) << r.out;
}

TEST(CausalReport, BadInputExitsTwoWithOneLineNamingIt) {
  TempDir empty;
  auto r = run("/nonexistent/results");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "causal-report: /nonexistent/results: no such directory\n");
  r = run(empty.path().string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "causal-report: " + empty.path().string() +
                       ": no results files in this directory\n");
}

TEST(CausalReport, AllFilesUnreadableExitsTwo) {
  TempDir dir;
  std::ofstream(dir.path() / "x.cprof", std::ios::binary)
      << std::string("CPROFRES\x63\x00\x00\x00\x00\x00\x00\x00", 16);
  const auto r = run(dir.path().string());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(r.err.rfind("causal-report: " + dir.path().string() +
                            ": its one results file could not be read: " +
                            (dir.path() / "x.cprof").string() + ": results format version 99",
                        0),
            0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// Regression: a directory of only an unreadable *.cprof said "no results files in this
// directory"; an empty or garbage one beside good files was skipped without a word.
TEST(CausalReport, OnlyAGarbageCprofIsOneErrorSayingWhy) {
  TempDir dir;
  const auto file = dir.path() / "x.cprof";
  std::ofstream(file) << "garbage\n";
  const auto r = run(dir.path().string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "causal-report: " + dir.path().string() +
                       ": its one results file could not be read: " + file.string() +
                       ": not a results file (no CPROFRES header)\n");
}

TEST(CausalReport, NoReadableCprofIsOneErrorNamingTheCountAndTheFirst) {
  TempDir dir;
  std::ofstream(dir.path() / "a.cprof") << "";
  std::ofstream(dir.path() / "b.cprof") << "garbage\n";
  const auto r = run(dir.path().string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "causal-report: warning: " + (dir.path() / "b.cprof").string() +
                       ": not a results file (no CPROFRES header)\n"
                       "causal-report: " +
                       dir.path().string() +
                       ": none of its 2 results files could be read (first: " +
                       (dir.path() / "a.cprof").string() +
                       ": empty: the process may have ended before writing)\n");
}

TEST(CausalReport, EmptyCprofNamedDirectlyIsOneErrorSayingWhy) {
  TempDir dir;
  const auto file = dir.path() / "x.cprof";
  std::ofstream(file) << "";
  const auto r = run(file.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "causal-report: " + file.string() +
                       ": empty: the process may have ended before writing\n");
}

TEST(CausalReport, EmptyAndGarbageCprofBesideAGoodOneWarnAndAreCounted) {
  TempDir dir;
  write_results(dir.path());
  const auto empty = dir.path() / "app.host.300.cprof";
  const auto garbage = dir.path() / "app.host.301.cprof";
  std::ofstream(empty) << "";
  std::ofstream(garbage) << "garbage\n";
  const auto r = run(dir.path().string() + " --symbols none");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "causal-report: warning: " + empty.string() +
                       ": empty: the process may have ended before writing\n"
                       "causal-report: warning: " +
                       garbage.string() + ": not a results file (no CPROFRES header)\n");
  EXPECT_NE(r.out.find("2 warnings while reading (on stderr); 3 of 5 files loaded"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("180 samples"), std::string::npos) << r.out;
}

TEST(CausalReport, DamagedFileWarnsAndStillReports) {
  TempDir dir;
  write_results(dir.path());
  const auto victim = dir.path() / "app.host.200.rank0.cprof";
  std::filesystem::resize_file(victim, std::filesystem::file_size(victim) - 5);
  const auto r = run(dir.path().string() + " --symbols none");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("causal-report: warning: " + victim.string() + ": offset "), std::string::npos)
      << r.err;
  // The torn chunk held the end record too: the file is also said to be cut short.
  EXPECT_NE(r.err.find(victim.string() + ": no end record"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("2 warnings while reading (on stderr); 3 of 3 files loaded"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("cut short (no end record"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("170 samples"), std::string::npos) << r.out;  // 180 less the lost 10
}

// Other inputs (docs/report.md "Other inputs"): a Coz profile named on the command line,
// a TSV file's bad row as one warning line, a file of no known kind as bad input.
TEST(CausalReport, CozProfileGivenAsAFileIsPredicted) {
  TempDir dir;
  const auto file = dir.path() / "profile.coz";
  std::ofstream(file) << "startup\ttime=1\n"
                      << "experiment\tselected=a.c:1\tspeedup=0.00\tduration=1000\tselected-samples=1\n"
                      << "throughput-point\tname=ops\tdelta=100\n"
                      << "experiment\tselected=a.c:1\tspeedup=0.50\tduration=1000\tselected-samples=1\n"
                      << "throughput-point\tname=ops\tdelta=125\n"
                      << "runtime\ttime=3000\n";
  const auto r = run(file.string());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("  too little evidence yet: speeding up a.c:1 by 50% would speed up the "
                       "program by about 20% (run longer before relying on it)\n"),
            std::string::npos)
      << r.out;
}

TEST(CausalReport, BadTsvRowIsOneWarningLineNamingFileAndLine) {
  TempDir dir;
  const auto file = dir.path() / "run.tsv";
  std::ofstream(file) << "thread\t1\tmain\t5\nsample\t1\t5\tlots\t0x10\n";
  const auto r = run(dir.path().string() + " --symbols none");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "causal-report: warning: " + file.string() +
                       ":2: sample: weight_ns: not an unsigned integer: 'lots'\n");
}

// --debug-dir takes directories; anything else is one line in our words.
TEST(CausalReport, DebugDirThatIsNoDirectoryIsAUsageError) {
  TempDir dir;
  const auto r = run("--debug-dir " + (dir.path() / "nosuch").string() + " " + dir.path().string());
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.err, "causal-report: --debug-dir: '" + (dir.path() / "nosuch").string() +
                       "' is not a directory (no such path) (see --help)\n");
}

TEST(CausalReport, FileOfNoKnownKindIsBadInput) {
  TempDir dir;
  const auto file = dir.path() / "notes.txt";
  std::ofstream(file) << "hello\n";
  const auto r = run(file.string());
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "causal-report: " + file.string() +
                       ": not a results, Coz, TSV or JSON-lines file (by its name or its first line)\n");
}

// A program's names are any bytes: a thread named with an escape sequence retitled and
// cleared the terminal of whoever read the text report, and bytes that are not UTF-8 made
// the JSON, speedscope, chrome and firefox files and SQLite's TEXT unreadable by strict readers.
TEST(CausalReport, NamesThatAreNotTextStayOutOfEveryOutput) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "app.host.300.cprof", 300);
    w.thread(1, "evil\x1b]0;pwned\x07\x1b[2J\xff\xfe");
    for (int i = 0; i < 20; ++i) w.sample(1, {0x1010, 0x3011});
  }
  const auto text = run(dir.path().string() + " --by thread");
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_EQ(text.out.find('\x1b'), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("evil\\x1b]0;pwned\\x07\\x1b[2J\\xff\\xfe"), std::string::npos)
      << text.out;
  if (!testing::have_tool("python3")) GTEST_SKIP() << "python3 not installed: outputs not read";
  for (const char* format : {"json", "speedscope", "chrome", "firefox"}) {
    SCOPED_TRACE(format);
    const auto out = dir.path() / (std::string("out.") + format);
    const auto r = run(dir.path().string() + " --format " + format + " -o " + out.string());
    ASSERT_EQ(r.status, 0) << r.err;
    // Python reads the bytes strictly: UTF-8 or an error.
    const auto parsed = testing::run_shell(
        "python3 -c 'import json,sys; d=json.loads(open(sys.argv[1],\"rb\").read()); "
        "print(\"\\ufffd\" in json.dumps(d, ensure_ascii=False))' " +
        out.string() + " 2>&1");
    EXPECT_EQ(parsed.status, 0) << parsed.out;
    EXPECT_EQ(parsed.out, "True\n");  // the bytes that were not UTF-8, replaced
  }
  if (!testing::have_tool("sqlite3")) GTEST_SKIP() << "sqlite3 not installed: TEXT not read";
  const auto db = dir.path() / "out.db";
  ASSERT_EQ(run(dir.path().string() + " --format sqlite -o " + db.string()).status, 0);
  const auto names = testing::run_shell(
      "python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); "
      "print([r[0] for r in c.execute(\"SELECT name FROM threads\")])' " +
      db.string() + " 2>&1");
  EXPECT_EQ(names.status, 0) << names.out;  // Python's sqlite3 decodes TEXT as UTF-8
  EXPECT_NE(names.out.find("evil"), std::string::npos) << names.out;
}

}  // namespace
}  // namespace cprof::report
