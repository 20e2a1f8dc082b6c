#define RECURSE_NS nofp
#include "bench/unwind/recurse.inc"
