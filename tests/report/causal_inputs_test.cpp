// The inputs causal-report reads besides results files (docs/report.md "Text inputs"):
// TSV and JSON lines (the records as rows, one error line per bad row naming file and
// line), and Coz profiles, written by --format coz and read back to the same predictions,
// and a real profile written by Coz 0.2.2 (tests/report/data/).
#include <gtest/gtest.h>

#include <fstream>

#include "report/causal/causal_model.h"
#include "report/load/loader.h"
#include "report/load/text_input.h"
#include "report/render/coz_writer.h"
#include "report/render/render.h"
#include "tests/report/causal_fixture.h"
#include "tests/report/tool_shell.h"

namespace cprof::report {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

using testing::write_file;

struct Loaded {
  LoadResult load;
  CausalModel model;
};

Loaded load(const fs::path& dir_or_file) {
  Loaded l;
  l.load = load_results(find_results_files(dir_or_file));
  l.model = build_causal_model(l.load.processes);
  return l;
}

// Two baselines at 1000 visits a second, two at 50% at 1250 visits per effective second
// (1.2 s wall with 0.2 s of inserted delay): program speedup (1e6 - 0.8e6) / 1e6 = 0.2.
constexpr const char* kTsv =
    "# causal-report TSV: the type, then the schema's fields, tab-separated\n"
    "process\t7\t1\t-1\thost\t/bin/app\t1700000000000000000\t5\ttimer\tcpu\t1000\t1000000\n"
    "experiment\t10\tf.cpp:3\t0\t1000000000\t0\t1000000\t9\tprogress\n"
    "progress\tops\t1000\t0\t0\t0\n"
    "experiment\t20\tf.cpp:3\t0\t1000000000\t0\t1000000\t9\tprogress\n"
    "progress\tops\t1000\t0\t0\t0\n"
    "\n"
    "experiment\t30\tf.cpp:3\t0.5\t1200000000\t200000000\t1000000\t9\tprogress\n"
    "progress\tops\t1250\t0\t0\t0\n"
    "experiment\t40\tf.cpp:3\t0.5\t1200000000\t200000000\t1000000\t9\tprogress\n"
    "progress\tops\t1250\t0\t0\t0\n"
    "region\treq\t3\t2000\t1000\t1000\t3000\n"
    "sample\t7\t50\t1000000\t0x7fffffffffff1234,0xffffffffffff0001\n";

constexpr const char* kJsonl =
    R"({"type": "process", "pid": 7, "ppid": 1, "rank": -1, "executable": "/bin/app"})" "\n"
    R"({"type": "experiment", "time_ns": 10, "location": "f.cpp:3", "speedup": 0, "duration_ns": 1000000000, "progress": [{"name": "ops", "visits": 1000}]})" "\n"
    R"({"type": "experiment", "time_ns": 20, "location": "f.cpp:3", "speedup": 0.0, "duration_ns": 1e9})" "\n"
    R"({"type": "progress", "name": "ops", "visits": 1000})" "\n"
    R"({"type": "experiment", "location": "f.cpp:3", "speedup": 0.5, "duration_ns": 1200000000, "delay_ns": 200000000, "progress": [{"name": "ops", "visits": 1250}]})" "\n"
    "\n"
    R"({"type": "experiment", "location": "f.cpp:3", "speedup": 0.5, "duration_ns": 1200000000, "delay_ns": 200000000, "mode": "progress", "progress": [{"name": "ops", "visits": 1250}]})" "\n"
    R"({"type": "region", "name": "req", "count": 3, "mean_ns": 2000, "stddev_ns": 1000, "min_ns": 1000, "max_ns": 3000})" "\n"
    R"({"type": "sample", "tid": 7, "time_ns": 50, "weight_ns": 1000000, "frames": ["0x7fffffffffff1234", 18446744073709486081]})" "\n";

void expect_the_small_curve(const Loaded& l) {
  ASSERT_EQ(l.load.processes.size(), 1u);
  EXPECT_TRUE(l.load.warnings.empty()) << l.load.warnings.front();
  EXPECT_EQ(l.load.processes[0].process.pid, 7);
  EXPECT_EQ(l.model.experiments, 4u);
  ASSERT_EQ(l.model.predictions.size(), 1u);
  const auto& p = l.model.predictions[0];
  EXPECT_EQ(p.location, "f.cpp:3");
  EXPECT_EQ(p.progress_point, "ops");
  ASSERT_EQ(p.points.size(), 2u);
  EXPECT_DOUBLE_EQ(p.points[1].speedup, 0.5);
  EXPECT_NEAR(p.points[1].program_speedup, 0.2, 1e-12);
  EXPECT_EQ(p.points[1].experiments, 2u);
  ASSERT_EQ(l.model.regions.size(), 1u);
  EXPECT_EQ(l.model.regions[0].count, 3u);
  EXPECT_DOUBLE_EQ(l.model.regions[0].mean_ns, 2000);
  // Addresses above 2^53 come through exactly (JSON: not through a double).
  const auto& stacks = l.load.processes[0].stacks;
  ASSERT_EQ(stacks.size(), 1u);
  const auto frames = stacks.frames(0);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0], 0x7fffffffffff1234u);
  EXPECT_EQ(frames[1], 0xffffffffffff0001u);
}

