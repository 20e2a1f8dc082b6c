// Two threads hand a token back and forth through pipes, with a little CPU work at each
// turn: every hand-over blocks one thread in read(), a context switch in the kernel
// (about 2 x 5000 of them), between samples of CPU time.
#include <pthread.h>
#include <unistd.h>

#include <cstdio>

#include "spin.h"

namespace {
constexpr int kRounds = 5000;
int to_pong[2];
int to_ping[2];
}  // namespace

extern "C" {
__attribute__((noinline)) void ping_turn() {
  const uint64_t end = thread_cpu_ns() + 15000;
  volatile uint64_t x = 0;
  while (thread_cpu_ns() < end) x = x + 1;
}
__attribute__((noinline)) void pong_turn() {
  const uint64_t end = thread_cpu_ns() + 15000;
  volatile uint64_t x = 0;
  while (thread_cpu_ns() < end) x = x + 1;
}
}

static void* pong(void*) {
  char token = 0;
  for (int i = 0; i < kRounds; ++i) {
    if (read(to_pong[0], &token, 1) != 1) return nullptr;
    pong_turn();
    if (write(to_ping[1], &token, 1) != 1) return nullptr;
  }
  return nullptr;
}

int main() {
  if (pipe(to_pong) != 0 || pipe(to_ping) != 0) return 1;
  pthread_t t;
  pthread_create(&t, nullptr, pong, nullptr);
  char token = 'x';
  int rounds = 0;
  for (; rounds < kRounds; ++rounds) {
    ping_turn();
    if (write(to_pong[1], &token, 1) != 1 || read(to_ping[0], &token, 1) != 1) break;
  }
  pthread_join(t, nullptr);
  std::printf("rounds %d\n", rounds);
  return rounds == kRounds ? 0 : 1;
}
