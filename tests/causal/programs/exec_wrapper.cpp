// Runs a little work of its own, then replaces itself with the program named by its
// arguments (execv), for the test that an exec'd program runs experiments of its own.
//   exec_wrapper PROGRAM [ARGS...]
#include <unistd.h>

#include <cstdint>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: exec_wrapper PROGRAM [ARGS...]\n");
    return 2;
  }
  uint64_t x = 0;
  for (uint64_t i = 0; i < 20000000; ++i) {
    x += i * i;  // WRAPPER_WORK
    asm volatile("" : "+r"(x));
  }
  std::printf("wrapper %llu\n", static_cast<unsigned long long>(x & 0xff));
  std::fflush(stdout);
  execv(argv[1], argv + 1);
  std::perror("exec_wrapper: execv");
  return 127;
}
