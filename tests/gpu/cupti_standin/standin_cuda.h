#pragma once
// A stand-in for the CUDA driver and runtime with CUPTI (tests/gpu/cupti_standin), so the
// CUDA tool (libcprof-cuda.so) runs without a GPU: the library that provides these
// functions is built as `libcupti.so.13` with CUPTI's symbol versions, and the tool, loaded
// into a program linked with it, takes its CUPTI functions from it.
//
// The program calls these as it would call the CUDA runtime. Each call fires CUPTI's
// runtime callback and, nested in it, the driver callback (as cudart calls the driver),
// for the callback ids the tool enabled; a launch or copy made while its activity kind is
// enabled leaves an activity record with synthetic device times (a device clock offset
// from CLOCK_MONOTONIC; kernels run one after another). Records reach the tool in
// buffers on a worker thread every flush period, and at cuptiActivityFlushAll.

#include <cstddef>
#include <cstdint>

extern "C" {

// What the driver does in cuInit: dlopen CUDA_INJECTION64_PATH (when set) and call its
// InitializeInjection. 0 when there is none or it succeeded, else -1 (dlerror printed).
int standin_cuda_init();
// cudaLaunchKernel of `mangled_name` (kept: the record points at it) with `grid` blocks of
// `block` threads, running `duration_ns` on the device; returns its correlation id.
uint32_t standin_cuda_launch(const char* mangled_name, uint32_t grid, uint32_t block,
                             uint64_t duration_ns);
// cudaGraphLaunch of a graph of `kernels` kernel nodes (names kept), one after another,
// each `duration_ns` on one block of 32 threads: every node's record has the launch's
// correlation id.
void standin_cuda_graph_launch(const char* const* mangled_names, size_t kernels,
                               uint64_t duration_ns);
// cudaMemcpy (synchronous): host to device when `to_device`, else device to host.
void standin_cuda_memcpy(size_t bytes, bool to_device);
// cudaDeviceSynchronize: waits (spinning) until the device has run everything launched.
void standin_cuda_synchronize();

}  // extern "C"
