// A program whose work is in a library it loads with dlopen after spinning on its own
// for a while (experiments on the library's code must wait for it), as plugin hosts do:
//   plugin_host PLUGIN ITEMS [SPIN_MS [reload]]
// ITEMS 0: the library is never loaded. "reload": closed after half the items and loaded
// again (its code mapped afresh, perhaps elsewhere).
#include <dlfcn.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

uint64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000;
}

volatile uint64_t g_spun = 0;

}  // namespace

extern "C" int plugin_base_version();  // programs/plugin_base/plugin_work.cpp

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: plugin_host PLUGIN ITEMS [SPIN_MS]\n");
    return 2;
  }
  const uint64_t items = std::strtoull(argv[2], nullptr, 10);
  const uint64_t spin_ms = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 300;
  for (const uint64_t end = now_ms() + spin_ms; now_ms() < end;) g_spun = g_spun + 1;
  if (items == 0) return plugin_base_version() == 1 ? 0 : 6;
  const bool reload = argc > 4 && std::strcmp(argv[4], "reload") == 0;
  uint64_t x = 1;
  const uint64_t parts[2] = {reload ? items / 2 : items, reload ? items - items / 2 : 0};
  for (const uint64_t part : parts) {
    if (part == 0) continue;
    void* plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (plugin == nullptr) {
      std::fprintf(stderr, "plugin_host: %s\n", dlerror());
      return 3;
    }
    auto* work = reinterpret_cast<uint64_t (*)(uint64_t)>(dlsym(plugin, "plugin_work"));
    if (work == nullptr) return 4;
    for (uint64_t i = 0; i < part; ++i) x = work(x);
    if (reload && dlclose(plugin) != 0) return 5;
  }
  std::printf("%llu\n", static_cast<unsigned long long>(x % 1000));
  return 0;
}
