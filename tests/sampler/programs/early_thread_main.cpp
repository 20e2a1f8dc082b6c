#include <cstdio>

extern "C" void join_early_thread();

int main() {
  join_early_thread();
  std::printf("joined\n");
  return 0;
}
