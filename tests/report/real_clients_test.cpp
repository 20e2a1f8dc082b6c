// Our files opened by the clients their users open them with, run for real and offline:
// Google's pprof (built from Debian's golang-github-google-pprof-dev, cmake/ClientTools.cmake)
// on `-top`, `-traces` and `-diff_base`, and speedscope's own page (its npm package) in
// headless Chromium. What the clients print is checked against what the views profile
// (views_fixture.h) holds. A client that is not there skips its test, naming the package.
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "report/render/render.h"
#include "tests/report/tool_shell.h"
#include "tests/report/views_fixture.h"

namespace cprof::report {
namespace {

using testing::run_shell;
using testing::TempDir;
using testing::write_file;

const std::string kPprof = CPROF_PPROF_CLIENT;
const std::string kSpeedscope = CPROF_SPEEDSCOPE_RELEASE;

// The views profile written to and loaded from the new directory `dir`.
Report views_in(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  return testing::views_report(dir);
}

// pprof's output for `flags` on `files`, errors included; HOME and the temporary folder
// are `dir`, so that pprof writes nothing outside it.
testing::ShellResult pprof(const std::filesystem::path& dir, const std::string& flags) {
  return run_shell("cd " + dir.string() + " && HOME=" + dir.string() + " PPROF_TMPDIR=" +
                   dir.string() + " timeout 60 " + kPprof + " " + flags + " 2>&1");
}

// The rows of `pprof -top`, by name: "flat cum" as pprof prints them.
std::map<std::string, std::string> top_rows(const std::string& out) {
  std::map<std::string, std::string> rows;
  static const std::regex row(R"(^\s*(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%\s+(.+)$)");
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, row)) rows[m[3]] = m[1].str() + " " + m[2].str();
  }
  return rows;
}

