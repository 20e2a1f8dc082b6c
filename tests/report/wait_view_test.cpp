// Where threads waited (profile/wait_view.h, `causal-report --by wait`): off CPU is the
// wall-clock time of a (call, caller) less its CPU time, the call being the one the
// program made into a library and the caller the program's own code that made it.
#include <gtest/gtest.h>

#include "report/render/render.h"
#include "report/report.h"
#include "tests/report/fake_symbols.h"
#include "tests/report/results_fixture.h"
#include "tests/report/tool_shell.h"

namespace cprof::report {
namespace {

using format::SampleClock;
using testing::kLoadBias;
using testing::ProcessWriter;
using testing::TempDir;

constexpr uint64_t kMs = 1'000'000;
// Frames in libc and liblzma, given as the fixture wants them (the main module's ELF
// addresses): each library is mapped where these land, its ELF addresses from 0x5000
// (libc) and 0x6000 (liblzma).
constexpr uint64_t kLibc = 0x200000;
constexpr uint64_t kLzma = 0x300000;

void map_library(ProcessWriter& w, uint32_t id, const std::string& path, uint64_t at) {
  w.add(format::ModuleRecord{.id = id,
                             .path = path,
                             .build_id = "lib" + std::to_string(id),
                             .load_bias = kLoadBias + at,
                             .start = kLoadBias + at + 0x1000,
                             .end = kLoadBias + at + 0x10000,
                             .time_ns = 1'000'000'000});
}

// main computes (own code, as much wall as CPU time); a consumer waits in
// pthread_cond_wait through a template inlined from a system header; a thread liblzma
// started reads without entering the program's code.
// With `lzma_computes`, liblzma's thread also computes in its own code for 30 ms, off CPU
// for 10 ms of it.
void write_waits(const std::filesystem::path& dir, const std::string& clock = "cpu+wall",
                 bool lzma_computes = false) {
  ProcessWriter w(dir / "app.host.10.cprof", 10, -1, clock);
  map_library(w, 1, "/lib/x86_64-linux-gnu/libc.so.6", kLibc);
  map_library(w, 2, "/usr/lib/x86_64-linux-gnu/liblzma.so.5", kLzma);
  w.thread(1, "main");
  w.thread(2, "consumer");
  w.thread(3, "lzma-worker");
  const std::vector<uint64_t> computing = {0x1010, 0x3010};
  const std::vector<uint64_t> waiting = {kLibc + 0x5010, kLibc + 0x5110, 0x1190, kLibc + 0x5310};
  const std::vector<uint64_t> reading = {kLibc + 0x5210, kLzma + 0x6010, kLibc + 0x5310};
  for (int i = 0; i < 50; ++i) {
    w.sample(1, computing, SampleClock::cpu);
    w.sample(1, computing, SampleClock::wall);
  }
  for (int i = 0; i < 100; ++i) w.sample(2, waiting, SampleClock::wall);
  for (int i = 0; i < 2; ++i) w.sample(2, waiting, SampleClock::cpu);
  for (int i = 0; i < 40; ++i) w.sample(3, reading, SampleClock::wall);
  const std::vector<uint64_t> encoding = {kLzma + 0x6110, kLzma + 0x6010, kLibc + 0x5310};
  for (int i = 0; lzma_computes && i < 30; ++i) {
    w.sample(3, encoding, SampleClock::wall);
    if (i < 20) w.sample(3, encoding, SampleClock::cpu);
  }
  w.close();
}

Report report(const std::filesystem::path& dir, ClockChoice clock = ClockChoice::automatic) {
  testing::FakeSymbols s;
  s.add(0x1000, 0x1100, {{.function = "work", .file = "/src/app.cpp", .line = 10}});
  s.add(0x1100, 0x1180, {{.function = "consumer", .file = "/src/app.cpp", .line = 20}});
  s.add(0x1180, 0x1200,
        {{.function = "std::condition_variable::wait<consumer()::{lambda()#1}>",
          .file = "/usr/include/c++/12/condition_variable",
          .line = 102},
         {.function = "consumer", .file = "/src/app.cpp", .line = 22}});
  s.add(0x1200, 0x1280, {{.function = "consumer", .file = "/src/app.cpp", .line = 22}});
  s.add(0x3000, 0x3100, {{.function = "main", .file = "/src/app.cpp", .line = 30}});
  s.add(0x5000, 0x5100,
        {{.function = "__futex_abstimed_wait_common64",
          .file = "../sysdeps/nptl/futex-internal.c",
          .line = 57}});
  s.add(
      0x5100, 0x5200,
      {{.function = "pthread_cond_wait@@GLIBC_2.3.2", .file = "pthread_cond_wait.c", .line = 615}});
  s.add(0x5200, 0x5300, {{.function = "__GI___libc_read", .file = "read.c", .line = 26}});
  s.add(0x5300, 0x5400, {{.function = "start_thread", .file = "pthread_create.c", .line = 442}});
  s.add(0x6000, 0x6100, {{.function = "worker_start", .file = "stream_encoder_mt.c", .line = 400}});
  s.add(0x6100, 0x6200, {{.function = "lz_encode", .file = "lz_encoder.c", .line = 190}});
  return build_report(load_results(find_results_files(dir), {.clock = clock}), s);
}

const WaitRow* row_of(const Report& r, const std::string& call) {
  for (const auto& row : r.waits.rows) {
    if (wait_call_name(r.symbols.table, row) == call) return &row;
  }
  return nullptr;
}

std::string caller_of(const Report& r, const WaitRow& row) {
  if (!row.has_caller) return "-";
  const auto& line = r.symbols.table.lines[row.caller_line];
  return r.symbols.table.functions[row.caller].name + " " + line.file + ":" +
         std::to_string(line.line);
}

TEST(ReportWaits, EachWaitIsTheCallIntoALibraryAndTheProgramsCodeThatMadeIt) {
  TempDir dir;
  write_waits(dir.path());
  const Report r = report(dir.path());
  const WaitView& w = r.waits;
  EXPECT_EQ(w.processes, 1u);
  EXPECT_EQ(w.threads, 3u);
  EXPECT_EQ(w.wall.time_ns, 190 * kMs);
  EXPECT_EQ(w.cpu.time_ns, 52 * kMs);
  EXPECT_EQ(w.off_cpu_ns(), 138 * kMs);
  ASSERT_EQ(w.rows.size(), 3u);
  EXPECT_EQ(w.rows_standing_out(), 2u);

  // Not glibc's futex internals, and not the template from the system header: the call
  // the program made and the line of its own code that made it.
  ASSERT_EQ(&w.rows[0], row_of(r, "pthread_cond_wait"));
  EXPECT_EQ(caller_of(r, w.rows[0]), "consumer /src/app.cpp:22");
  EXPECT_EQ(w.rows[0].off_cpu_ns(), 98 * kMs);
  EXPECT_EQ(w.rows[0].wall.samples, 100u);
  EXPECT_EQ(w.rows[0].cpu.samples, 2u);
  EXPECT_EQ(w.rows[0].threads, 1u);
  // 1.96 · 1 ms · sqrt(100 + 2)
  EXPECT_NEAR(static_cast<double>(w.rows[0].half_width_ns), 1.96 * kMs * std::sqrt(102.0), 1e3);
  EXPECT_TRUE(w.rows[0].stands_out);

  // A thread that never enters the program's code: the innermost library's call, and the
  // library function that made it.
  ASSERT_EQ(&w.rows[1], row_of(r, "read"));
  EXPECT_EQ(caller_of(r, w.rows[1]), "worker_start stream_encoder_mt.c:400");
  EXPECT_EQ(w.rows[1].off_cpu_ns(), 40 * kMs);

  // main's own code ran all its wall-clock time: nothing off CPU, last.
  ASSERT_EQ(&w.rows[2], row_of(r, "(its own code)"));
  EXPECT_TRUE(w.rows[2].own_code);
  EXPECT_EQ(caller_of(r, w.rows[2]), "work /src/app.cpp:10");
  EXPECT_EQ(w.rows[2].off_cpu_ns(), 0);
  EXPECT_FALSE(w.rows[2].stands_out);
}

// A thread liblzma started, computing in liblzma's code and preempted there: that is the
// library's own code, not a call named after liblzma's thread function that would read
// as a wait; its waits in libc stay calls made by liblzma.
TEST(ReportWaits, AThreadALibraryStartedRunsItsOwnCode) {
  TempDir dir;
  write_waits(dir.path(), "cpu+wall", true);
  const Report r = report(dir.path());
  const WaitRow* reading = row_of(r, "read");
  ASSERT_NE(reading, nullptr);
  EXPECT_EQ(caller_of(r, *reading), "worker_start stream_encoder_mt.c:400");
  EXPECT_EQ(reading->off_cpu_ns(), 40 * kMs);
  const WaitRow* encoding = nullptr;
  for (const auto& row : r.waits.rows) {
    if (row.own_code && caller_of(r, row) == "lz_encode lz_encoder.c:190") encoding = &row;
  }
  ASSERT_NE(encoding, nullptr);
  EXPECT_EQ(encoding->off_cpu_ns(), 10 * kMs);
  EXPECT_EQ(row_of(r, "worker_start"), nullptr);
}

// Own code whose innermost frame is a system header's function inlined into it (here the
// template inlined at consumer's line 22) is that line's own code: one row with the
// line's code outside the template, not two rows that read the same.
TEST(ReportWaits, OwnCodeIsOneRowPerOwnLineWhateverHeaderCodeIsInlinedThere) {
  TempDir dir;
  {
    ProcessWriter w(dir.path() / "app.host.10.cprof", 10, -1, "cpu+wall");
    w.thread(1, "main");
    for (int i = 0; i < 10; ++i) {
      w.sample(1, {0x1190, 0x3010}, SampleClock::wall);  // the template inlined at line 22
      w.sample(1, {0x1210, 0x3010}, SampleClock::wall);  // line 22's own code
      w.sample(1, {0x1110, 0x3010}, SampleClock::wall);  // line 20
    }
    w.close();
  }
  const Report r = report(dir.path());
  std::vector<std::string> rows;
  for (const auto& row : r.waits.rows) rows.push_back(caller_of(r, row));
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(rows,
            (std::vector<std::string>{"consumer /src/app.cpp:20", "consumer /src/app.cpp:22"}));
  for (const auto& row : r.waits.rows) {
    EXPECT_EQ(row.wall.samples, caller_of(r, row).ends_with(":22") ? 20u : 10u);
  }
}

TEST(ReportWaits, TheViewIsTheSameWhicheverClockTheProfileShows) {
  TempDir dir;
  write_waits(dir.path());
  const Report wall = report(dir.path(), ClockChoice::wall);
  const Report cpu = report(dir.path(), ClockChoice::cpu);
  ASSERT_EQ(cpu.processes[0].clock, SampleClock::cpu);
  ASSERT_EQ(wall.waits.rows.size(), cpu.waits.rows.size());
  for (size_t i = 0; i < wall.waits.rows.size(); ++i) {
    EXPECT_EQ(wait_call_name(wall.symbols.table, wall.waits.rows[i]),
              wait_call_name(cpu.symbols.table, cpu.waits.rows[i]));
    EXPECT_EQ(wall.waits.rows[i].off_cpu_ns(), cpu.waits.rows[i].off_cpu_ns());
  }
}

TEST(ReportWaits, AProcessSampledOnTheCpuClockAloneHasNoView) {
  TempDir dir;
  write_waits(dir.path(), "cpu");  // its wall samples are not a wall clock's: ignored
  const Report r = report(dir.path());
  EXPECT_EQ(r.waits.processes, 0u);
  EXPECT_TRUE(r.waits.rows.empty());
  EXPECT_EQ(render_text(r, {}).find("Off CPU"), std::string::npos);
}

TEST(ReportWaits, TextJsonAndHtmlShowTheCallsAndCallers) {
  TempDir dir;
  write_waits(dir.path());
  const Report r = report(dir.path());
  const std::string table = render_text(r, {.by = RowKind::wait});
  EXPECT_NE(table.find("138 ms off CPU of 190 ms of wall-clock time (72.6%)"), std::string::npos)
      << table;
  EXPECT_NE(table.find("  1  pthread_cond_wait  consumer (app.cpp:22)"), std::string::npos)
      << table;
  EXPECT_NE(table.find("not shown: 1 call and caller whose off-CPU time is within the sampling "
                       "noise"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("futex"), std::string::npos) << table;
  // The function table ends with the largest wait and points to the view.
  const std::string functions = render_text(r, {.width = 400});  // the line unwrapped
  EXPECT_NE(functions.find("Off CPU: 138 ms of 190 ms of wall-clock time (72.6%), the most in "
                           "pthread_cond_wait called from consumer (app.cpp:22): 98 ms"),
            std::string::npos)
      << functions;

  const std::string json = render_json(r, {});
  EXPECT_NE(json.find("\"off_cpu_ns\": 138000000"), std::string::npos) << json;
  EXPECT_NE(json.find("\"call\": \"pthread_cond_wait\", \"symbol\": "
                      "\"pthread_cond_wait@@GLIBC_2.3.2\""),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"called_from\": {\"function\": \"consumer\", \"file\": \"/src/app.cpp\", "
                      "\"line\": 22}"),
            std::string::npos)
      << json;

  const std::string html = render_html(r, {});
  EXPECT_NE(html.find("<td class=\"name\">pthread_cond_wait</td><td class=\"name\">consumer "
                      "(app.cpp:22)</td>"),
            std::string::npos)
      << html;
}

TEST(ReportWaits, SqliteHasEveryRowWithItsFunctionsAndLines) {
  TempDir dir;
  write_waits(dir.path());
  const auto db = dir.path() / "profile.db";
  ASSERT_EQ(write_sqlite(report(dir.path()), db.string()), "");
  if (!testing::have_tool("sqlite3")) GTEST_SKIP() << "sqlite3 not installed: database not queried";
  const auto q = [&](const std::string& sql) {
    return testing::run_shell("sqlite3 " + db.string() + " \"" + sql + "\" 2>&1").out;
  };
  EXPECT_EQ(
      q("SELECT w.call, f.name, c.name, l.file, l.line, w.off_cpu_ns, w.stands_out FROM waits w "
        "JOIN functions f ON f.id = w.function_id "
        "LEFT JOIN functions c ON c.id = w.caller_function_id "
        "LEFT JOIN lines l ON l.id = w.caller_line_id"),
      "pthread_cond_wait|pthread_cond_wait@@GLIBC_2.3.2|consumer|/src/app.cpp|22|98000000|1\n"
      "read|__GI___libc_read|worker_start|stream_encoder_mt.c|400|40000000|1\n"
      "(its own code)|work|work|/src/app.cpp|10|0|0\n");
}

TEST(ReportWaits, GlibcsInternalNamesBecomeThePublicOnes) {
  SymbolTable table;
  const auto name = [&](const std::string& symbol, const std::string& module) {
    table.functions.push_back({.name = symbol, .module = module});
    const WaitRow row{.call = static_cast<FunctionId>(table.functions.size() - 1)};
    return wait_call_name(table, row);
  };
  const std::string libc = "/lib/x86_64-linux-gnu/libc.so.6";
  EXPECT_EQ(name("__GI___libc_read", libc), "read");
  EXPECT_EQ(name("__libc_recv", libc), "recv");
  EXPECT_EQ(name("__pthread_mutex_lock", libc), "pthread_mutex_lock");
  EXPECT_EQ(name("___pthread_join", libc), "pthread_join");
  EXPECT_EQ(name("__poll", libc), "poll");
  EXPECT_EQ(name("pthread_cond_wait@@GLIBC_2.3.2", libc), "pthread_cond_wait");
  EXPECT_EQ(name("_IO_fgets", libc), "_IO_fgets");
  // Another library's names are its own.
  EXPECT_EQ(name("__kmp_suspend_64", "/usr/lib/x86_64-linux-gnu/libomp.so.5"), "__kmp_suspend_64");
  EXPECT_EQ(name("std::thread::join()", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"),
            "std::thread::join()");
}

}  // namespace
}  // namespace cprof::report
