// A library that the dlopen test loads at run time.
#include "spin.h"

extern "C" __attribute__((noinline)) void plugin_work() { SPIN_FOR_MS(300); }
