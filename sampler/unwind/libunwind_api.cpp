#include "sampler/unwind/libunwind_api.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace cprof::sampler {
namespace {

LibunwindApi g_api{};
bool g_loaded = false;

template <typename Fn>
bool resolve(void* handle, const char* name, Fn& out) {
  out = reinterpret_cast<Fn>(dlsym(handle, name));
  return out != nullptr;
}

// The two lowest free descriptor numbers: where pipe2() puts a new pipe's ends.
std::pair<int, int> two_lowest_free() {
  int found[2] = {-1, -1};
  int n = 0;
  for (int fd = 0; n < 2 && fd < 65536; ++fd) {
    if (::fcntl(fd, F_GETFD) < 0 && errno == EBADF) found[n++] = fd;
  }
  return {found[0], found[1]};
}

// A non-blocking, close-on-exec pipe end, as libunwind opens its own; its inode, or 0.
ino_t nonblocking_pipe(int fd) {
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) return 0;
  if ((::fcntl(fd, F_GETFL) & O_NONBLOCK) == 0 || (::fcntl(fd, F_GETFD) & FD_CLOEXEC) == 0) return 0;
  return st.st_ino;
}

// libunwind's first use (tdep_init) opens a pipe to validate addresses by writing them to
// it, which only its own local accessors do; ours (libunwind_unwinder.cpp) read memory
// themselves. Left open, the pipe takes the program's lowest free descriptor numbers
// (often 3 and 4) for the whole run. So initialize libunwind here and close that pipe:
// both ends of one new pipe at the two numbers that were free. (A program that itself
// used libunwind-x86_64's local accessors, which share this library's state, would
// validate through closed numbers; programs link the local-only libunwind.so.8 instead.)
void initialize_without_its_pipe(const LibunwindApi& api) {
  const auto [a, b] = two_lowest_free();
  unw_accessors_t none{};  // never used: the address space only exists for the init
  unw_addr_space_t as = api.create_addr_space(&none, 0);
  if (as == nullptr) return;
  api.set_caching_policy(as, UNW_CACHE_GLOBAL);  // runs tdep_init where the create did not
  api.destroy_addr_space(as);
  const ino_t pipe = nonblocking_pipe(a);
  if (pipe != 0 && nonblocking_pipe(b) == pipe) {
    ::syscall(SYS_close, a);
    ::syscall(SYS_close, b);
  }
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
