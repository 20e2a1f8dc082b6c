// End to end: `sample-run --gpu` on a program that drives the stand-in HSA runtime (so
// libcprof-hsa records real kernels with real launch stacks), then `causal-report` on the
// results: one process (the .gpu.cprof file folded into the sampler's), the kernels by
// their demangled names, and each kernel's time attributed to the program's function
// that launched it, not to the runtime's frames below it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/report/results_fixture.h"
#include "tests/report/tool_shell.h"

namespace cprof::report {
namespace {

using testing::run_shell;
using testing::TempDir;

class GpuEndToEnd : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    const auto r = run_shell(std::string(SAMPLE_RUN) + " --gpu -q -o " + dir_->path().string() + " -- " +
                       GPU_STANDIN_APP + " 30 2>&1");
    ASSERT_EQ(r.status, 0) << r.out;
    ASSERT_NE(r.out.find("30 rounds"), std::string::npos) << r.out;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static std::string report(const std::string& args) {
    const auto r = run_shell(std::string(CAUSAL_REPORT_BIN) + " " + dir_->path().string() + " -q " + args);
    EXPECT_EQ(r.status, 0) << r.out;
    return r.out;
  }
  static TempDir* dir_;
};

TempDir* GpuEndToEnd::dir_ = nullptr;

TEST_F(GpuEndToEnd, ResultsHoldTheSamplersAndTheGpuFile) {
  size_t gpu = 0, all = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_->path())) {
    ++all;
    gpu += e.path().filename().string().find(".gpu.") != std::string::npos;
  }
  EXPECT_EQ(gpu, 1u);
  EXPECT_EQ(all, 2u);
}

TEST_F(GpuEndToEnd, TextNamesKernelsAndLaunchingFunctions) {
  const auto text = report("");
  EXPECT_NE(text.find("causal-report: 1 process,"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU: 90 kernels (90 timed"), std::string::npos) << text;
  EXPECT_NE(text.find("square(float*, int)"), std::string::npos) << text;
  EXPECT_NE(text.find("ns::scale(double*, double)"), std::string::npos) << text;
  EXPECT_NE(text.find("launch_square"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu_standin_app.cpp:"), std::string::npos) << text;
  EXPECT_NE(text.find("host to device"), std::string::npos) << text;
}

TEST_F(GpuEndToEnd, JsonAttributesEachKernelToItsLauncher) {
  const auto file = dir_->path().parent_path() / (dir_->path().filename().string() + ".json");
  {
    std::ofstream out(file);
    out << report("--format json");
  }
  const auto r = run_shell(
      "python3 -c 'import json,sys\n"
      "g = json.load(open(sys.argv[1]))[\"gpu\"]\n"
      "for k in sorted(g[\"kernels\"], key=lambda k: k[\"name\"]):\n"
      "  s = k[\"launch_sites\"][0]\n"
      "  print(k[\"name\"], k[\"calls\"], k[\"min_ns\"] > 0, len(k[\"launch_sites\"]), s[\"function\"],"
      " s[\"file\"].endswith(\"gpu_standin_app.cpp\"), s[\"calls\"])\n"
      "print(g[\"devices\"][0][\"kernels\"], 0 < g[\"devices\"][0][\"busy_fraction\"] <= 1)\n"
      "print([(c[\"direction\"], c[\"bytes\"]) for c in g[\"copies\"]])' " +
      file.string() + " 2>&1");
  std::filesystem::remove(file);
  EXPECT_EQ(r.out,
            "ns::scale(double*, double) 30 True 1 launch_scale True 30\n"
            "square(float*, int) 60 True 1 launch_square True 60\n"
            "90 True\n"
            "[('host to device', 1048576)]\n");
}

}  // namespace
}  // namespace cprof::report