TEST(TextInputs, TsvRowsBecomeRecordsAndPredictions) {
  TempDir dir;
  write_file(dir.path() / "run.tsv", kTsv);
  expect_the_small_curve(load(dir.path()));
}

TEST(TextInputs, JsonLinesGiveTheSamePredictionsAsTsv) {
  TempDir dir;
  write_file(dir.path() / "run.jsonl", kJsonl);
  expect_the_small_curve(load(dir.path()));
}

TEST(TextInputs, TsvBadRowsAreOneWarningEachNamingFileAndLine) {
  TempDir dir;
  const auto file = dir.path() / "bad.tsv";
  write_file(file,
             "progress\tops\t1\t0\t0\t0\n"                                          // 1
             "experiment\t0\tf.cpp:3\t0\t1000\t0\t0\t0\tprogress\n"                 // 2 (good)
             "progress\tops\t1\t0\n"                                                // 3
             "sample\t1\tsoon\t1\t0x10\n"                                           // 4
             "experiment\t0\tf.cpp:3\t1.5\t1000\t0\t0\t0\tprogress\n"               // 5
             "frobnicate\t1\n"                                                      // 6
             "sample\t1\t5\t1\t0x10,zz\n"                                           // 7
             "experiment\t0\tf.cpp:3\t0\t1000\t0\t0\t0\tsideways\n"                 // 8
             "progress_point\tops\tthroughput\tapi\tf.cpp\t3\n");                   // 9 (good)
  const auto l = load(dir.path());
  const std::string f = file.string() + ":";
  EXPECT_EQ(l.load.warnings,
            (std::vector<std::string>{
                f + "1: progress: progress row with no experiment row before it",
                f + "3: progress: expected 5 tab-separated fields after the type, found 3",
                f + "4: sample: time_ns: not an unsigned integer: 'soon'",
                f + "5: experiment: speedup: not a fraction from 0 to 1: '1.5'",
                f + "6: unknown row type 'frobnicate'",
                f + "7: sample: frames: not an unsigned integer: 'zz'",
                f + "8: experiment: mode: not one of progress, end-to-end: 'sideways'",
            }));
  // The good rows still count.
  ASSERT_EQ(l.load.processes.size(), 1u);
  EXPECT_EQ(l.model.experiments, 1u);
  ASSERT_EQ(l.model.progress_points.size(), 1u);
  EXPECT_EQ(l.model.progress_points[0].file, "f.cpp");
}

TEST(TextInputs, JsonLinesBadLinesNameFileLineAndColumn) {
  TempDir dir;
  const auto file = dir.path() / "bad.jsonl";
  write_file(file,
             "{\"type\": \"experiment\", \"location\": \"f.cpp:3\", \"speedup\": \"fast\"}\n"
             "{\"type\": \"experiment\", \"location\": \"f.cpp:3\" \"speedup\": 0}\n"
             "[1, 2]\n"
             "{\"type\": \"sample\", \"frames\": 12}\n"
             "{\"location\": \"f.cpp:3\"}\n"
             "{\"type\": \"experiment\", \"location\": \"f.cpp:3\", \"duration_ns\": 5}\n");
  const auto l = load(dir.path());
  const std::string f = file.string() + ":";
  EXPECT_EQ(l.load.warnings, (std::vector<std::string>{
                                 f + "1: speedup: not a number: 'fast'",
                                 f + "2: column 46: expected '}'",
                                 f + "3: not a JSON object",
                                 f + "4: frames: expected an array",
                                 f + "5: no \"type\" string",
                             }));
  EXPECT_EQ(l.model.experiments, 1u);
}

