#define CHAIN_NS withfp
#include "tests/unwind/chain.inc"
