// Code a program maps from a file a second time (V8's embedded builtins in node): found in
// /proc/self/maps and recorded with the load bias that names its functions
// (sampler/runtime/remapped_code.h).
#include "sampler/runtime/remapped_code.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "sampler/runtime/jit_map.h"
#include "sampler/unwind/module_table.h"

namespace cprof::sampler {
namespace {

TEST(RemappedCode, ExecutableFileMappingsAreParsedFromMaps) {
  const std::string maps =
      "55d0c0000000-55d0c0002000 r--p 00000000 fe:00 12 /usr/bin/node\n"
      "55d0c0002000-55d0c1000000 r-xp 00002000 fe:00 12 /usr/bin/node\n"
      "7f41db580000-7f41db712000 r-xp 014c4000 fe:00 12 /usr/bin/node\n"
      "7f41db800000-7f41db900000 rwxp 00000000 00:00 0 \n"
      "7fff1000-7fff3000 r-xp 00000000 00:00 0 [vdso]\n"
      "7f0000000000-7f0000001000 r-xp 00001000 fe:00 13 /tmp/gone (deleted)\n"
      "7f0000100000-7f0000101000 r-xp 00001000 fe:00 14 /opt/my lib.so";
  const auto m = executable_mappings(maps);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].start, 0x55d0c0002000u);
  EXPECT_EQ(m[1].start, 0x7f41db580000u);
  EXPECT_EQ(m[1].end, 0x7f41db712000u);
  EXPECT_EQ(m[1].offset, 0x14c4000u);
  EXPECT_EQ(m[1].path, "/usr/bin/node");
  EXPECT_EQ(m[2].path, "/opt/my lib.so");  // blanks in a path are kept
}

std::string read_maps() {
  std::stringstream s;
  s << std::ifstream("/proc/self/maps").rdbuf();
  return s.str();
}

__attribute__((noinline)) int remapped_target(int x) { return x * 3 + 1; }

// This test's own text, mapped again as V8 maps node's: the copy is found, outside every
// module of the loader's list, and its load bias takes an address in the copy to the same
// ELF address as the original.
TEST(RemappedCode, ASecondMappingOfTheProgramsTextIsFoundWithItsLoadBias) {
  const ModuleTable table;
  const ModuleSnapshot* snapshot = table.snapshot();
  const auto fn = reinterpret_cast<uint64_t>(&remapped_target);
  const Module* self = snapshot->find(fn);
  ASSERT_NE(self, nullptr);
  // The loader's mapping that holds the function: map the same file pages again.
  ExecutableMapping original;
  for (const auto& m : executable_mappings(read_maps())) {
    if (fn >= m.start && fn < m.end) original = m;
  }
  ASSERT_NE(original.end, 0u);
  const size_t length = original.end - original.start;
  const int fd = ::open(original.path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  void* copy = ::mmap(nullptr, length, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
                      static_cast<off_t>(original.offset));
  ::close(fd);
  ASSERT_NE(copy, MAP_FAILED);
  const uint64_t moved = fn - original.start + reinterpret_cast<uint64_t>(copy);

  const auto found = remapped_code_modules(*snapshot, read_maps());
  ::munmap(copy, length);
  const format::ModuleRecord* record = nullptr;
  for (const auto& r : found) {
    EXPECT_NE(r.start, original.start) << "the loader's own mapping is in the snapshot";
    if (r.start == reinterpret_cast<uint64_t>(copy)) record = &r;
  }
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->path, original.path);
  EXPECT_EQ(record->build_id, self->build_id);
  EXPECT_EQ(moved - record->load_bias, fn - self->load_bias);
}

// Where the sampler keeps a process's JIT map: next to its results file.
TEST(JitMap, KeptNextToTheResultsFile) {
  EXPECT_EQ(jit_map_path_for("/r/node.vm.12.cprof"), "/r/node.vm.12.perf-map");
  EXPECT_EQ(jit_map_path_for("/r.d/node"), "/r.d/node.perf-map");
}

}  // namespace
}  // namespace cprof::sampler
