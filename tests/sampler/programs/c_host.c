/* A C program that loads C++ code which throws: the exceptions must be thrown by the
   program's own unwinder (libgcc_s), whatever the profiler loaded. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  void* handle = dlopen(argv[1], RTLD_NOW);
  if (handle == NULL) return 1;
  long (*run)(void) = (long (*)(void))dlsym(handle, "throw_and_catch");
  printf("caught %ld\n", run());
  return 0;
}
