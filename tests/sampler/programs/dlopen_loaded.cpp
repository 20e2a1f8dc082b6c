// Asks the loader for what it already has, COUNT times (a handle to the program, and
// libm, which the program links, with RTLD_NOLOAD), while the main thread forks children
// that walk the loaded objects and exit. Nothing is loaded or unloaded, so the runtime
// has nothing to re-read. It used to re-read every module at each dlopen and dlclose:
// a snapshot kept per call (memory without bound), and walks of the loader's list
// (dl_iterate_phdr) so frequent that a child, which inherits the loader's lock held
// (glibc 2.36 does not reset it), hung at its own walk. A child not ended within 3 s is
// killed and counted; forking stops after 3 such. Prints the children that hung and the
// process's peak resident memory.
//   dlopen_loaded [COUNT]
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

bool ended_within(pid_t child, int ms) {
  for (int waited = 0; waited < ms; ++waited) {
    int status = 0;
    if (waitpid(child, &status, WNOHANG) == child) {
      return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    usleep(1000);
  }
  return false;
}

long peak_resident_kib() {
  FILE* f = std::fopen("/proc/self/status", "re");
  if (f == nullptr) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "VmHWM: %ld", &kib) == 1) break;
  }
  std::fclose(f);
  return kib;
}

}  // namespace

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 100000;
  std::atomic<bool> done{false};
  std::thread asker([&] {
    for (int i = 0; i < count; ++i) {
      void* self = dlopen(nullptr, RTLD_NOW);
      void* libm = dlopen("libm.so.6", RTLD_NOW | RTLD_NOLOAD);
      if (self == nullptr || libm == nullptr) std::_Exit(3);
      dlclose(libm);
      dlclose(self);
    }
    done.store(true);
  });
  int forked = 0;
  int hung = 0;
  while (!done.load() && hung < 3 && forked < 1000) {
    const pid_t child = fork();
    if (child < 0) break;
    if (child == 0) {
      int objects = 0;
      dl_iterate_phdr([](dl_phdr_info*, size_t, void* n) { return ++*static_cast<int*>(n), 0; },
                      &objects);
      _exit(objects > 0 ? 0 : 4);
    }
    ++forked;
    if (!ended_within(child, 3000)) {
      ++hung;
      kill(child, SIGKILL);
      waitpid(child, nullptr, 0);
    }
  }
  asker.join();
  std::printf("%d of %d children hung\npeak %ld KiB\n", hung, forked, peak_resident_kib());
  return hung == 0 ? 0 : 1;
}