TEST(RealClients, PprofTopListsEachFunctionsOwnAndTotalTime) {
  if (kPprof.empty())
    GTEST_SKIP() << "pprof not built (golang-go, golang-github-google-pprof-dev): not run";
  TempDir dir;
  write_file(dir.path() / "cpu.pb.gz", render_pprof(views_in(dir.path() / "run")));
  // The sample type pprof shows by default is the last, CPU time; the 496 ms of CPU time
  // process 100 used beyond its samples is a function of its own.
  const auto r = pprof(dir.path(), "-top -nodecount=20 cpu.pb.gz");
  ASSERT_EQ(r.status, 0) << r.out;
  auto rows = top_rows(r.out);
  // pprof shows names simplified (helper<int> as helper) and marks an inlined frame.
  EXPECT_EQ(rows["helper (inline)"], "4ms 4ms") << r.out;
  EXPECT_EQ(rows["work"], "3ms 3ms") << r.out;
  EXPECT_EQ(rows["compute"], "0 4ms") << r.out;  // inlined helper's caller, same address
  EXPECT_EQ(rows["main"], "0 7ms") << r.out;
  EXPECT_NE(r.out.find("of 503ms total"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Type: cpu"), std::string::npos) << r.out;
}

TEST(RealClients, PprofTracesKeepTheInlinedFramesAndTheThreadLabels) {
  if (kPprof.empty())
    GTEST_SKIP() << "pprof not built (golang-go, golang-github-google-pprof-dev): not run";
  TempDir dir;
  write_file(dir.path() / "cpu.pb.gz", render_pprof(views_in(dir.path() / "run")));
  const auto r = pprof(dir.path(), "-traces cpu.pb.gz");
  ASSERT_EQ(r.status, 0) << r.out;
  // Rank 1's three samples: one trace, innermost first, the inlined helper above compute,
  // labelled with their process and thread.
  EXPECT_NE(r.out.find("    thread:  main\n   process:  app[101] rank 1\n       pid:  101\n"
                       "       tid:  7\n      rank:  1\n       3ms   helper (inline)\n"
                       "             compute\n             main\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    thread:  worker\n   process:  app[100] rank 0\n"), std::string::npos)
      << r.out;
  // The CPU time no sample covers, labelled as such.
  EXPECT_NE(r.out.find(" unsampled:  true\n     496ms   [unsampled: "), std::string::npos) << r.out;
}

TEST(RealClients, PprofDiffBaseShowsWhatTheNewRunAdded) {
  if (kPprof.empty())
    GTEST_SKIP() << "pprof not built (golang-go, golang-github-google-pprof-dev): not run";
  TempDir dir;
  // The base is rank 0 alone; the new run adds rank 1's 3 ms in helper<int>.
  const auto new_dir = dir.path() / "new";
  write_file(dir.path() / "new.pb.gz", render_pprof(views_in(new_dir)));
  const auto base_dir = dir.path() / "base";
  std::filesystem::create_directories(base_dir);
  testing::write_views_results(base_dir);
  std::filesystem::remove(base_dir / "app.host.101.rank1.cprof");
  testing::FakeSymbols symbols;
  testing::add_views_symbols(symbols);
  write_file(dir.path() / "base.pb.gz",
             render_pprof(build_report(load_results(find_results_files(base_dir)), symbols)));
  const auto r = pprof(dir.path(), "-top -diff_base=base.pb.gz new.pb.gz");
  ASSERT_EQ(r.status, 0) << r.out;
  auto rows = top_rows(r.out);
  EXPECT_EQ(rows["helper (inline)"], "3ms 3ms") << r.out;
  EXPECT_EQ(rows["main"], "0 3ms") << r.out;
  EXPECT_EQ(rows.count("work"), 0u) << r.out;  // unchanged: pprof leaves it out
}

// speedscope's page with `file` loaded as its command-line tool loads one: a script that
// hands the file's bytes to the page, named in the address (#localProfilePath), and the
// sandwich view, a table in the page rather than a canvas. The page as Chromium left it.
std::string speedscope_dom(const std::filesystem::path& dir, const std::filesystem::path& file) {
  const auto encoded = run_shell("base64 -w0 " + file.string());
  const auto script = dir / "load-profile.js";
  write_file(script, "speedscope.loadFileFromBase64('" + file.filename().string() + "', '" +
                         encoded.out + "');\n");
  const std::string chromium = testing::find_chromium();
  return run_shell("HOME=" + dir.string() + " timeout 120 " + chromium +
                   testing::chromium_flags((dir / "chromium-profile").string()) +
                   "--virtual-time-budget=10000 --dump-dom 'file://" + kSpeedscope +
                   "#localProfilePath=" + script.string() + "&view=sandwich' 2>/dev/null")
      .out;
}

// The sandwich table's rows: a function's name to its "total self" times as shown.
std::map<std::string, std::string> sandwich_rows(const std::string& dom) {
  std::map<std::string, std::string> rows;
  static const std::regex row(
      R"(<tr[^>]*><td[^>]*>([^<(]+) \([^)]*\)<div(?:.(?!</tr>))*?<td[^>]*>([^<(]+) \()"
      R"((?:.(?!</tr>))*?</span>([^<]*)</td></tr>)");
  for (std::sregex_iterator it(dom.begin(), dom.end(), row), end; it != end; ++it)
    rows[(*it)[3]] = (*it)[1].str() + " " + (*it)[2].str();
  return rows;
}

TEST(RealClients, SpeedscopeOpensOurFileInItsOwnPage) {
  if (kSpeedscope.empty())
    GTEST_SKIP() << "speedscope's npm package not installed (scripts/install-deps.sh): not run";
  if (testing::find_chromium().empty()) GTEST_SKIP() << "chromium not installed: not run";
  TempDir dir;
  const auto file = dir.path() / "cpu.speedscope.json";
  write_file(file, render_speedscope(views_in(dir.path() / "run")));
  const std::string dom = speedscope_dom(dir.path(), file);
  // Loaded, not the landing page nor an error: the title is the file's name field, and the
  // first profile (process 100's main thread: 3 ms in work under main) is in the sandwich
  // table.
  EXPECT_NE(dom.find("<title>causal-report: 2 processes, 3 threads - speedscope</title>"),
            std::string::npos)
      << dom;
  // Its list of profiles: every thread with its time, and the unsampled CPU time.
  std::map<std::string, std::string> profiles;
  static const std::regex profile(
      R"re(<tr title="([^"]*)"[^>]*><td[^>]*>[0-9]+</td><td[^>]*><span>[^<]*</span></td>)re"
      R"re(<td[^>]*>([^<]*)</td></tr>)re");
  for (std::sregex_iterator it(dom.begin(), dom.end(), profile), end; it != end; ++it)
    profiles[(*it)[1]] = (*it)[2];
  EXPECT_EQ(profiles,
            (std::map<std::string, std::string>{
                {"app[100] rank 0 1 main", "3.00ms"},
                {"app[101] rank 1 7 main", "3.00ms"},
                {"app[100] rank 0 2 worker", "1.00ms"},
                {"[unsampled CPU time: processes and threads without a sample]", "496.00ms"}}))
      << dom;
  auto rows = sandwich_rows(dom);
  EXPECT_EQ(rows.size(), 2u) << dom;
  EXPECT_EQ(rows["work"], "3.00ms 3.00ms") << dom;
  EXPECT_EQ(rows["main"], "3.00ms 0.00ns") << dom;
}

}  // namespace
}  // namespace cprof::report
