#include "tests/gpu/cuda_tool_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <regex>
#include <span>
#include <type_traits>
#include <variant>

#include "symbolize/symbolizer.h"

namespace cprof::testing {

GpuFile read_gpu_file(const std::filesystem::path& path) {
  GpuFile f;
  f.summary = format::read_results_file(path, [&](format::Record&& r) {
    std::visit(
        [&](auto&& rec) {
          using T = std::decay_t<decltype(rec)>;
          if constexpr (std::is_same_v<T, format::ProcessRecord>) f.process = rec;
          if constexpr (std::is_same_v<T, format::ModuleRecord>) f.modules.push_back(rec);
          if constexpr (std::is_same_v<T, format::KernelRecord>) f.kernels.push_back(rec);
          if constexpr (std::is_same_v<T, format::CopyRecord>) f.copies.push_back(rec);
          if constexpr (std::is_same_v<T, format::GpuDeviceRecord>) f.devices.push_back(rec);
          if constexpr (std::is_same_v<T, format::GpuTraceWindowRecord>) f.windows.push_back(rec);
          if constexpr (std::is_same_v<T, format::MessageRecord>) f.messages.push_back(rec);
        },
        std::move(r));
  });
  return f;
}

std::vector<std::filesystem::path> gpu_files_in(const std::string& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().filename().string().find(".gpu") != std::string::npos) out.push_back(e.path());
  }
  return out;
}

std::vector<std::string> stack_functions(const GpuFile& f, const std::vector<uint64_t>& frames) {
  static symbolize::Symbolizer symbolizer;
  std::vector<std::string> out;
  for (const uint64_t ret : frames) {
    const uint64_t pc = ret - 1;  // every frame is a return address
    const format::ModuleRecord* m = nullptr;
    for (const auto& mod : f.modules) {
      if (pc >= mod.start && pc < mod.end) m = &mod;
    }
    if (m == nullptr) {
      out.emplace_back("?");
      continue;
    }
    const uint64_t elf = pc - m->load_bias;
    const auto result = symbolizer.symbolize({m->path, m->build_id}, std::span(&elf, 1));
    if (result.empty() || result[0].frames.empty()) {
      out.emplace_back("?");
      continue;
    }
    for (const auto& fr : result[0].frames) out.push_back(fr.function);
  }
  return out;
}

bool has_function(const std::vector<std::string>& functions, const std::string& name) {
  for (const auto& f : functions) {
    if (f == name || f.starts_with(name + "(")) return true;
  }
  return false;
}

std::string joined(const std::vector<std::string>& functions) {
  std::string s;
  for (const auto& f : functions) s += (s.empty() ? "" : " <- ") + f;
  return s;
}

