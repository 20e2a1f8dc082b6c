#pragma once
// The GPU tools' own threads (the results file's flusher, the trace-window switch) keep
// out of the program's signals and of the sampler's: they block every signal through
// libc's own pthread_sigmask, under the sampling runtime's interposer, which would
// otherwise keep the sampling signal open (sampler/runtime/signal_mask.h).

namespace cprof::gpu {

// Called first thing in a tool thread: blocks every signal and names the thread.
void begin_tool_thread(const char* name);

}  // namespace cprof::gpu
