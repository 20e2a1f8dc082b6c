#include "sampler/unwind/module_table.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>

namespace cprof::sampler {
namespace {

__attribute__((noinline)) int local_function() { return 7; }

TEST(ModuleTable, FindsMainProgramWithEhFrameHdrAndBuildId) {
  ModuleTable table;
  const Module* m = table.find(reinterpret_cast<uint64_t>(&local_function));
  ASSERT_NE(m, nullptr);
  char exe[4096] = {};
  ASSERT_GT(readlink("/proc/self/exe", exe, sizeof exe - 1), 0);
  EXPECT_EQ(m->path, exe);
  EXPECT_NE(m->load_bias, 0u);  // PIE
  EXPECT_NE(m->eh.hdr, 0u);
  EXPECT_NE(m->eh.table, 0u);
  EXPECT_GT(m->eh.fde_count, 10u);
  EXPECT_GT(m->eh.eh_frame, 0u);
  // gcc/ld give a 20-byte SHA-1 build-id: 40 lowercase hex digits.
  EXPECT_EQ(m->build_id.size(), 40u) << m->build_id;
  EXPECT_EQ(m->build_id.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(ModuleTable, FindsLibcAndVdso) {
  ModuleTable table;
  // gnu_get_libc_version: in libc itself, and intercepted by no sanitizer runtime.
  const Module* libc = table.find(reinterpret_cast<uint64_t>(&gnu_get_libc_version));
  ASSERT_NE(libc, nullptr);
  EXPECT_NE(libc->path.find("libc.so"), std::string::npos) << libc->path;
  EXPECT_NE(libc->eh.table, 0u);
  bool vdso = false;
  for (const Module& m : table.modules()) vdso |= m.path == "[vdso]";
  EXPECT_TRUE(vdso);
}

TEST(ModuleTable, UnknownAddressesAreNotFoundOrMapped) {
  ModuleTable table;
  EXPECT_EQ(table.find(0), nullptr);
  EXPECT_EQ(table.find(~uint64_t{0}), nullptr);
  int on_stack = 0;
  EXPECT_EQ(table.find(reinterpret_cast<uint64_t>(&on_stack)), nullptr);
  EXPECT_FALSE(table.snapshot()->is_mapped(reinterpret_cast<uint64_t>(&on_stack), 8));
  EXPECT_TRUE(table.snapshot()->is_mapped(reinterpret_cast<uint64_t>(&local_function), 8));
}

TEST(ModuleTable, RefreshPublishesNewSnapshotAndKeepsOldOneReadable) {
  ModuleTable table;
  const ModuleSnapshot* old = table.snapshot();
  const uint64_t gen = old->generation();
  table.refresh();
  const ModuleSnapshot* now = table.snapshot();
  EXPECT_NE(now, old);
  EXPECT_EQ(now->generation(), gen + 1);
  // A handler that loaded `old` before the refresh may still be reading it.
  EXPECT_NE(old->find(reinterpret_cast<uint64_t>(&local_function)), nullptr);
}

// Only a load or unload moves the loader's counts: a handle to the program or to a library
// already loaded re-reads nothing; loading the test's library does, once.
TEST(ModuleTable, RefreshesOnlyWhenTheLoaderLoadedOrUnloaded) {
  ModuleTable table;
  const uint64_t generation = table.snapshot()->generation();
  EXPECT_FALSE(table.refresh_if_loader_changed());
  void* self = dlopen(nullptr, RTLD_NOW);
  void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(self, nullptr);
  ASSERT_NE(libc, nullptr);
  EXPECT_FALSE(table.refresh_if_loader_changed());
  EXPECT_EQ(table.snapshot()->generation(), generation);
  dlclose(libc);
  dlclose(self);
  void* dso = dlopen(CPROF_TEST_DSO_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(dso, nullptr) << dlerror();
  EXPECT_TRUE(table.refresh_if_loader_changed());
  EXPECT_GT(table.snapshot()->generation(), generation);
  EXPECT_FALSE(table.refresh_if_loader_changed());
  const LoaderCounts before = loader_counts();
  dlclose(dso);
  EXPECT_GT(loader_counts().subs, before.subs);  // its only handle: unloaded
  EXPECT_TRUE(table.refresh_if_loader_changed());
}

// A walk started inside a walk's callback on the same thread runs (the lock is not taken
// twice); a fork handler's hold waits for a walk in progress on another thread to end.
TEST(LoaderWalk, NestedWalksRunAndHoldWaitsForAWalkToEnd) {
  struct Nested {
    int outer = 0;
    int inner = 0;
  } nested;
  walk_loaded_objects(
      [](dl_phdr_info*, size_t, void* data) -> int {
        auto* n = static_cast<Nested*>(data);
        ++n->outer;
        walk_loaded_objects(
            [](dl_phdr_info*, size_t, void* d) -> int { return ++*static_cast<int*>(d), 0; },
            &n->inner);
        return 1;
      },
      &nested);
  EXPECT_EQ(nested.outer, 1);
  EXPECT_GT(nested.inner, 2);

  struct Slow {
    std::atomic<bool> inside{false};
    std::atomic<bool> finished{false};
  } slow;
  std::thread walker([&slow] {
    walk_loaded_objects(
        [](dl_phdr_info*, size_t, void* data) -> int {
          auto* s = static_cast<Slow*>(data);
          s->inside.store(true);
          usleep(100000);
          s->finished.store(true);
          return 1;
        },
        &slow);
  });
  while (!slow.inside.load()) usleep(1000);
  hold_loader_walks();
  EXPECT_TRUE(slow.finished.load());  // the hold came only after the walk's callback
  release_loader_walks();
  walker.join();
}

TEST(EhFrameHdr, DecodesGnuLdHeaderAndRejectsUnknownVersion) {
  // version 1, eh_frame_ptr pcrel|sdata4, fde_count udata4, table datarel|sdata4
  alignas(8) unsigned char hdr[4 + 4 + 4 + 16] = {1, 0x1b, 0x03, 0x3b};
  int32_t eh_rel = -0x100;
  uint32_t count = 2;
  std::memcpy(hdr + 4, &eh_rel, 4);
  std::memcpy(hdr + 8, &count, 4);
  EhFrameHdr out;
  auto base = reinterpret_cast<uint64_t>(hdr);
  ASSERT_TRUE(decode_eh_frame_hdr(base, sizeof hdr, &out));
  EXPECT_EQ(out.eh_frame, base + 4 - 0x100);
  EXPECT_EQ(out.fde_count, 2u);
  EXPECT_EQ(out.table, base + 12);

  count = 1000;  // table would overrun the section
  std::memcpy(hdr + 8, &count, 4);
  EXPECT_FALSE(decode_eh_frame_hdr(base, sizeof hdr, &out));
  hdr[0] = 2;
  EXPECT_FALSE(decode_eh_frame_hdr(base, sizeof hdr, &out));
}

}  // namespace
}  // namespace cprof::sampler
