// The causal profile in every format that shows it (causal_fixture.h): text and json
// ranked by impact with the evidence note, the HTML plots loaded in headless Chromium,
// the SQLite tables queried with sqlite3, the Chrome trace's experiment track. A
// missing tool skips its test with a message saying which.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "causal/runtime/settings.h"
#include "report/render/html_causal.h"
#include "report/render/html_escape.h"
#include "report/render/render.h"
#include "tests/report/causal_fixture.h"
#include "tests/report/tool_shell.h"

namespace cprof::report {
namespace {

namespace fs = std::filesystem;
using testing::run_shell;
using testing::TempDir;

using testing::write_file;

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The numbers in an SVG coordinate list ("x,y x,y ..." or "Mx,y Lx,y ...").
std::vector<double> coordinates(const std::string& list) {
  std::vector<double> out;
  static const std::regex number(R"(-?[0-9]+(\.[0-9]+)?)");
  for (auto it = std::sregex_iterator(list.begin(), list.end(), number); it != std::sregex_iterator();
       ++it) {
    out.push_back(std::stod(it->str()));
  }
  return out;
}

TEST(CausalFormats, RankedByImpactWithVerdictAndEvidence) {
  TempDir dir;
  const Report r = testing::causal_report(dir.path());
  ASSERT_EQ(r.causal.predictions.size(), 4u);
  // hot (half the line's speedup) before cold (a tenth), though "cold" sorts first.
  EXPECT_EQ(r.causal.predictions[0].location, testing::kHotLocation);
  EXPECT_EQ(r.causal.predictions[3].location, testing::kColdLocation);
  EXPECT_GT(causal_impact(r.causal.predictions[0]), causal_impact(r.causal.predictions[3]));
  EXPECT_TRUE(meets_minimum_evidence(r.causal.predictions[0]));
  const std::string text = render_text(r, {});
  EXPECT_NE(text.find("  speeding up hot<int>::run by 75% would speed up the program by about 3"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    (9 experiments at 3 speedups, baseline 4: meets the minimum evidence of "
                      "3 per speedup and baseline at 3 speedups)"),
            std::string::npos)
      << text;
  EXPECT_LT(text.find("speeding up hot<int>::run"), text.find("speeding up cold.cpp:7"));
  const std::string json = render_json(r, {});
  EXPECT_NE(json.find("\"meets_minimum_evidence\": true"), std::string::npos) << json;
  EXPECT_NE(json.find("\"impact\": "), std::string::npos);
}

// An interval from one run counts the spread between its experiments only, and runs of
// a shared machine drift apart by more (issue 20: single runs' intervals held the
// measured speedup in about half the accuracy suite's rows). The report says so, once, and how to
// get intervals that count runs; with 3 runs they are resampled run by run, and it does
// not.
TEST(CausalFormats, IntervalsFromOneRunSayWhatTheyLeaveOut) {
  const std::string note =
      "(the intervals come from one run: they count the spread between that run's experiments, "
      "not the drift between runs, which on a shared or virtual machine is often larger; with 3 "
      "or more runs (causal-run -n RUNS, or --append) intervals resample whole runs first)";
  TempDir one;
  const Report r = testing::causal_report(one.path());
  const std::string text = render_text(r, {});
  EXPECT_EQ(count(text, note), 1u) << text;
  const std::string json = render_json(r, {});
  EXPECT_NE(json.find("\"intervals_note\": \"the intervals come from one run"), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"runs\": 1,"), std::string::npos) << json;
  EXPECT_NE(render_html(r, {}).find("<p class=\"note\" id=\"few-runs\">the intervals come from "
                                    "one run"),
            std::string::npos);

  TempDir three;
  for (const int64_t pid : {300, 301, 302}) testing::write_causal_results(three.path(), pid);
  testing::FakeSymbols symbols;
  testing::add_causal_symbols(symbols);
  const Report r3 = build_report(load_results(find_results_files(three.path()), {}), symbols, {});
  ASSERT_FALSE(r3.causal.predictions.empty());
  const std::string text3 = render_text(r3, {});
  EXPECT_EQ(text3.find("the intervals come from"), std::string::npos) << text3;
  const std::string json3 = render_json(r3, {});
  EXPECT_NE(json3.find("\"intervals_note\": null"), std::string::npos);
  EXPECT_NE(json3.find("\"runs\": 3,"), std::string::npos);
}

// A program whose rate of progress changes in phases (four tests of 1 s, 2 us to 2 ms a
// visit), its sped-up experiments 20% faster than the baselines around them: text, JSON
// and HTML say the curve comes from neighbouring baselines, and how many were left out at
// a change of phase (causal/neighbour_pairs.h).
TEST(CausalFormats, ACurveFromNeighbouringBaselinesSaysSo) {
  TempDir dir;
  {
    testing::ProcessWriter w(dir.path() / "app.host.400.cprof", 400);
    w.thread(1, "main");
    w.sample(1, {0x1010, 0x3010}, 1'000'000, 1'200'000'000);
    w.add(format::ProgressPointRecord{
        .id = 1, .name = "ops", .source = format::ProgressPointSource::coz});
    const uint64_t ms = 1'000'000;
    uint64_t t = 1'000 * ms;
    for (const double us : {2.0, 2000.0, 20.0, 200.0}) {
      for (int e = 0; e < 10; ++e, t += 100 * ms) {
        const bool sped = e % 2 == 1;
        const uint64_t effective = sped ? 80 * ms : 100 * ms;
        w.add(format::ExperimentRecord{
            .time_ns = t,
            .location = "work.cpp:3",
            .speedup = sped ? 0.5 : 0,
            .duration_ns = 100 * ms,
            .delay_ns = 100 * ms - effective,
            .period_ns = ms,
            .selected_samples = sped ? 20u : 0u,
            .progress = {{"ops", static_cast<uint64_t>(100'000 / us), 0, 0, 0}}});
      }
    }
    w.close();
  }
  testing::FakeSymbols symbols;
  testing::add_causal_symbols(symbols);
  const Report r = build_report(load_results(find_results_files(dir.path()), {}), symbols, {});
  ASSERT_EQ(r.causal.predictions.size(), 1u);
  const std::string note =
      "the program's rate of progress changes in phases: each of 16 sped-up experiments was "
      "compared with the baseline experiments just before and after it; 3 more fell on a "
      "change of phase and were left out";
  EXPECT_NE(render_text(r, {}).find("(" + note + ")"), std::string::npos) << render_text(r, {});
  const std::string json = render_json(r, {});
  EXPECT_TRUE(std::regex_search(json, std::regex("\"program_speedup\": 0\\.(2|19999+[0-9]*), "
                                                 "\"ci_low\": 0\\.(2|19999+[0-9]*), ")))
      << json;
  EXPECT_NE(json.find("\"neighbour_units\": 16, \"at_rate_changes\": 3"), std::string::npos)
      << json;
  EXPECT_NE(render_html(r, {}).find("<p class=\"note neighbours\">" + html_escape(note)),
            std::string::npos);
}

// The warning that the program's threads waited for a CPU was cut at the width in the
// header and tied to nothing: it is wrapped now, whole, and names the predictions of the
// processes that left it.
TEST(CausalFormats, TheCpuWaitWarningIsWholeAndNamesThePredictionsItAffects) {
  TempDir dir;
  testing::write_causal_results(dir.path());
  {
    testing::ProcessWriter w(dir.path() / "app.host.301.cprof", 301);
    w.add(format::MessageRecord{
        5, format::MessageLevel::warning,
        std::string(causal::kCpuWaitWarningStart) +
            " during the experiments, 40% of the time they were ready to run (other jobs, or "
            "more busy threads than CPUs): the wall time grows while the virtual speedups do "
            "not, so the predictions come out smaller than on an idle machine, and vary more"});
    for (auto e : testing::causal_fixture_experiments()) {
      if (e.location == testing::kColdLocation) w.add(e);
    }
  }
  testing::FakeSymbols symbols;
  testing::add_causal_symbols(symbols);
  const Report r = build_report(load_results(find_results_files(dir.path())), symbols, {});
  const std::string text = render_text(r, {});
  EXPECT_NE(text.find("and vary more [1 of 2 processes] (it affects the predictions of "
                      "cold.cpp:7)"),
            std::string::npos)
      << text;
  // The header (up to its first blank line) fits the width: wrapped, not cut.
  const std::string header = text.substr(0, text.find("\n\n"));
  for (size_t at = 0, end = 0; at < header.size(); at = end + 1) {
    end = header.find('\n', at);
    if (end == std::string::npos) end = header.size();
    EXPECT_LE(end - at, 100u) << header.substr(at, end - at);
  }
}

TEST(CausalFormats, EvidenceBelowTheMinimumIsSaid) {
  causal::LocationPrediction p{"f.cpp:1", "ops", {{0, 0, NAN, NAN, 2}, {0.5, 0.2, NAN, NAN, 1}}};
  EXPECT_FALSE(meets_minimum_evidence(p));
  EXPECT_EQ(evidence_note(p), "1 experiment at 1 speedup, baseline 2: below the minimum evidence "
                              "of 3 per speedup and baseline at 3 speedups");
  // Coz's impact: the best mean height from 0: 0.1 (the triangle up to 0.5 over 0.5).
  EXPECT_NEAR(causal_impact(p), 0.1, 1e-12);
}

// A --fixed-speedup run has one speedup for every curve: it is judged on that one, or no
// run of it, however long, could meet the minimum.
TEST(CausalFormats, ARunOfOneSpeedupNeedsOnlyThatOne) {
  causal::LocationPrediction p{"f.cpp:1", "ops", {{0, 0, NAN, NAN, 15}, {0.5, 0.3, NAN, NAN, 10}}, 1};
  EXPECT_TRUE(meets_minimum_evidence(p));
  EXPECT_EQ(evidence_note(p), "10 experiments at 1 speedup, baseline 15: meets the minimum "
                              "evidence of 3 per speedup and baseline at 1 speedup (all the run "
                              "used)");
  p.points[0].experiments = 2;  // the baseline still needs 3
  EXPECT_FALSE(meets_minimum_evidence(p));
  p.points[0].experiments = 15;
  p.speedups_in_run = 4;  // other locations had other speedups: this curve has too few
  EXPECT_FALSE(meets_minimum_evidence(p));
}

// End to end a 0% run inserts no delay: it is the same unmodified program whichever
// location it was drawn for, so it is the baseline of every location. Run 1 was a
// baseline drawn for complex_add, run 2 sped x_add up by 50%: x_add has a curve from run
// 1, and complex_add (baselines only) and lonely.cpp:3 (a progress-point experiment with
// no baseline of its own) are named with the reason, not dropped or left as "- -", in
// text, json, html and sqlite.
TEST(CausalFormats, EndToEndBaselinesAreSharedAndLocationsWithoutACurveAreSaid) {
  TempDir dir;
  {
    testing::ProcessWriter w(dir.path() / "app.host.1.cprof", 1);
    const auto run = [](const char* location, double speedup, uint64_t wall, uint64_t delay) {
      return format::ExperimentRecord{.time_ns = 1'100'000'000,
                                      .location = location,
                                      .speedup = speedup,
                                      .duration_ns = wall,
                                      .delay_ns = delay,
                                      .period_ns = 1'000'000,
                                      .mode = format::ExperimentMode::end_to_end};
    };
    w.add(run("complex_add", 0, 10'000'000'000, 0));
    w.add(run("x_add", 0.5, 10'000'000'000, 2'000'000'000));  // 8 s effective: 20% faster
    format::ExperimentRecord lonely{.time_ns = 1'200'000'000,
                                    .location = "lonely.cpp:3",
                                    .speedup = 0.25,
                                    .duration_ns = 500'000'000,
                                    .period_ns = 1'000'000};
    lonely.progress.push_back({.name = "ops", .visits = 40});
    w.add(lonely);
    // A name the HTML must escape, with only a baseline.
    format::ExperimentRecord pick{.time_ns = 1'300'000'000,
                                  .location = "pick<a&b>",
                                  .speedup = 0,
                                  .duration_ns = 500'000'000,
                                  .period_ns = 1'000'000};
    pick.progress.push_back({.name = "ops", .visits = 10});
    w.add(pick);
    w.close();
  }
  testing::FakeSymbols symbols;
  const Report r = build_report(load_results(find_results_files(dir.path()), {}), symbols, {});
  ASSERT_EQ(r.causal.predictions.size(), 1u);
  EXPECT_EQ(r.causal.predictions[0].location, "x_add");
  const auto* best = best_point(r.causal.predictions[0]);
  ASSERT_NE(best, nullptr);
  EXPECT_NEAR(best->program_speedup, 0.2, 1e-9);
  const std::string text = render_text(r, {});
  // One run each side: below the minimum evidence, which the verdict says first.
  EXPECT_NE(text.find("too little evidence yet: speeding up x_add by 50% would speed up the "
                      "program by about 20% (more runs before relying on it: end to end, each "
                      "run is one experiment)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  no prediction for complex_add (end to end): only baseline (0%) runs, "
                      "none sped it up"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  no prediction for lonely.cpp:3 (ops): no baseline (0%) experiment of "
                      "its own to compare with"),
            std::string::npos)
      << text;
  ASSERT_NE(text.find("Causal profile"), std::string::npos) << text;
  EXPECT_EQ(text.find(" - ", text.find("Causal profile")), std::string::npos) << text;
  const std::string json = render_json(r, {});
  EXPECT_NE(json.find("{\"location\": \"complex_add\", \"progress_point\": null, \"reason\": "
                      "\"only baseline (0%) runs, none sped it up\", \"experiments\": 1}"),
            std::string::npos)
      << json;
  const std::string html = render_html(r, {});
  EXPECT_NE(html.find("<ul class=\"note\" id=\"without-prediction\">\n<li>no prediction for "
                      "<span class=\"name\">complex_add</span> (end to end): only baseline (0%) "
                      "runs, none sped it up</li>\n"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<li>no prediction for <span class=\"name\">pick&lt;a&amp;b&gt;</span> "
                      "(<span class=\"name\">ops</span>): only baseline (0%) experiments, none "
                      "sped it up</li>"),
            std::string::npos)
      << html;
  EXPECT_LT(html.find("id=\"causal-0\""), html.find("id=\"without-prediction\""));
  const auto db = dir.path() / "causal.db";
  ASSERT_EQ(write_sqlite(r, db.string()), "");
  if (!testing::have_tool("sqlite3")) GTEST_SKIP() << "sqlite3 not installed: database not queried";
  EXPECT_EQ(run_shell("sqlite3 " + db.string() +
                      " \"SELECT location, progress_point, reason FROM causal_without_prediction "
                      "ORDER BY location\" 2>&1")
                .out,
            "complex_add||only baseline (0%) runs, none sped it up\n"
            "lonely.cpp:3|ops|no baseline (0%) experiment of its own to compare with\n"
            "pick<a&b>|ops|only baseline (0%) experiments, none sped it up\n");
}

// An automatic run's screening draws leave many locations with one experiment each; the
// text counts them in one line (by reason) instead of a line each, and keeps the lines of
// locations that had the experiments for a curve; HTML shows the same line, which opens
// on the list; JSON lists every one with its count.
TEST(CausalFormats, LocationsWithTooFewExperimentsAreCountedInOneLine) {
  TempDir dir;
  {
    testing::ProcessWriter w(dir.path() / "app.host.1.cprof", 1);
    uint64_t t = 1'000'000'000;
    const auto add = [&](const std::string& location, double speedup) {
      format::ExperimentRecord e{.time_ns = t += 100'000'000,
                                 .location = location,
                                 .speedup = speedup,
                                 .duration_ns = 100'000'000,
                                 .delay_ns = speedup > 0 ? 10'000'000u : 0u,
                                 .period_ns = 1'000'000,
                                 .selected_samples = speedup > 0 ? 20u : 0u};
      e.progress.push_back({.name = "ops", .visits = 100});
      w.add(e);
    };
    for (const char* l : {"a.c:1", "a.c:2", "a.c:3"}) add(l, 0.5);  // no baseline
    for (const char* l : {"b.c:1", "b.c:2"}) add(l, 0);             // only a baseline
    for (int i = 0; i < 4; ++i) add("tried.c:9", 0.25);             // 4, none a baseline
    w.close();
  }
  testing::FakeSymbols symbols;
  const Report r = build_report(load_results(find_results_files(dir.path()), {}), symbols, {});
  ASSERT_EQ(r.causal.without_prediction.size(), 6u);
  const std::string text = render_text(r, {});
  EXPECT_NE(text.find("  no prediction for tried.c:9 (ops): no baseline (0%) experiment of its "
                      "own to compare with\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  no prediction for 5 more locations with 1 experiment each, too few "
                      "for a curve (3 without a baseline of their own, 2 with only baselines); "
                      "causal-report --format json lists each (causal.without_prediction)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("no prediction for a.c:"), std::string::npos) << text;
  EXPECT_EQ(text.find("no prediction for b.c:"), std::string::npos) << text;
  const std::string json = render_json(r, {});
  EXPECT_NE(json.find("\"location\": \"b.c:2\", \"progress_point\": \"ops\", \"reason\": "
                      "\"only baseline (0%) experiments, none sped it up\", \"experiments\": 1}"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"location\": \"tried.c:9\", \"progress_point\": \"ops\", \"reason\": "
                      "\"no baseline (0%) experiment of its own to compare with\", "
                      "\"experiments\": 4}"),
            std::string::npos)
      << json;
  // HTML: the same line, opening on the list of the five.
  const std::string html = render_html(r, {});
  const size_t tried = html.find("<li>no prediction for <span class=\"name\">tried.c:9</span>");
  const size_t few = html.find(
      "<li><details id=\"without-prediction-few\"><summary>no prediction for 5 more locations "
      "with 1 experiment each, too few for a curve (3 without a baseline of their own, 2 with "
      "only baselines)</summary>\n<ul>\n<li>no prediction for <span class=\"name\">a.c:1</span>");
  ASSERT_NE(tried, std::string::npos) << html;
  ASSERT_NE(few, std::string::npos) << html;
  EXPECT_LT(tried, few);
  EXPECT_NE(html.find("<span class=\"name\">b.c:2</span>", few), std::string::npos) << html;
}

TEST(CausalFormats, PlotSvgHasBandCurvePointsAndAxes) {
  TempDir dir;
  const Report r = testing::causal_report(dir.path());
  const auto& hot = r.causal.predictions[0];
  const std::string svg = causal_plot_svg(hot);
  EXPECT_EQ(count(svg, "<circle class=\"pt\""), hot.points.size());
  EXPECT_EQ(count(svg, "<polygon class=\"ci\""), 1u);
  EXPECT_EQ(count(svg, "<path class=\"curve\""), 1u);
  EXPECT_NE(svg.find(">line speedup</text>"), std::string::npos);
  EXPECT_NE(svg.find(">program speedup</text>"), std::string::npos);
  EXPECT_NE(svg.find(">100%</text>"), std::string::npos);
  EXPECT_NE(svg.find("<title>hot&lt;int&gt;::run</title>"), std::string::npos);
  EXPECT_EQ(svg.find("hot<int>"), std::string::npos) << "a name not escaped";
}

TEST(CausalFormats, HtmlPlotsRenderInHeadlessChromium) {
  TempDir dir;
  const Report r = testing::causal_report(dir.path());
  const std::string html = testing::without_flame_scripts(render_html(r, {.top = 0}));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("hot<int>"), std::string::npos) << "a name not escaped";
  EXPECT_NE(html.find("<p class=\"verdict\">speeding up hot&lt;int&gt;::run by 75%"),
            std::string::npos);
  EXPECT_NE(html.find("<table id=\"regions\">"), std::string::npos);
  const auto file = dir.path() / "causal.html";
  write_file(file, html);
  const std::string chromium = testing::find_chromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "chromium not installed (Debian package chromium, scripts/install-deps.sh): "
                    "the page was not loaded";
  }
  const std::string flags = testing::chromium_flags((dir.path() / "chromium-profile").string());
  const auto dom = run_shell("HOME=" + dir.path().string() + " timeout 120 " + chromium + flags +
                             "--dump-dom file://" + file.string() + " 2>/dev/null");
  ASSERT_EQ(dom.status, 0) << dom.out;
  // The parsed DOM holds, per curve in rank order, the band with an upper and a lower
  // bound per point, the curve through every point, and the points.
  static const std::regex figure(R"re(<figure class="causal" id="causal-(\d+)">)re");
  static const std::regex polygon(R"re(<polygon class="ci"[^>]* points="([^"]+)")re");
  static const std::regex path(R"re(<path class="curve"[^>]* d="([^"]+)")re");
  std::vector<std::string> figures;
  for (auto it = std::sregex_iterator(dom.out.begin(), dom.out.end(), figure);
       it != std::sregex_iterator(); ++it) {
    figures.push_back((*it)[1]);
  }
  EXPECT_EQ(figures, (std::vector<std::string>{"0", "1", "2", "3"})) << dom.out;
  size_t bands = 0, curves = 0;
  for (auto it = std::sregex_iterator(dom.out.begin(), dom.out.end(), polygon);
       it != std::sregex_iterator(); ++it, ++bands) {
    const auto xy = coordinates((*it)[1]);
    ASSERT_EQ(xy.size(), 4u * 4) << (*it)[1];  // 4 points (0, 25, 50, 75%), 2 bounds, x and y
    for (size_t i = 0; i < xy.size(); i += 2) {
      EXPECT_GE(xy[i], 64);  // inside the plot area
      EXPECT_LE(xy[i], 520 - 16);
    }
    // The upper bound is above (smaller y than) the lower bound at the last point.
    EXPECT_LT(xy[7], xy[9]);
  }
  for (auto it = std::sregex_iterator(dom.out.begin(), dom.out.end(), path);
       it != std::sregex_iterator(); ++it, ++curves) {
    EXPECT_EQ(coordinates((*it)[1]).size(), 8u) << (*it)[1];
  }
  EXPECT_EQ(bands, 4u);
  EXPECT_EQ(curves, 4u);
  EXPECT_EQ(count(dom.out, "<circle class=\"pt\""), 16u);
  // The hot curve rises: its last point is higher (smaller y) than its first.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom.out, m, path));
  const auto hot = coordinates(m[1]);
  EXPECT_LT(hot[7], hot[1] - 50);
  // And the page paints: a screenshot is written and is not blank.
  const auto png = dir.path() / "shot.png";
  const auto shot = run_shell("HOME=" + dir.path().string() + " timeout 120 " + chromium + flags +
                              "--window-size=900,1200 --screenshot=" + png.string() + " file://" +
                              file.string() + " >/dev/null 2>&1");
  EXPECT_EQ(shot.status, 0);
  ASSERT_TRUE(fs::exists(png));
  EXPECT_GT(fs::file_size(png), 20'000u);
}

TEST(CausalFormats, SqliteCausalTablesQueriedWithTheShell) {
  TempDir dir;
  const auto db = dir.path() / "causal.db";
  ASSERT_EQ(write_sqlite(testing::causal_report(dir.path()), db.string()), "");
  if (!testing::have_tool("sqlite3")) GTEST_SKIP() << "sqlite3 not installed: database not queried";
  const auto q = [&](const std::string& sql) {
    return run_shell("sqlite3 " + db.string() + " \"" + sql + "\" 2>&1").out;
  };
  EXPECT_EQ(q("SELECT COUNT(*), SUM(speedup = 0), MIN(process_id), MAX(process_id) FROM experiments"),
            "26|8|0|0\n");
  EXPECT_EQ(
      q("SELECT location, speedup, duration_ns, delay_ns, effective_ns, selected_samples, mode "
        "FROM experiments WHERE id = 17"),
      "hot<int>::run|0.25|1000000000|150000000|850000000|40|progress\n");
  EXPECT_EQ(q("SELECT kind, COUNT(*), SUM(arrivals - departures) FROM progress GROUP BY name "
              "ORDER BY name"),
            "throughput|26|0\nlatency|26|26\n");
  EXPECT_EQ(q("SELECT e.location, p.visits > 900 FROM progress p JOIN experiments e ON e.id = "
              "p.experiment_id WHERE p.name = 'ops' AND e.id = 0"),
            "cold.cpp:7|1\n");
  EXPECT_EQ(q("SELECT name, count, mean_ns, min_ns, max_ns, ROUND(stddev_ns) FROM regions"),
            "req|4|2500000.0|1000000|4000000|1290994.0\n");
  EXPECT_EQ(q("SELECT DISTINCT rank, location, progress_point FROM predictions ORDER BY rank"),
            "0|hot<int>::run|req\n1|hot<int>::run|ops\n2|cold.cpp:7|req\n3|cold.cpp:7|ops\n");
  EXPECT_EQ(q("SELECT COUNT(*) FROM predictions WHERE ci_low IS NULL"), "0\n");
}

TEST(CausalFormats, ChromeTraceHasTheExperimentTrack) {
  TempDir dir;
  const std::string trace = render_chrome(testing::causal_report(dir.path(), true));
  EXPECT_NE(trace.find("\"name\": \"thread_name\", \"args\": {\"name\": \"causal experiments\"}"),
            std::string::npos)
      << trace.substr(0, 2000);
  EXPECT_EQ(count(trace, "\"cat\": \"experiment\""), 26u);
  // The first experiment starts 0.1 s after the process (1.1 s vs 1.0 s monotonic).
  EXPECT_NE(trace.find("\"ph\": \"X\", \"pid\": 1, \"tid\": 1000000001, \"ts\": 100000, \"dur\": "
                       "1000000, \"name\": \"cold.cpp:7 +0%\""),
            std::string::npos)
      << trace.substr(0, 3000);
  EXPECT_EQ(count(trace, "\"name\": \"progress ops per s\""), 2u * 26);
  EXPECT_EQ(count(trace, "\"name\": \"region req\""), 1u);
  const auto file = dir.path() / "trace.json";
  write_file(file, trace);
  if (!testing::have_tool("python3")) GTEST_SKIP() << "python3 not installed: JSON not parsed";
  const auto parsed = run_shell("python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); "
                                "print(sum(e.get(\"cat\")==\"experiment\" for e in t[\"traceEvents\"]))' " +
                                file.string() + " 2>&1");
  EXPECT_EQ(parsed.out, "26\n");
}

}  // namespace
}  // namespace cprof::report
