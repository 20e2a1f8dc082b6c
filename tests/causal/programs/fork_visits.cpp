// Visits a line PARENT times, forks a child that visits it CHILD times, and waits for it:
// for the test that --progress counts each process's own visits once (a forked child's
// count goes on from its parent's, which the parent reports).
//   fork_visits PARENT CHILD
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

__attribute__((noinline)) uint64_t visit(uint64_t n, uint64_t x) {
  for (uint64_t i = 0; i < n; ++i) {
    x += i * i;  // VISITED_LINE
    asm volatile("" : "+r"(x));
  }
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: fork_visits PARENT CHILD\n");
    return 2;
  }
  uint64_t x = visit(std::strtoull(argv[1], nullptr, 10), 0);
  // Long enough for the runtime to fold the counter into the point's count (it polls
  // every 10 ms until the first experiment).
  usleep(100000);
  const pid_t child = fork();
  if (child == 0) {
    x = visit(std::strtoull(argv[2], nullptr, 10), x);
    std::printf("child %llu\n", static_cast<unsigned long long>(x & 0xff));
    return 0;
  }
  int status = 0;
  waitpid(child, &status, 0);
  std::printf("parent %llu\n", static_cast<unsigned long long>(x & 0xff));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
