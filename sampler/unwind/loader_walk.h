#pragma once
// The runtime's walks of the loaded objects (dl_iterate_phdr), one lock for them all that
// fork holds (Runtime::before_fork).
//
// Why: dl_iterate_phdr holds the loader's write lock while its callback runs, and glibc
// (2.36, Debian 12) does not reset that lock in a forked child. A child forked while one
// of the parent's threads is inside a walk inherits it held by a thread it does not have,
// and hangs at its own first dlopen or walk. The program's own dlopen and dlclose leave
// the same window open (a glibc defect, there without us); the runtime's walks after each
// dlopen (the module table, Syscall User Dispatch's library search, load biases) made it
// thousands of times wider. With this lock, a fork waits for the runtime's walk to end.
//
// A callback must take no lock that Runtime::before_fork takes (the order is: those, then
// this one) and load or unload nothing. A walk started inside a walk's callback on the
// same thread runs without the lock (it is already held). Not async-signal-safe.
#include <link.h>

#include <cstdint>

namespace cprof::sampler {

using LoadedObjectVisitor = int (*)(dl_phdr_info* info, size_t size, void* data);

// dl_iterate_phdr(visit, data) under the walk lock: returns what it returns.
int walk_loaded_objects(LoadedObjectVisitor visit, void* data);

// How many objects the loader has loaded and unloaded so far (dlpi_adds, dlpi_subs).
// While both stay the same, so does the set of loaded objects: a dlopen of an object
// already loaded (or RTLD_NOLOAD, or of the program itself) changes neither.
struct LoaderCounts {
  uint64_t adds = 0;
  uint64_t subs = 0;
  bool operator==(const LoaderCounts&) const = default;
  // Every load and unload adds one: of two counts, the larger saw more.
  uint64_t changes() const noexcept { return adds + subs; }
};
LoaderCounts loader_counts() noexcept;

// For the fork handlers only: no walk of the runtime's runs between the two calls.
void hold_loader_walks() noexcept;
void release_loader_walks() noexcept;

}  // namespace cprof::sampler
