#pragma once
namespace cprof::sampler::bench {
namespace nofp {
int recurse(int depth, void (*leaf)(void*), void* ctx);  // built -fomit-frame-pointer
}
namespace withfp {
int recurse(int depth, void (*leaf)(void*), void* ctx);  // built -fno-omit-frame-pointer
}
}  // namespace cprof::sampler::bench
