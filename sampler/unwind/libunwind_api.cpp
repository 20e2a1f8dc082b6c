#include "sampler/unwind/libunwind_api.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace cprof::sampler {
namespace {

LibunwindApi g_api{};
bool g_loaded = false;

struct OpenFd {
  int fd;
  ino_t inode;
  bool operator==(const OpenFd&) const = default;
};

// The descriptors that are pipes, non-blocking and close-on-exec, as libunwind opens its own.
std::vector<OpenFd> nonblocking_pipes() {
  std::vector<OpenFd> out;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return out;
  const int own = ::dirfd(dir);
  while (const dirent* e = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == own) continue;
    struct stat st {};
    const int n = static_cast<int>(fd);
    if (::fstat(n, &st) == 0 && S_ISFIFO(st.st_mode) && (::fcntl(n, F_GETFL) & O_NONBLOCK) != 0 &&
        (::fcntl(n, F_GETFD) & FD_CLOEXEC) != 0) {
      out.push_back({n, st.st_ino});
    }
  }
  ::closedir(dir);
  return out;
}

// libunwind's first use (tdep_init) opens a pipe to validate addresses by writing them to
// it, which only its own local accessors do; ours (libunwind_unwinder.cpp) read memory
// themselves. Left open, the pipe takes the program's lowest free descriptor numbers
// (often 3 and 4) for the whole run. So initialize libunwind here and close that pipe:
// the one new pipe whose two ends appeared during the call. (A program that itself used
// libunwind-x86_64's local accessors, which share this library's state, would validate
// through closed numbers; programs link the local-only libunwind.so.8 instead.)
void initialize_without_its_pipe(const LibunwindApi& api) {
  const std::vector<OpenFd> before = nonblocking_pipes();
  unw_accessors_t none{};  // never used: the address space only exists for the init
  unw_addr_space_t as = api.create_addr_space(&none, 0);
  if (as == nullptr) return;
  api.set_caching_policy(as, UNW_CACHE_GLOBAL);  // runs tdep_init where the create did not
  api.destroy_addr_space(as);
  std::vector<OpenFd> appeared;
  for (const OpenFd& p : nonblocking_pipes()) {
    bool old = false;
    for (const OpenFd& b : before) old = old || b == p;
    if (!old) appeared.push_back(p);
  }
  if (appeared.size() == 2 && appeared[0].inode == appeared[1].inode) {
    for (const OpenFd& p : appeared) ::syscall(SYS_close, p.fd);
  }
}

template <typename Fn>
bool resolve(void* handle, const char* name, Fn& out) {
  out = reinterpret_cast<Fn>(dlsym(handle, name));
  return out != nullptr;
}

}  // namespace

bool load_libunwind() noexcept {
  if (g_loaded) return true;
  void* handle = dlopen("libunwind-x86_64.so.8", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return false;
  LibunwindApi api{};
  const bool ok = resolve(handle, "_Ux86_64_create_addr_space", api.create_addr_space) &&
                  resolve(handle, "_Ux86_64_destroy_addr_space", api.destroy_addr_space) &&
                  resolve(handle, "_Ux86_64_get_accessors", api.get_accessors) &&
                  resolve(handle, "_Ux86_64_flush_cache", api.flush_cache) &&
                  resolve(handle, "_Ux86_64_set_caching_policy", api.set_caching_policy) &&
                  resolve(handle, "_Ux86_64_init_remote", api.init_remote) &&
                  resolve(handle, "_Ux86_64_step", api.step) &&
                  resolve(handle, "_Ux86_64_get_reg", api.get_reg) &&
                  resolve(handle, "_Ux86_64_dwarf_search_unwind_table",
                          api.dwarf_search_unwind_table);
  if (!ok) return false;  // the handle stays open: harmless, and dlclose is not needed
  initialize_without_its_pipe(api);
  g_api = api;
  g_loaded = true;
  return true;
}

const LibunwindApi& libunwind_api() noexcept { return g_api; }

}  // namespace cprof::sampler
