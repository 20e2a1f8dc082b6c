#define CHAIN_NS nofp
#include "tests/unwind/chain.inc"
