// Waits for SIGTERM with its own handler, then says so and exits 5: the launcher must
// forward the signal and hand back this exit status.
#include <signal.h>
#include <unistd.h>

#include <cstdio>

static volatile sig_atomic_t g_terminated = 0;

static void on_term(int) { g_terminated = 1; }

int main() {
  struct sigaction sa {};
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, nullptr);
  std::printf("waiting\n");
  std::fflush(stdout);
  for (int i = 0; i < 1000 && g_terminated == 0; ++i) usleep(10000);
  std::printf(g_terminated != 0 ? "terminated gracefully\n" : "timed out\n");
  return g_terminated != 0 ? 5 : 1;
}
