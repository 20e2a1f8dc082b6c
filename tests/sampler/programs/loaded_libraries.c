/* Prints, for each library named, whether it is loaded in this process ("NAME: loaded" or
 * "NAME: not loaded"), without loading it (RTLD_NOLOAD).
 *   loaded_libraries NAME... */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    void* h = dlopen(argv[i], RTLD_LAZY | RTLD_NOLOAD);
    printf("%s: %s\n", argv[i], h != NULL ? "loaded" : "not loaded");
    if (h != NULL) dlclose(h);
  }
  return 0;
}
