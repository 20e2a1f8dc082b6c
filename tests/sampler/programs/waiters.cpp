// Three waits of known length in three kinds of call, for the report's view of waits
// (`causal-report --by wait`): a consumer blocks in a condition variable's wait
// (await_item) and a reader in read() on a pipe (read_message) while main makes the item
// with 400 ms of CPU; then main joins the consumer (std::thread::join) while it uses the
// item with 200 ms of CPU.
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "spin.h"

namespace {
std::mutex m;
std::condition_variable ready;
bool made = false;
int pipe_fds[2];
}  // namespace

extern "C" {
__attribute__((noinline)) void make_item() { SPIN_FOR_MS(400); }
__attribute__((noinline)) void use_item() { SPIN_FOR_MS(200); }
__attribute__((noinline)) void await_item() {
  std::unique_lock<std::mutex> lock(m);
  ready.wait(lock, [] { return made; });
}
__attribute__((noinline)) char read_message() {
  char c = 0;
  while (read(pipe_fds[0], &c, 1) < 0) {
  }
  return c;
}
}

int main() {
  if (pipe(pipe_fds) != 0) return 1;
  std::thread consumer([] {
    await_item();
    use_item();
  });
  char got = 0;
  std::thread reader([&] { got = read_message(); });
  make_item();
  {
    std::lock_guard<std::mutex> lock(m);
    made = true;
  }
  ready.notify_one();
  if (write(pipe_fds[1], "x", 1) != 1) return 1;
  reader.join();
  consumer.join();
  std::printf("got %c\n", got);
  return got == 'x' ? 0 : 1;
}