// `dir` holds `original` written as a Coz profile: it loads with no warning and gives the
// same predictions, and Coz's progress points come back as Coz's, of the right kinds.
void expect_same_predictions(const Report& original, const fs::path& dir) {
  const auto back = load(dir);
  EXPECT_TRUE(back.load.warnings.empty()) << back.load.warnings.front();
  ASSERT_EQ(back.model.experiments, original.causal.experiments);
  ASSERT_EQ(back.model.predictions.size(), original.causal.predictions.size());
  for (size_t i = 0; i < back.model.predictions.size(); ++i) {
    const auto& a = original.causal.predictions[i];
    const auto& b = back.model.predictions[i];
    EXPECT_EQ(a.location, b.location);
    EXPECT_EQ(a.progress_point, b.progress_point);
    ASSERT_EQ(a.points.size(), b.points.size());
    for (size_t k = 0; k < a.points.size(); ++k) {
      EXPECT_DOUBLE_EQ(a.points[k].speedup, b.points[k].speedup);
      EXPECT_NEAR(a.points[k].program_speedup, b.points[k].program_speedup, 1e-9) << a.location;
      EXPECT_NEAR(a.points[k].ci_low, b.points[k].ci_low, 1e-9);
      EXPECT_NEAR(a.points[k].ci_high, b.points[k].ci_high, 1e-9);
      EXPECT_EQ(a.points[k].experiments, b.points[k].experiments);
    }
  }
  ASSERT_EQ(back.model.progress_points.size(), 2u);
  EXPECT_EQ(back.model.progress_points[1].kind, format::ProgressPointKind::latency);
  EXPECT_EQ(back.model.progress_points[1].source, format::ProgressPointSource::coz);
}

