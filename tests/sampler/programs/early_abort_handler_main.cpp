// Burns 400 ms and calls abort(), whose SIGABRT handler a library's constructor set before
// the preloaded runtime started (early_abort_handler_lib.cpp): the handler returns, and
// abort() then ends the process. Prints whether sigaction() still reports that handler.
#include <cstdio>
#include <cstdlib>

#include "spin.h"

extern "C" int early_abort_handler_set();

__attribute__((noinline)) void burn_before_abort() { SPIN_FOR_MS(400); }

int main() {
  std::printf("handler reported: %d\n", early_abort_handler_set());
  std::fflush(stdout);
  burn_before_abort();
  std::abort();
}
