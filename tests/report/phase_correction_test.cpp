// Coz's phase correction in causal-report (report/causal/phase_correction.h, docs/report.md
// "Phase correction"): generated runs of 10 s sampled at 1 kHz where the selected code runs
// only in the first half (f ~ 0.5: predictions halved), throughout (f ~ 1: unchanged), or
// with no samples at all (f = 1, and the report says why), across processes, and in every
// format that shows the curves.
#include <gtest/gtest.h>

#include <cmath>

#include "report/causal/causal_model.h"
#include "report/render/render.h"
#include "tests/report/fake_symbols.h"
#include "tests/report/results_fixture.h"
#include "tests/report/tool_shell.h"

namespace cprof::report {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// A line inlined into `outer` (the location's frame is an inline frame, as -O2 makes it),
// main, and a line whose file only ends like the selected one ("newphase.cpp" is not
// "phase.cpp": suffixes match on whole path components, as the runtime's --line does).
constexpr uint64_t kPhasePc = 0x1010, kMainPc = 0x3010, kDecoyPc = 0x4010;
constexpr const char* kLine = "phase.cpp:5";
constexpr const char* kFunction = "phase_kernel";
constexpr const char* kMain = "main";

void add_symbols(testing::FakeSymbols& symbols) {
  symbols.add(0x1000, 0x1100,
              {{.function = "phase_kernel", .file = "/src/lib/phase.cpp", .line = 5},
               {.function = "outer", .file = "/src/lib/outer.cpp", .line = 20}});
  symbols.add(0x3000, 0x3100, {{.function = "main", .file = "/src/m.cpp", .line = 30}});
  symbols.add(0x4000, 0x4100, {{.function = "decoy", .file = "/src/lib/newphase.cpp", .line = 5}});
}

constexpr uint64_t kStart = 1'000'000'000;  // ProcessWriter's start_monotonic_ns
constexpr uint64_t kSamples = 10'000;       // 1 kHz for 10 s
constexpr uint64_t kExperimentNs = 150'000'000;

// One process: 10 s of samples, the first `phase_share` of them (in time) in the phase
// line, the rest in the decoy; main on every stack. Experiments on the line, on its
// function and on main (13 each: 4 baselines, 3 at each of 25/50/75%), each 0.15 s with
// the location sampled at 1 per ms while it runs (150 selected samples). The line and its
// function speed the program up by half the line speedup, main by 0.3 times it.
void write_run(const fs::path& file, int64_t pid, double phase_share, bool with_samples = true) {
  testing::ProcessWriter w(file, pid);
  w.thread(1, "main");
  if (with_samples) {
    const auto phase_end = static_cast<uint64_t>(phase_share * kSamples);
    for (uint64_t i = 0; i < kSamples; ++i) {
      const uint64_t pc = i < phase_end ? kPhasePc : kDecoyPc;
      w.sample(1, {pc, kMainPc}, 1'000'000, kStart + i * 1'000'000);
    }
  }
  uint64_t time = kStart + 100'000'000;
  for (const auto& [location, effect] :
       {std::pair{kLine, 0.5}, std::pair{kFunction, 0.5}, std::pair{kMain, 0.3}}) {
    for (const double s : {0.0, 0.0, 0.0, 0.0, 0.25, 0.25, 0.25, 0.5, 0.5, 0.5, 0.75, 0.75, 0.75}) {
      // Delays a share of the time that can explain the effect (delay_share).
      const uint64_t delay = static_cast<uint64_t>(static_cast<double>(kExperimentNs) * s * (effect + 0.1));
      const double period = 1e5 * (1 - effect * s);  // ns per visit, effective time
      format::ExperimentRecord e{.time_ns = time,
                                 .location = location,
                                 .speedup = s,
                                 .duration_ns = kExperimentNs,
                                 .delay_ns = delay,
                                 .period_ns = 1'000'000,
                                 .selected_samples = 150};
      e.progress.push_back(
          {.name = "ops",
           .visits = static_cast<uint64_t>(static_cast<double>(kExperimentNs - delay) / period)});
      w.add(e);
      time += kExperimentNs;
    }
  }
  w.close();
}

Report report_of(const fs::path& dir) {
  testing::FakeSymbols symbols;
  add_symbols(symbols);
  return build_report(load_results(find_results_files(dir)), symbols);
}

const CausalCurve& curve(const Report& r, const std::string& location) {
  for (const auto& c : r.causal.predictions) {
    if (c.location == location) return c;
  }
  ADD_FAILURE() << "no curve for " << location;
  static const CausalCurve none;
  return none;
}

const causal::PredictionPoint& point_at(const CausalCurve& c, double speedup) {
  for (const auto& pt : c.points) {
    if (pt.speedup == speedup) return pt;
  }
  ADD_FAILURE() << "no point at " << speedup << " for " << c.location;
  static const causal::PredictionPoint none;
  return none;
}

TEST(PhaseCorrection, FractionFromTheFourInputs) {
  // 5000 samples in the location over a 10 s run; experiments saw 1 per ms: 5 s of 10.
  EXPECT_NEAR(phase_fraction(5000, 3.9e9, 10e9, 3900), 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(phase_fraction(20000, 3.9e9, 10e9, 3900), 1.0);  // capped
  EXPECT_LT(phase_fraction(0, 3.9e9, 10e9, 3900), 0);
  EXPECT_LT(phase_fraction(5000, 0, 10e9, 3900), 0);
  EXPECT_LT(phase_fraction(5000, 3.9e9, 0, 3900), 0);
  EXPECT_LT(phase_fraction(5000, 3.9e9, 10e9, 0), 0);
}

TEST(PhaseCorrection, LocationRunningHalfTheRunHasItsPredictionHalved) {
  TempDir dir;
  write_run(dir.path() / "app.host.300.cprof", 300, 0.5);
  const Report r = report_of(dir.path());
  // The line, found in an inline frame (and not in newphase.cpp), and its function.
  for (const char* location : {kLine, kFunction}) {
    const auto& c = curve(r, location);
    EXPECT_TRUE(c.phase.estimated) << location << ": " << c.phase.note;
    EXPECT_NEAR(c.phase.fraction, 0.5, 0.01) << location;
    EXPECT_EQ(c.phase.note, "the location runs during about 50% of the run");
    const auto& pt = point_at(c, 0.5);
    EXPECT_NEAR(pt.program_speedup, 0.25, 0.01);  // raw, as measured
    EXPECT_NEAR(c.corrected(pt.program_speedup), 0.125, 0.01);
    EXPECT_NEAR(c.corrected(pt.ci_low), c.phase.fraction * pt.ci_low, 1e-12);
  }
  // main runs throughout: no correction.
  EXPECT_NEAR(curve(r, kMain).phase.fraction, 1.0, 1e-9);

  // Ranked on corrected impact: main (0.3 of the speedup) before the line (0.5 x 0.5),
  // whose raw impact is the larger.
  ASSERT_EQ(r.causal.predictions.size(), 3u);
  EXPECT_EQ(r.causal.predictions[0].location, kMain);
  EXPECT_GT(causal_impact(curve(r, kLine)), causal_impact(curve(r, kMain)));

  const std::string text = render_text(r, {});
  EXPECT_NE(text.find("speeding up phase.cpp:5 by 75% would speed up the program by about 19% "
                      "(95% interval 19% to 19%) "
                      "(measured 38%; the location runs during about 50% of the run: corrected "
                      "for that (Coz's phase correction))"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("speeding up main by 75% would speed up the program by about 22% "
                      "(95% interval 22% to 22%)\n"),
            std::string::npos)
      << text;

  const std::string json = render_json(r, {});
  EXPECT_NE(json.find("\"phase_note\": \"the location runs during about 50% of the run\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"program_speedup_phase_corrected\": 0.12"), std::string::npos) << json;
  EXPECT_NE(json.find("\"phase_fraction\": 0.5"), std::string::npos) << json;

  const std::string html = render_html(r, {.top = 0});
  EXPECT_NE(html.find("<p class=\"note phase\" data-phase-fraction=\"0.50"), std::string::npos);
  EXPECT_NE(html.find("corrected for that (Coz&#39;s phase correction)"), std::string::npos)
      << html.substr(0, 4000);
}

TEST(PhaseCorrection, LocationRunningThroughoutIsUnchanged) {
  TempDir dir;
  write_run(dir.path() / "app.host.300.cprof", 300, 1.0);
  const Report r = report_of(dir.path());
  const auto& c = curve(r, kLine);
  EXPECT_TRUE(c.phase.estimated);
  EXPECT_NEAR(c.phase.fraction, 1.0, 1e-3);
  EXPECT_FALSE(c.shows_correction());
  const auto& pt = point_at(c, 0.5);
  EXPECT_NEAR(c.corrected(pt.program_speedup), pt.program_speedup, 1e-3);
  // Raw order stands: the line (0.5 of the speedup) before main (0.3).
  EXPECT_NE(r.causal.predictions[0].location, kMain);
  const std::string text = render_text(r, {});
  EXPECT_NE(text.find("speeding up phase.cpp:5 by 75% would speed up the program by about 38% "
                      "(95% interval 38% to 38%)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("phase correction"), std::string::npos) << text;
}

TEST(PhaseCorrection, MissingSamplesMeanNoCorrectionAndSaySo) {
  TempDir dir;
  write_run(dir.path() / "app.host.300.cprof", 300, 0.5, /*with_samples=*/false);
  const Report r = report_of(dir.path());
  const auto& c = curve(r, kLine);
  EXPECT_FALSE(c.phase.estimated);
  EXPECT_EQ(c.phase.fraction, 1.0);
  EXPECT_EQ(c.phase.note, "no phase correction: the run recorded no samples with a stack");
  const auto& pt = point_at(c, 0.5);
  EXPECT_EQ(c.corrected(pt.program_speedup), pt.program_speedup);
  const std::string text = render_text(r, {});
  EXPECT_NE(text.find("    (no phase correction: the run recorded no samples with a stack)\n"),
            std::string::npos)
      << text;
  const std::string json = render_json(r, {});
  EXPECT_NE(json.find("\"phase_estimated\": false"), std::string::npos) << json;
  EXPECT_NE(json.find("\"phase_fraction\": 1"), std::string::npos) << json;
}

TEST(PhaseCorrection, SamplesElsewhereOnlyMeanNoCorrection) {
  TempDir dir;
  write_run(dir.path() / "app.host.300.cprof", 300, 0.0);  // only the decoy line runs
  const Report r = report_of(dir.path());
  const auto& c = curve(r, kLine);
  EXPECT_FALSE(c.phase.estimated);
  EXPECT_EQ(c.phase.fraction, 1.0);
  EXPECT_EQ(c.phase.note, "no phase correction: no sample's stack holds the location");
}

TEST(PhaseCorrection, WithoutSymbolsNothingIsCorrected) {
  TempDir dir;
  write_run(dir.path() / "app.host.300.cprof", 300, 0.5);
  const auto loaded = load_results(find_results_files(dir.path()));
  const CausalModel m = build_causal_model(loaded.processes);
  ASSERT_FALSE(m.predictions.empty());
  for (const auto& c : m.predictions) {
    EXPECT_EQ(c.phase.fraction, 1.0);
    EXPECT_EQ(c.phase.note, "no phase correction: the samples were not symbolized");
  }
}

TEST(PhaseCorrection, ProcessesWeighedByTheirExperimentTime) {
  // Same experiment time in both: (0.5 + 1.0) / 2.
  TempDir dir;
  write_run(dir.path() / "app.host.300.cprof", 300, 0.5);
  write_run(dir.path() / "app.host.301.cprof", 301, 1.0);
  const Report r = report_of(dir.path());
  EXPECT_NEAR(curve(r, kLine).phase.fraction, 0.75, 0.01);
  EXPECT_EQ(curve(r, kLine).phase.note, "the location runs during about 75% of the run");
}

TEST(PhaseCorrection, ProcessWithoutSamplesCountsAsUncorrected) {
  TempDir dir;
  write_run(dir.path() / "app.host.300.cprof", 300, 0.5);
  write_run(dir.path() / "app.host.301.cprof", 301, 0.5, /*with_samples=*/false);
  const Report r = report_of(dir.path());
  const auto& c = curve(r, kLine);
  EXPECT_TRUE(c.phase.estimated);
  EXPECT_NEAR(c.phase.fraction, 0.75, 0.01);
  EXPECT_EQ(c.phase.note,
            "the location runs during about 75% of the run (1 of 2 processes "
            "counted as 100%: the run recorded no samples with a stack)");
}

TEST(PhaseCorrection, SqliteHasThePhaseColumns) {
  TempDir dir;
  write_run(dir.path() / "app.host.300.cprof", 300, 0.5);
  const auto db = dir.path() / "causal.db";
  ASSERT_EQ(write_sqlite(report_of(dir.path()), db.string()), "");
  if (!testing::have_tool("sqlite3")) GTEST_SKIP() << "sqlite3 not installed: database not queried";
  const auto out = testing::run_shell(
      "sqlite3 " + db.string() +
      " \"SELECT ROUND(phase_fraction, 2), ROUND(program_speedup_phase_corrected / "
      "program_speedup, 2) FROM predictions WHERE location = 'phase.cpp:5' AND speedup = 0.5\"");
  EXPECT_EQ(out.out, "0.5|0.5\n");
}

}  // namespace
}  // namespace cprof::report