TEST(CozFormat, WrittenProfileReadsBackToTheSamePredictions) {
  TempDir dir, coz_dir;
  const Report original = testing::causal_report(dir.path());
  ASSERT_EQ(original.causal.experiments, 26u);
  ASSERT_EQ(original.causal.predictions.size(), 4u);  // 2 locations x (ops, req)
  const std::string text = render_coz(original, CozStyle::tab_separated);
  EXPECT_NE(text.find("experiment\tselected=hot<int>::run\tspeedup=0.25\tduration=850000000\t"
                      "selected-samples=40\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("latency-point\tname=req\tarrivals="), std::string::npos);
  write_file(coz_dir.path() / "profile.coz", text);
  expect_same_predictions(original, coz_dir.path());
}

TEST(CozFormat, JsonLinesProfileReadsBackUnderAnyName) {
  TempDir dir;
  const Report original = testing::causal_report(dir.path());
  const std::string jsonl = render_coz(original, CozStyle::json_lines);
  EXPECT_TRUE(jsonl.starts_with("{\"type\": \"startup\", \"time\": ")) << jsonl.substr(0, 200);
  EXPECT_NE(jsonl.find("{\"type\": \"experiment\", \"selected\": \"hot<int>::run\", "
                       "\"speedup\": 0.25, \"duration\": 850000000, \"selected-samples\": 40}\n"),
            std::string::npos)
      << jsonl;
  // Coz's own name for it: .jsonl is not taken for rows of the results format.
  for (const char* name : {"profile.jsonl", "profile.coz", "coz-run.out"}) {
    SCOPED_TRACE(name);
    TempDir coz_dir;
    write_file(coz_dir.path() / name, jsonl);
    expect_same_predictions(original, coz_dir.path());
    expect_same_predictions(original, coz_dir.path() / name);  // the file named alone
  }
}

TEST(TextInputs, WhatAFileHoldsDecidesHowItIsRead) {
  TempDir dir;
  const auto kind = [&](const std::string& name, const std::string& text) {
    write_file(dir.path() / name, text);
    return text_input_by_content(dir.path() / name);
  };
  EXPECT_EQ(kind("a.jsonl", "{\"type\": \"startup\", \"time\": 1}\n"), InputKind::coz);
  EXPECT_EQ(kind("b.jsonl", "\n{\"type\": \"experiment\", \"selected\": \"a.c:3\"}\n"),
            InputKind::coz);
  EXPECT_EQ(kind("c.jsonl", "{\"type\": \"experiment\", \"location\": \"a.c:3\"}\n"),
            InputKind::jsonl);
  EXPECT_EQ(kind("d.txt", "# rows\nthread\t7\tmain\t5\n"), InputKind::tsv);
  EXPECT_EQ(kind("e.txt", "throughput_point\tname=ops\tdelta=3\n"), InputKind::coz);
  EXPECT_EQ(kind("f.txt", "hello world\n"), std::nullopt);
  EXPECT_EQ(kind("g.txt", "{\"no_type\": 1}\n"), std::nullopt);
  EXPECT_EQ(kind("h.txt", std::string(100000, 'x')), std::nullopt);  // no line in 64 KiB
  EXPECT_EQ(kind("i.txt", ""), std::nullopt);
  // A file named alone that is none of them says so.
  write_file(dir.path() / "notes.txt", "hello world\n");
  try {
    load(dir.path() / "notes.txt");
    ADD_FAILURE() << "loaded notes.txt";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("notes.txt: not a results, Coz, TSV or JSON-lines file"),
              std::string::npos)
        << e.what();
  }
}

// JSON string literal of `text`, for putting a profile into a page's script.
std::string js_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '<': out += "\\u003c"; break;  // never "</script>" inside the script
      default: out += c;
    }
  }
  return out + "\"";
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(CozFormat, WrittenProfilePlotsInCozsViewer) {
  // Coz's own viewer (Debian coz-profiler: /usr/share/coz-profiler/viewer), driven as its
  // ui.js does after a file is opened: new Profile(text, ...), then update().
  const fs::path viewer = "/usr/share/coz-profiler/viewer";
  if (!fs::exists(viewer / "index.htm")) GTEST_SKIP() << "Coz's viewer not installed (coz-profiler)";
  const std::string chromium = testing::find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium not installed: Coz's viewer not run";
  TempDir dir;
  const std::string profile =
      render_coz(testing::causal_report(dir.path()), CozStyle::tab_separated);
  const fs::path copy = dir.path() / "viewer";
  fs::copy(viewer, copy, fs::copy_options::recursive);
  std::string page;
  {
    std::ifstream in(copy / "index.htm");
    page.assign(std::istreambuf_iterator<char>(in), {});
  }
  const size_t body = page.rfind("</body>");
  ASSERT_NE(body, std::string::npos);
  page.insert(body, "<script>\nd3.select('#minpoints_field').property('value', 0);\n"
                    "current_profile = new Profile(" + js_string(profile) +
                        ", d3.select('#plot-area'), d3.select('#legend'), get_min_points, "
                        "display_warning);\nupdate();\n</script>\n");
  write_file(copy / "test.htm", page);
  const auto dom = testing::run_shell(
      "HOME=" + dir.path().string() + " timeout 120 " + chromium +
      testing::chromium_flags((dir.path() / "chromium-profile").string()) +
      "--allow-file-access-from-files --dump-dom file://" + (copy / "test.htm").string() +
      " 2>/dev/null");
  ASSERT_EQ(dom.status, 0) << dom.out;
  // One plot per location, each with both progress points' series; a point per speedup.
  EXPECT_EQ(count(dom.out, "class=\"plot-title shortpath\""), 2u) << dom.out;
  EXPECT_NE(dom.out.find("title=\"hot&lt;int&gt;::run\""), std::string::npos);
  EXPECT_NE(dom.out.find("title=\"cold.cpp:7\""), std::string::npos);
  EXPECT_EQ(count(dom.out, "<circle "), 2u * 2 * 4);
  EXPECT_EQ(dom.out.find("Invalid Profile"), std::string::npos) << "the viewer rejected a line";
  EXPECT_EQ(dom.out.find("Empty Profile"), std::string::npos);
}

TEST(CozFormat, RealCozProfileGivenAsAFileIsPredicted) {
  // Written by `coz run --fixed-line serial.cpp:12 --- cexp-serial-coz` (Coz 0.2.2,
  // Debian) on experiments/causal/serial.cpp, whose line 12 is 2/3 of each item.
  const fs::path file = fs::path(CPROF_REPORT_TEST_DIR) / "data" / "serial-coz-0.2.2.coz";
  const auto l = load(file);
  EXPECT_TRUE(l.load.warnings.empty()) << l.load.warnings.front();
  ASSERT_EQ(l.load.processes.size(), 1u);
  EXPECT_EQ(l.load.processes[0].process.engine, "coz");
  EXPECT_EQ(l.load.processes[0].process.start_realtime_ns, 1795367200392905715u);
  EXPECT_EQ(l.model.experiments, 12u);
  ASSERT_EQ(l.model.predictions.size(), 1u);
  const auto& p = l.model.predictions[0];
  EXPECT_EQ(p.location, "/work/main/experiments/causal/serial.cpp:12");
  EXPECT_EQ(p.progress_point, "item");
  const auto* best = best_point(p);
  ASSERT_NE(best, nullptr);
  EXPECT_DOUBLE_EQ(best->speedup, 0.85);
  // Speeding up 2/3 of the work by 85% would ideally save 57%; Coz measured about 45%.
  EXPECT_GT(best->program_speedup, 0.3);
  EXPECT_LT(best->program_speedup, 0.6);
}

