// The GPU sections of every format on the fixture of gpu_fixture.h: text tables (and
// their absence without GPU data), JSON fields read back by Python, HTML escaping,
// chrome-trace flow events paired launch to execution, and the SQLite tables queried
// with the sqlite3 shell.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "report/render/render.h"
#include "tests/report/gpu_fixture.h"
#include "tests/report/tool_shell.h"

namespace cprof::report {
namespace {

using testing::gpu_report;
using testing::have_tool;
using testing::python_on_json;
using testing::run_shell;
using testing::TempDir;
using testing::write_file;

TEST(GpuText, TablesFitAndSayWhatTheyAre) {
  TempDir dir;
  const auto r = gpu_report(dir.path());
  const auto text = render_text(r, {});
  EXPECT_NE(text.find("GPU: 7 kernels (6 timed, 530 us of kernel time), 3 copies (2.5 MB) on 2 "
                      "devices; recorded by hsa"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("GPU kernels by total time (top 3 of 3)"), std::string::npos);
  EXPECT_NE(text.find("[unknown kernel]"), std::string::npos);
  EXPECT_NE(text.find("(1 call without device times"), std::string::npos);
  EXPECT_NE(text.find("GPU kernel time by launching function (top 4 of 4"), std::string::npos);
  EXPECT_NE(text.find("launch_a"), std::string::npos);
  EXPECT_NE(text.find("a.cpp:10"), std::string::npos);
  EXPECT_NE(text.find("[no launch stack]"), std::string::npos);
  EXPECT_NE(text.find("Idle gaps between kernels"), std::string::npos);
  EXPECT_NE(text.find("gfx90a on testhost"), std::string::npos);
  EXPECT_NE(text.find("host to device"), std::string::npos);
  EXPECT_NE(text.find("10.00"), std::string::npos);  // GB/s
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) EXPECT_LE(l.size(), 100u) << l;

  // --top 1 limits the kernel and launch rows; --by line and --view tree change them.
  RenderOptions o;
  o.top = 1;
  o.by = RowKind::line;
  o.view = View::flat;
  const auto top1 = render_text(r, o);
  EXPECT_NE(top1.find("GPU kernels by total time (top 1 of 3)"), std::string::npos) << top1;
  EXPECT_NE(top1.find("GPU kernel time by launching line (top 1 of"), std::string::npos) << top1;
  o.top = 0;
  o.by = RowKind::function;
  o.view = View::tree;
  const auto tree = render_text(r, o);
  EXPECT_NE(tree.find("GPU kernel time by launch stack, top-down (4 nodes)"), std::string::npos)
      << tree;
  EXPECT_NE(tree.find("    launch_a"), std::string::npos) << tree;
}

TEST(GpuText, NoGpuDataNoSection) {
  TempDir dir;
  testing::ProcessWriter w(dir.path() / "app.testhost.1.cprof", 1);
  w.sample(1, {0x1010});
  w.close();
  const auto r = gpu_report(dir.path(), false);
  const auto text = render_text(r, {});
  EXPECT_EQ(text.find("GPU"), std::string::npos) << text;
  EXPECT_EQ(render_html(r, {}).find("id=\"gpu\""), std::string::npos);
  const auto json = render_json(r, {.top = 0});
  EXPECT_NE(json.find("\"gpu\": null"), std::string::npos);
  EXPECT_EQ(render_chrome(r).find("gpu."), std::string::npos);
}

TEST(GpuJson, KernelsWithStatsAndLaunchSites) {
  TempDir dir;
  const auto r = gpu_report(dir.path());
  const auto file = dir.path() / "report.json";
  write_file(file, render_json(r, {.top = 0}));
  if (!have_tool("python3")) GTEST_SKIP() << "python3 not installed: JSON not parsed";
  EXPECT_EQ(python_on_json(file, R"py(
g = d["gpu"]
print(g["summary"]["kernels"], g["summary"]["kernel_time_ns"], g["summary"]["engines"])
k = g["kernels"][0]
print(k["name"], k["calls"], k["total_ns"], k["min_ns"], k["max_ns"], round(k["mean_ns"]),
      k["stddev_ns"] > 0, k["untimed_calls"])
s = k["launch_sites"][0]
print(s["function"], s["file"], s["line"], s["calls"], s["time_ns"])
print(g["kernels"][1]["name"], g["kernels"][1]["untimed_calls"], g["kernels"][2]["name"])
f = g["launch_functions"]
print([(x["function"], x["self"]["calls"], x["total"]["time_ns"]) for x in f])
print(g["launch_lines"][0]["location"])
print([(n["function"], n["total_ns"]) for n in g["launch_tree"] if n["parent"] == 0])
dev = g["devices"][0]
print(dev["name"], dev["kind"], dev["busy_ns"], dev["span_ns"], dev["idle_gaps"]["counts"],
      dev["idle_gaps"]["bounds_us"])
print([(c["direction"], c["count"], c["bytes"], c["gb_per_s"]) for c in g["copies"]])
)py"),
            "7 530000 ['hsa']\n"
            "square(float*, int) 3 230000 35000 100000 76667 True 0\n"
            "launch_a /src/a.cpp 10 3 230000\n"
            "scale 1 [unknown kernel]\n"
            "[('launch_a', 3, 230000), ('launch_b', 3, 200000), ('[no launch stack]', 1, 100000), "
            "('main', 0, 430000)]\n"
            "/src/a.cpp:10\n"
            "[('main', 430000), ('[no launch stack]', 100000)]\n"
            "gfx90a gpu 480000 201500000 [1, 1, 0, 0, 0, 1, 0, 1] [10, 20, 50, 100, 1000, 10000, "
            "100000]\n"
            "[('host to device', 2, 2000000, 10), ('device to host', 1, 500000, 0)]\n");
}

TEST(GpuHtml, SectionWithEscapedNames) {
  TempDir dir;
  testing::write_gpu_results(dir.path());
  {
    testing::GpuFileWriter g(dir.path() / "app.testhost.300.gpu.1.cprof", 300);
    g.device(1, "gfx<90a>", format::GpuDeviceKind::gpu);
    g.kernel("vec<float>::add&<script>", 0, 10, 1, {0x1011}, false);
  }
  const auto html = testing::without_flame_scripts(render_html(gpu_report(dir.path(), false), {}));
  for (const char* id : {"id=\"gpu\"", "id=\"gpu-kernels\"", "id=\"gpu-launch-functions\"",
                         "id=\"gpu-launch-lines\"", "id=\"gpu-devices\"", "id=\"gpu-copies\""}) {
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
  EXPECT_NE(html.find("vec&lt;float&gt;::add&amp;&lt;script&gt;"), std::string::npos);
  EXPECT_NE(html.find("gfx&lt;90a&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
}

TEST(GpuChrome, FlowArrowsPairLaunchToExecution) {
  TempDir dir;
  const auto r = gpu_report(dir.path());
  const auto file = dir.path() / "trace.json";
  write_file(file, render_chrome(r));
  if (!have_tool("python3")) GTEST_SKIP() << "python3 not installed: JSON not parsed";
  // Every "s" has one "f" of the same id; the "s" is on the launching thread of the CPU
  // process (pid 1, tid 1) at a launch slice; the "f" at the start of a GPU slice.
  EXPECT_EQ(python_on_json(file, R"py(
ev = d["traceEvents"]
s = {e["id"]: e for e in ev if e["ph"] == "s"}
f = {e["id"]: e for e in ev if e["ph"] == "f"}
print(len(s), len(f), sorted(s) == sorted(f))
gpu = {(e["pid"], e["tid"], e["ts"]) for e in ev if e["ph"] == "X" and e.get("cat") in ("gpu.kernel", "gpu.copy")}
launch = {(e["pid"], e["tid"], e["ts"]) for e in ev if e["ph"] == "X" and e.get("cat") == "gpu.launch"}
print(all((x["pid"], x["tid"], x["ts"]) in launch and x["pid"] == 1 and x["tid"] == 1 for x in s.values()))
print(all((x["pid"], x["tid"], x["ts"]) in gpu and x["bp"] == "e" for x in f.values()))
print(all(s[i]["ts"] <= f[i]["ts"] for i in s))
names = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] in ("process_name", "thread_name") and e["pid"] >= 2}
print(sorted(names))
print(sorted({e["name"] for e in ev if e.get("cat") == "gpu.kernel"}))
)py"),
            "8 8 True\nTrue\nTrue\nTrue\n"
            "['GPU gfx90a on testhost', 'copies', 'queue 1 of app[300]', 'queue 2 of app[300]']\n"
            "['[unknown kernel]', 'scale', 'square(float*, int)']\n");
}

TEST(GpuChrome, BudgetCutsTheEarliestFirst) {
  TempDir dir;
  const auto r = gpu_report(dir.path());
  const auto trace = render_chrome(r, 32);  // a quarter: two items of four events
  EXPECT_NE(trace.find("GPU trace cut: the first 2 of 8 kernels and copies drawn"),
            std::string::npos)
      << trace;
}

TEST(GpuSqlite, TablesQueriedWithTheShell) {
  TempDir dir;
  const auto db = dir.path() / "profile.db";
  ASSERT_EQ(write_sqlite(gpu_report(dir.path()), db.string()), "");
  if (!have_tool("sqlite3")) GTEST_SKIP() << "sqlite3 not installed: database not queried";
  const auto q = [&](const std::string& sql) {
    return run_shell("sqlite3 " + db.string() + " \"" + sql + "\" 2>&1").out;
  };
  EXPECT_EQ(q("SELECT name, calls, total_ns, min_ns, max_ns FROM kernel_summary"),
            "square(float*, int)|3|230000|35000|100000\nscale|3|200000|100000|100000\n"
            "[unknown kernel]|1|100000|100000|100000\n");
  // Kernel time by launching function, through the launch site columns.
  EXPECT_EQ(q("SELECT f.name, COUNT(*), SUM(k.duration_ns) FROM kernels k JOIN functions f ON "
              "f.id = k.launch_function_id GROUP BY f.id ORDER BY 3 DESC"),
            "launch_a|3|230000\nlaunch_b|3|200000\n");
  // ... and through the launch stacks, with the samples' joins: main is on 6 of them.
  EXPECT_EQ(q("SELECT COUNT(*) FROM kernels k WHERE k.stack_id IN (SELECT sf.stack_id FROM "
              "stack_frames sf JOIN location_frames lf ON lf.location_id = sf.location_id JOIN "
              "functions f ON f.id = lf.function_id WHERE f.name = 'main')"),
            "6\n");
  EXPECT_EQ(q("SELECT name, kind, kernels, queues, busy_ns, span_ns FROM gpu_devices ORDER BY id"),
            "gfx90a|gpu|7|2|480000|201500000\ncpu-agent|cpu|0|0|0|0\n");
  EXPECT_EQ(q("SELECT low_us, high_us, gaps FROM gpu_idle_gaps WHERE device_id = 0 AND gaps > 0"),
            "0|10|1\n10|20|1\n1000|10000|1\n100000||1\n");
  EXPECT_EQ(q("SELECT direction, COUNT(*), SUM(bytes), SUM(duration_ns) FROM copies GROUP BY "
              "direction ORDER BY direction"),
            "device to host|1|500000|\nhost to device|2|2000000|200000\n");
  EXPECT_EQ(q("SELECT COUNT(*) FROM kernels WHERE thread_id IS NOT NULL AND duration_ns IS NULL"),
            "1\n");
}

}  // namespace
}  // namespace cprof::report
