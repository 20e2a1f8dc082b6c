// The HTML page's interactive flame graph (report/render/html_flame.h): the data it
// carries, and the script driven in headless Chromium through the page's address
// (#flame-search=..., #flame-zoom=...).

#include "report/render/html_flame.h"

#include <gtest/gtest.h>

#include <regex>

#include "report/load/json_value.h"
#include "report/render/render.h"
#include "tests/report/tool_shell.h"
#include "tests/report/views_fixture.h"

namespace cprof::report {
namespace {

using testing::TempDir;

// The views fixture's tree, 7 ms: main 7 > { compute 4 > helper<int> 4, work 3 }, with
// `work` named as given.
Report views_with_work_named(const std::filesystem::path& dir, const std::string& work) {
  testing::write_views_results(dir);
  testing::FakeSymbols symbols;
  symbols.add(0x1000, 0x1100, {{.function = work, .file = "/src/w.cpp", .line = 10}});
  symbols.add(0x2000, 0x2100,
              {{.function = "helper<int>", .file = "/src/h.h", .line = 5},
               {.function = "compute", .file = "/src/c.cpp", .line = 20}});
  symbols.add(0x3000, 0x3100, {{.function = "main", .file = "/src/m.cpp", .line = 30}});
  return build_report(load_results(find_results_files(dir)), symbols, {.call_tree = true});
}

// The JSON of the page's flame-data block.
JsonValue flame_data(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"flame-data\">";
  const size_t at = html.find(open);
  if (at == std::string::npos) throw std::runtime_error("no flame-data block");
  const size_t end = html.find("</script>", at);
  return parse_json(html.substr(at + open.size(), end - at - open.size()));
}

TEST(HtmlFlame, DataHoldsTheTreeWidestFirstAndNeverEndsItsScript) {
  TempDir dir;
  std::string html;
  html_flame_graph(html, views_with_work_named(dir.path(), "work</script><b>"));
  // A name holding "</script>" would end the data block early: it is written "<\/".
  EXPECT_NE(html.find(R"("work<\/script><b>")"), std::string::npos) << html;
  const JsonValue d = flame_data(html);
  EXPECT_EQ(d.find("unit")->text, "ns");
  EXPECT_EQ(d.find("left_out")->text, "0");
  const auto& names = d.find("names")->items;
  const auto& nodes = d.find("nodes")->items;
  ASSERT_EQ(nodes.size(), 5u * 4);  // root, main, compute, helper<int>, work
  // Depth first, widest child first: (parent, name, total, self) per node.
  const auto node = [&](size_t i) {
    return std::vector<std::string>{nodes[4 * i].text,
                                    i == 0 ? "" : names.at(std::stoul(nodes[4 * i + 1].text)).text,
                                    nodes[4 * i + 2].text, nodes[4 * i + 3].text};
  };
  EXPECT_EQ(node(0), (std::vector<std::string>{"-1", "", "7000000", "0"}));
  EXPECT_EQ(node(1), (std::vector<std::string>{"0", "main", "7000000", "0"}));
  EXPECT_EQ(node(2), (std::vector<std::string>{"1", "compute", "4000000", "0"}));
  EXPECT_EQ(node(3), (std::vector<std::string>{"2", "helper<int>", "4000000", "4000000"}));
  EXPECT_EQ(node(4), (std::vector<std::string>{"1", "work</script><b>", "3000000", "3000000"}));
}

TEST(HtmlFlame, ALargeTreeKeepsItsWidestNodesAndSaysHowManyItLeftOut) {
  TempDir dir;
  std::string html;
  html_flame_graph(html, testing::views_report(dir.path()), /*max_nodes=*/3);
  const JsonValue d = flame_data(html);
  // The root and the two widest below it (main 7 ms, compute 4 ms; helper<int> ties
  // with compute but comes after it), each with its parent.
  ASSERT_EQ(d.find("nodes")->items.size(), 3u * 4);
  EXPECT_EQ(d.find("left_out")->text, "2");
  EXPECT_NE(html.find("(2 of the tree's 4 nodes, the narrowest, left out)"), std::string::npos)
      << html;
}

TEST(HtmlFlame, SearchAndZoomFromThePagesAddressInHeadlessChromium) {
  const std::string chromium = testing::find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium not installed: the flame graph's script not run";
  TempDir dir;
  const auto file = dir.path() / "report.html";
  testing::write_file(file, render_html(testing::views_report(dir.path()), {.top = 0}));
  // Node 2 is compute (depth first, widest first); helper<int> is 4 of the 7 ms.
  const auto dom = testing::run_shell(
      "HOME=" + dir.path().string() + " timeout 120 " + chromium +
      testing::chromium_flags((dir.path() / "chromium-profile").string()) + "--dump-dom 'file://" +
      file.string() + "#flame-search=HELPER%3C&flame-zoom=2' 2>/dev/null");
  ASSERT_EQ(dom.status, 0) << dom.out;
  // The script ran: the static icicle is hidden, the interactive one drawn.
  EXPECT_NE(dom.out.find("id=\"icicle-static\" style=\"display: none;\""), std::string::npos)
      << dom.out;
  EXPECT_NE(dom.out.find("<div id=\"flame\" style=\"\">"), std::string::npos) << dom.out;
  // The search is a case-insensitive regular expression; its share is the matches' time.
  EXPECT_NE(dom.out.find("<span id=\"flame-match\" data-share=\"0.5714\">matched: 57.14% of the "
                         "time (1 box)</span>"),
            std::string::npos)
      << dom.out;
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(dom.out, m, std::regex(R"re(<svg id="flame-svg"[^>]* width="(\d+)")re")))
      << dom.out;
  const std::string width = m[1];
  EXPECT_NE(dom.out.find("data-zoom=\"2\""), std::string::npos);
  // Zoomed: compute spans the whole width, and so do its ancestors above it, dimmed;
  // work, beside compute, is not drawn.
  EXPECT_NE(dom.out.find("<g data-node=\"2\"><rect x=\"0.0\" y=\"34\" width=\"" + width + ".0\""),
            std::string::npos)
      << dom.out;
  EXPECT_NE(dom.out.find("<g data-node=\"1\"><rect x=\"0.0\" y=\"17\" width=\"" + width +
                         ".0\" height=\"16\" fill=\""),
            std::string::npos);
  EXPECT_NE(dom.out.find("<g data-node=\"3\"><rect x=\"0.0\" y=\"51\" width=\"" + width + ".0\""),
            std::string::npos);
  EXPECT_EQ(dom.out.find("<g data-node=\"4\">"), std::string::npos) << dom.out;
  // The match is highlighted.
  EXPECT_NE(dom.out.find("width=\"" + width + ".0\" height=\"16\" fill=\"rgb(200,60,230)\""),
            std::string::npos);
}

// causal-report --diff BASE DIR --format html: each box of the new run's tree carries
// the base run's total on the same call path, and is coloured by the change of its
// share: `work` renamed is a path the base run does not have (+3/7 of the time, the
// largest change: full red); compute's share is as before (almost white).
TEST(HtmlFlame, TheDifferentialGraphColoursEachPathByItsChange) {
  TempDir base_dir, now_dir;
  const Report base = testing::views_report(base_dir.path());
  const Report now = views_with_work_named(now_dir.path(), "work_renamed");
  const std::string html = render_html_diff(base, now, "base", "new", {.top = 0});
  EXPECT_NE(html.find("<table id=\"diff\">"), std::string::npos) << html;
  EXPECT_NE(html.find("<td class=\"name\">work_renamed <span class=\"note\">w.cpp:10</span>"),
            std::string::npos)
      << html;
  const JsonValue d = flame_data(html);
  ASSERT_NE(d.find("base"), nullptr);
  std::vector<std::string> totals;
  for (const auto& v : d.find("base")->items) totals.push_back(v.text);
  // root, main, compute, helper<int>, work_renamed
  EXPECT_EQ(totals, (std::vector<std::string>{"7000000", "7000000", "4000000", "4000000", "0"}));
  EXPECT_EQ(d.find("base_total")->text, "7000000");

  const std::string chromium = testing::find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "chromium not installed: the colours not drawn";
  const auto file = now_dir.path() / "diff.html";
  testing::write_file(file, html);
  const auto dom =
      testing::run_shell("HOME=" + now_dir.path().string() + " timeout 120 " + chromium +
                         testing::chromium_flags((now_dir.path() / "chromium-profile").string()) +
                         "--dump-dom 'file://" + file.string() + "' 2>/dev/null");
  ASSERT_EQ(dom.status, 0) << dom.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(dom.out, m,
                                std::regex(R"re(<g data-node="4"><rect [^>]* fill="([^"]+)")re")))
      << dom.out;
  EXPECT_EQ(m[1], "rgb(255,60,60)");
  ASSERT_TRUE(std::regex_search(dom.out, m,
                                std::regex(R"re(<g data-node="2"><rect [^>]* fill="([^"]+)")re")));
  EXPECT_EQ(m[1], "rgb(255,240,240)");
}

}  // namespace
}  // namespace cprof::report