void expect_cuda_launches_recorded(const GpuFile& f) {
  EXPECT_TRUE(f.summary.issues.empty());
  EXPECT_EQ(f.process.engine, "cupti");

  bool named_gpu = false;
  for (const auto& d : f.devices) {
    if (d.kind == format::GpuDeviceKind::gpu && !d.name.empty()) named_gpu = true;
  }
  EXPECT_TRUE(named_gpu);

  size_t scale = 0, offset = 0;
  for (const auto& k : f.kernels) {
    const bool is_scale = k.name == "scale_kernel(float*, float, int)";
    const bool is_offset = k.name == "offset_kernel(float*, float, int)";
    ASSERT_TRUE(is_scale || is_offset) << "unexpected kernel '" << k.name << "'";
    scale += is_scale ? 1 : 0;
    offset += is_offset ? 1 : 0;
    EXPECT_GT(k.start_ns, 0u) << k.name;
    EXPECT_GT(k.end_ns, k.start_ns) << k.name;
    EXPECT_GT(k.time_ns, 0u) << k.name;
    // Launched before it ran (allowing for the clock mapping's error).
    EXPECT_LT(k.time_ns, k.start_ns + 1000000) << k.name;
    EXPECT_EQ(k.grid[0], 1u << 18) << k.name;
    EXPECT_EQ(k.workgroup[0], 256u) << k.name;
    EXPECT_GT(k.tid, 0) << k.name;
    const auto functions = stack_functions(f, k.frames);
    if ((is_scale && scale == 1) || (is_offset && offset == 1)) {  // in the log, once each
      std::cout << k.name << ": " << (k.end_ns - k.start_ns) << " ns, launch stack "
                << joined(functions) << "\n";
    }
    EXPECT_TRUE(has_function(functions, is_scale ? "launch_scale" : "launch_offset"))
        << k.name << ": " << joined(functions);
    EXPECT_FALSE(has_function(functions, is_scale ? "launch_offset" : "launch_scale"))
        << k.name << ": " << joined(functions);
    EXPECT_TRUE(has_function(functions, "main")) << k.name << ": " << joined(functions);
  }
  EXPECT_EQ(scale, 5u);
  EXPECT_EQ(offset, 3u);

  size_t in = 0, out = 0;
  for (const auto& c : f.copies) {
    EXPECT_GT(c.end_ns, c.start_ns);
    const auto functions = stack_functions(f, c.frames);
    std::cout << "copy: direction " << static_cast<int>(c.direction) << ", " << c.bytes
              << " bytes, " << (c.end_ns - c.start_ns) << " ns, launch stack " << joined(functions)
              << "\n";
    if (c.direction == format::CopyDirection::host_to_device) {
      ++in;
      EXPECT_EQ(c.bytes, 1u << 20);
      EXPECT_TRUE(has_function(functions, "copy_in")) << joined(functions);
    } else if (c.direction == format::CopyDirection::device_to_host) {
      ++out;
      EXPECT_EQ(c.bytes, 1u << 19);
      EXPECT_TRUE(has_function(functions, "copy_out")) << joined(functions);
    }
  }
  EXPECT_EQ(in, 1u);
  EXPECT_EQ(out, 1u);
}

void expect_graph_kernels_recorded(const GpuFile& f) {
  EXPECT_TRUE(f.summary.issues.empty());
  std::map<std::string, int> calls;
  for (const auto& k : f.kernels) {
    ++calls[k.name];
    EXPECT_GT(k.end_ns, k.start_ns) << k.name;
    const auto functions = stack_functions(f, k.frames);
    EXPECT_TRUE(has_function(functions, "launch_graph")) << k.name << ": " << joined(functions);
    EXPECT_FALSE(has_function(functions, "build_graph")) << k.name << ": " << joined(functions);
  }
  EXPECT_EQ(calls, (std::map<std::string, int>{{"graph_a()", 2}, {"graph_b()", 2}, {"graph_c()", 2}}));
}

uint64_t launches_printed(const std::string& output) {
  std::smatch m;
  if (!std::regex_search(output, m, std::regex(": ([0-9]+) launches"))) return 0;
  return std::stoull(m[1]);
}

void expect_loop_traced_in_windows(const GpuFile& f, uint64_t launched, double duty,
                                   uint64_t period_ns) {
  EXPECT_TRUE(f.summary.issues.empty());
  ASSERT_GE(f.windows.size(), 5u);
  for (const auto& w : f.windows) {
    EXPECT_EQ(w.duty, duty);
    EXPECT_EQ(w.period_ns, period_ns);
  }
  EXPECT_GT(f.kernels.size(), 0u);
  EXPECT_LT(f.kernels.size(), launched * 6 / 10) << launched << " launched";
  size_t with_stack = 0, inside = 0;
  for (const auto& k : f.kernels) {
    EXPECT_EQ(k.name, "loop_kernel()");
    if (has_function(stack_functions(f, k.frames), "launch_loop")) ++with_stack;
    if (std::any_of(f.windows.begin(), f.windows.end(), [&](const auto& w) {
          return k.time_ns >= w.start_ns && k.time_ns <= w.end_ns;
        })) {
      ++inside;
    }
  }
  EXPECT_GE(with_stack * 100, f.kernels.size() * 95) << with_stack << " of " << f.kernels.size();
  EXPECT_GE(inside * 100, f.kernels.size() * 95) << inside << " of " << f.kernels.size();
  std::cout << f.windows.size() << " windows, " << f.kernels.size() << " kernels of " << launched
            << " launches, " << with_stack << " with their stack\n";
}

}  // namespace cprof::testing
