// A library whose constructor sets a SIGABRT handler that says so and returns. It is loaded
// as a dependency of the main program, so its constructor runs before the preloaded
// runtime's: the handler is already there when the runtime starts.
#include <signal.h>
#include <unistd.h>

namespace {

void say_and_return(int) { (void)!write(STDOUT_FILENO, "early handler ran\n", 18); }

__attribute__((constructor)) void set_abort_handler() { signal(SIGABRT, say_and_return); }

}  // namespace

extern "C" int early_abort_handler_set() {
  struct sigaction current {};
  sigaction(SIGABRT, nullptr, &current);
  return current.sa_handler == say_and_return ? 1 : 0;
}
