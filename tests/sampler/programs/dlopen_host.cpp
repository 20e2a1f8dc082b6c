// Loads the plugin given as argv[1] with dlopen and calls plugin_work.
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  void* handle = dlopen(argv[1], RTLD_NOW);
  if (handle == nullptr) {
    std::fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  auto work = reinterpret_cast<void (*)()>(dlsym(handle, "plugin_work"));
  if (work == nullptr) return 1;
  work();
  dlclose(handle);
  std::printf("plugin done\n");
  return 0;
}
