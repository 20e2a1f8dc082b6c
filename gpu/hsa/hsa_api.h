#pragma once
// The HSA runtime's tool interface, from Debian's libhsa-runtime-dev. hsa_api_trace.h
// includes its siblings as "inc/..." unless AMD_INTERNAL_BUILD is set; Debian installs
// them next to it.
#ifndef AMD_INTERNAL_BUILD
#define AMD_INTERNAL_BUILD 1
#endif
#include <hsa/hsa.h>
#include <hsa/hsa_api_trace.h>
#include <hsa/hsa_ext_amd.h>
