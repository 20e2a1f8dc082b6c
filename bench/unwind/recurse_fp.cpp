#define RECURSE_NS withfp
#include "bench/unwind/recurse.inc"