TEST(CozFormat, ReaderWarnsOnLinesItCannotUse) {
  TempDir dir;
  const auto file = dir.path() / "p.coz";
  write_file(file,
             "startup\ttime=5\n"
             "throughput-point\tname=ops\tdelta=3\n"
             "experiment\tselected=a.c:1\tspeedup=0.00\tduration=100\tselected-samples=1\n"
             "throughput-point\tname=ops\tdelta=many\n"
             "latency-point\tname=q\tarrivals=1\tdepartures=1\n"
             "weird\tx=1\n"
             "{\"type\":\"throughput_point\",\"name\":\"ops\",\"delta\":4}\n"
             "samples\tlocation=a.c:1\tcount=9\n"
             "runtime\ttime=100\n");
  const auto l = load(dir.path());
  const std::string f = file.string() + ":";
  EXPECT_EQ(l.load.warnings, (std::vector<std::string>{
                                 f + "2: throughput-point with no experiment line before it",
                                 f + "4: delta: not a number: 'many'",
                                 f + "5: no difference= field",
                                 f + "6: unknown line type 'weird'",
                             }));
  ASSERT_EQ(l.load.processes.size(), 1u);
  ASSERT_EQ(l.load.processes[0].experiments.size(), 1u);
  // Coz's JSON spelling of a point line counts like the tab-separated one.
  ASSERT_EQ(l.load.processes[0].experiments[0].progress.size(), 1u);
  EXPECT_EQ(l.load.processes[0].experiments[0].progress[0].visits, 4u);
}

// A count written as a float past 2^64 was converted anyway (undefined behaviour, found
// by fuzz_text_inputs): now the line is refused like any other bad count.
TEST(CozFormat, ACountPastWhatACounterHoldsIsRefused) {
  TempDir dir;
  const auto file = dir.path() / "p.coz";
  write_file(file,
             "experiment\tselected=a.c:1\tspeedup=0.00\tduration=100\tselected-samples=1\n"
             "throughput-point\tname=ops\tdelta=2e58\n"
             "throughput-point\tname=ops\tdelta=3.0\n");
  const auto l = load(dir.path());
  const std::string f = file.string() + ":";
  EXPECT_EQ(l.load.warnings, (std::vector<std::string>{
                                 f + "2: delta: too large for a count: '2e58'",
                             }));
  ASSERT_EQ(l.load.processes.size(), 1u);
  ASSERT_EQ(l.load.processes[0].experiments.size(), 1u);
  ASSERT_EQ(l.load.processes[0].experiments[0].progress.size(), 1u);
  EXPECT_EQ(l.load.processes[0].experiments[0].progress[0].visits, 3u);
}

TEST(TextInputs, ADirectoryMixesEveryInputKind) {
  TempDir dir;
  testing::write_causal_results(dir.path());
  write_file(dir.path() / "a.tsv", kTsv);
  fs::create_directories(dir.path() / "run2");
  write_file(dir.path() / "run2" / "b.jsonl", kJsonl);
  write_file(dir.path() / "c.coz", "experiment\tselected=x:1\tspeedup=0\tduration=10\n");
  write_file(dir.path() / "notes.txt", "not an input\n");
  const auto files = find_results_files(dir.path());
  ASSERT_EQ(files.size(), 4u);
  const auto l = load(dir.path());
  EXPECT_EQ(l.load.processes.size(), 4u);
  EXPECT_EQ(l.model.experiments, 26u + 4 + 4 + 1);
  // Sorted by path: a.tsv, app.host.300.cprof, c.coz, run2/b.jsonl.
  EXPECT_EQ(l.load.processes[3].run, "run2");
  EXPECT_EQ(l.load.processes[3].process.executable, "/bin/app");
  EXPECT_EQ(l.load.processes[2].process.engine, "coz");
}

}  // namespace
}  // namespace cprof::report
